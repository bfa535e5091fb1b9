/**
 * A deep copy of a lab's input, for each call of a sample of several (sample-limits.ts callsPerSample): made outside
 * the timed window, in the runner and in the judge, so every call has an input of its own even where the lab's
 * `measureAt` refills one set of arrays. It keeps the representation the lab's code was compiled for: typed arrays by
 * `slice` (a buffer of their own; a Node Buffer by `Buffer.from`, since its `slice` is a view), arrays by `slice` (V8 keeps a number[]'s unboxed doubles), plain objects key by
 * key. structuredClone turns a number[] into a holey array of boxed numbers: native-kernel's naive rung, fed such rows
 * at n = 4 and 32, ran 5x slower at n = 256 too (one function, its type feedback made generic). Anything else (a Map,
 * a class instance) is structuredClone'd.
 * Input: a value a lab's `measureAt` returned. Output: a copy that shares no array or object with it.
 */

function isPrimitive(value: unknown): boolean {
  return (typeof value !== 'object' && typeof value !== 'function') || value === null;
}

export function copyInput<T>(value: T): T {
  if (isPrimitive(value)) return value;
  if (ArrayBuffer.isView(value)) {
    // A Node Buffer's slice() is a view of the same memory (Buffer.from copies); a DataView, its own bytes alone.
    if (Buffer.isBuffer(value)) return Buffer.from(value) as T;
    if (value instanceof DataView) return new DataView(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength)) as T;
    return (value as unknown as { slice(): unknown }).slice() as T;
  }
  if (Array.isArray(value)) return (value.every(isPrimitive) ? value.slice() : value.map((v: unknown) => copyInput(v))) as T;
  const prototype = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === null) {
    const copy: Record<string | symbol, unknown> = prototype === null ? Object.create(null) : {};
    for (const key of Reflect.ownKeys(value as object)) copy[key] = copyInput((value as Record<string | symbol, unknown>)[key]);
    return copy as T;
  }
  return structuredClone(value);
}
