/**
 * The smallest useful ONNX model, encoded by hand: y = Identity(x) for a float tensor of shape [1]. The doctor
 * creates sessions from it to learn which execution providers really work, without depending on a lab's files.
 * Field numbers from onnx/onnx.proto (ModelProto, GraphProto, NodeProto, ValueInfoProto, TypeProto).
 */

function varint(value: number): number[] {
  const out: number[] = [];
  let v = value;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** A varint field (wire type 0). */
function int(field: number, value: number): number[] {
  return [...varint(field << 3), ...varint(value)];
}

/** A length-delimited field (wire type 2): a string or an embedded message. */
function bytes(field: number, content: number[] | string): number[] {
  const data = typeof content === 'string' ? [...Buffer.from(content, 'utf8')] : content;
  return [...varint((field << 3) | 2), ...varint(data.length), ...data];
}

/** ValueInfoProto { name, type: TypeProto { tensor_type { elem_type: FLOAT (1), shape { dim { dim_value: 1 } } } } } */
function floatVector(name: string): number[] {
  const shape = bytes(2, bytes(1, int(1, 1)));
  return [...bytes(1, name), ...bytes(2, bytes(1, [...int(1, 1), ...shape]))];
}

/** ModelProto bytes: ir_version 8, opset 17, graph "doctor" with one Identity node from "x" to "y". */
export function identityModel(): Uint8Array {
  const node = [...bytes(1, 'x'), ...bytes(2, 'y'), ...bytes(3, 'identity'), ...bytes(4, 'Identity')];
  const graph = [...bytes(1, node), ...bytes(2, 'doctor'), ...bytes(11, floatVector('x')), ...bytes(12, floatVector('y'))];
  const opset = [...bytes(1, ''), ...int(2, 17)];
  return Uint8Array.from([...int(1, 8), ...bytes(2, 'course-doctor'), ...bytes(7, graph), ...bytes(8, opset)]);
}
