/**
 * The committed WebAssembly of the in-page labs is what its AssemblyScript source builds (scripts/build-wasm.ts), and
 * it computes the product: a stale or hand-edited .wasm fails here, naming the file.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { staleWasm, WASM_MODULES } from '../scripts/build-wasm.ts';
import { THREADS_MAX_PAGES } from '../src/browser-lab/wasm/threads-memory.ts';

const dir = fileURLToPath(new URL('../src/browser-lab/wasm/', import.meta.url));

describe('in-page lab WebAssembly', () => {
  it('the committed .wasm files match a fresh build of their sources', () => {
    assert.deepEqual(WASM_MODULES.map((m) => m.output), ['matmul-scalar.wasm', 'matmul-simd.wasm', 'matmul-simd-threads.wasm'], 'the threaded module is among those checked');
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

  it('matmul-simd-threads.wasm imports a shared memory and computes blocks of rows on it (odd n, uneven blocks)', async () => {
    const module = new WebAssembly.Module(readFileSync(dir + 'matmul-simd-threads.wasm'));
    assert.deepEqual(WebAssembly.Module.imports(module), [{ module: 'env', name: 'memory', kind: 'memory' }]);
    const memory = new WebAssembly.Memory({ initial: 1, maximum: THREADS_MAX_PAGES, shared: true });
    assert.ok(memory.buffer instanceof SharedArrayBuffer);
    // Two instances on one memory, as two workers have: each computes its own rows.
    const kernels = [0, 1].map(() => new WebAssembly.Instance(module, { env: { memory } }).exports['matmulSimdRowsRepeated'] as (n: number, first: number, last: number, reps: number) => void);
    const n = 5;
    const m = new Float64Array(memory.buffer);
    for (let i = 0; i < n * n; i++) {
      m[i] = i + 1;
      m[n * n + i] = (i * 7) % 3;
    }
    m.fill(Number.NaN, 2 * n * n, 3 * n * n);
    kernels[0]!(n, 0, 2, 2);
    kernels[1]!(n, 2, n, 3);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let sum = 0;
        for (let k = 0; k < n; k++) sum += m[i * n + k]! * m[n * n + k * n + j]!;
        assert.equal(m[2 * n * n + i * n + j], sum, `C[${i}][${j}]`);
      }
    }
    // A memory whose maximum exceeds the module's declared one is refused: the page must use THREADS_MAX_PAGES.
    assert.throws(() => new WebAssembly.Instance(module, { env: { memory: new WebAssembly.Memory({ initial: 1, maximum: THREADS_MAX_PAGES + 1, shared: true }) } }), WebAssembly.LinkError);
  });
});
