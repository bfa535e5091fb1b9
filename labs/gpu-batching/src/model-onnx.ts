/**
 * Writes the model of model-spec.ts as an ONNX file with onnx-proto (protobufjs static code): one Gemm per layer,
 * Relu between them, a dynamic batch dimension named "batch". irVersion 8 and opset 17 are what onnxruntime-node
 * 1.30 loads without complaint (see /work/shared/TOOLCHAIN.md). Encoding is deterministic: the same spec gives the
 * same bytes, which test/model.test.ts pins with a SHA-256.
 */
import onnxProto from 'onnx-proto';
import { buildLayers, INPUT_NAME, MODEL_SPEC, OUTPUT_NAME, type DenseLayer, type ModelSpec } from './model-spec.ts';

const { onnx } = onnxProto;

const FLOAT = onnx.TensorProto.DataType.FLOAT;

/** Float32 values as little-endian bytes, whatever the machine's byte order (ONNX raw_data is little-endian). */
function littleEndianBytes(values: Float32Array): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i] as number, true);
  return bytes;
}

function initializer(name: string, dims: number[], values: Float32Array) {
  return onnx.TensorProto.create({ name, dims, dataType: FLOAT, rawData: littleEndianBytes(values) });
}

function valueInfo(name: string, features: number) {
  return onnx.ValueInfoProto.create({
    name,
    type: {
      tensorType: {
        elemType: FLOAT,
        shape: { dim: [{ dimParam: 'batch' }, { dimValue: features }] },
      },
    },
  });
}

/** The ONNX graph of `layers`: input [batch, in] -> Gemm (+ Relu) ... -> logits [batch, out]. */
export function encodeModel(layers: readonly DenseLayer[]): Uint8Array {
  const nodes = [];
  const initializers = [];
  let current = INPUT_NAME;
  for (const [l, layer] of layers.entries()) {
    const last = l === layers.length - 1;
    const gemmOut = last ? OUTPUT_NAME : `dense${l}`;
    initializers.push(initializer(`w${l}`, [layer.inputs, layer.outputs], layer.weights));
    initializers.push(initializer(`b${l}`, [layer.outputs], layer.bias));
    nodes.push(onnx.NodeProto.create({ name: `gemm${l}`, opType: 'Gemm', input: [current, `w${l}`, `b${l}`], output: [gemmOut] }));
    current = gemmOut;
    if (!last) {
      nodes.push(onnx.NodeProto.create({ name: `relu${l}`, opType: 'Relu', input: [gemmOut], output: [`relu${l}`] }));
      current = `relu${l}`;
    }
  }
  const first = layers[0];
  const final = layers[layers.length - 1];
  if (!first || !final) throw new RangeError('encodeModel needs at least one layer');
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'parallel-course gpu-batching lab',
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: 'mlp',
      node: nodes,
      initializer: initializers,
      input: [valueInfo(INPUT_NAME, first.inputs)],
      output: [valueInfo(OUTPUT_NAME, final.outputs)],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

/** The bytes of the lab's model for `spec`. */
export function generateModelBytes(spec: ModelSpec = MODEL_SPEC): Uint8Array {
  return encodeModel(buildLayers(spec));
}
