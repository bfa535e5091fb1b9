/**
 * The committed WebAssembly of the in-page labs is what its AssemblyScript source builds (scripts/build-wasm.ts), and
 * it computes the product: a stale or hand-edited .wasm fails here, naming the file.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { staleWasm } from '../scripts/build-wasm.ts';

const dir = fileURLToPath(new URL('../src/browser-lab/wasm/', import.meta.url));

describe('in-page lab WebAssembly', () => {
  it('the committed .wasm files match a fresh build of their sources', () => {
    assert.deepEqual(staleWasm(), []);
  });

  for (const [file, entry] of [['matmul-scalar.wasm', 'matmul'], ['matmul-simd.wasm', 'matmulSimd']] as const) {
    it(`${file} computes C = A * B (odd n, so the SIMD tail runs)`, async () => {
      const { instance } = await WebAssembly.instantiate(readFileSync(dir + file));
      const exports = instance.exports as { memory: WebAssembly.Memory; reserve(n: number): number } & Record<string, (n: number) => void>;
      const n = 5;
      assert.equal(exports.reserve(n), 1);
      const m = new Float64Array(exports.memory.buffer);
      for (let i = 0; i < n * n; i++) {
        m[i] = i + 1;
        m[n * n + i] = (i * 7) % 3;
      }
      exports[entry]!(n);
      const c = new Float64Array(exports.memory.buffer, 2 * n * n * 8, n * n);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          let sum = 0;
          for (let k = 0; k < n; k++) sum += m[i * n + k]! * m[n * n + k * n + j]!;
          assert.equal(c[i * n + j], sum, `C[${i}][${j}]`);
        }
      }
    });
  }
});
