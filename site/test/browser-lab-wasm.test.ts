/**
 * The committed WebAssembly of the in-page labs is what its AssemblyScript source builds (scripts/build-wasm.ts), and
 * it computes the product: a stale or hand-edited .wasm fails here, naming the file. The register-blocked rung, its
 * threaded module and the SIMD peak probe (labs/native-kernel-peak.ts) are checked here in Node, plain and relaxed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { staleWasm, WASM_MODULES } from '../scripts/build-wasm.ts';
import { THREADS_MAX_PAGES } from '../src/browser-lab/wasm/threads-memory.ts';
import type { Results } from '@parallel-course/core';
import { arithmeticOf, hasRelaxedSimd, measureSimdPeak, PEAK_OBSERVATION, peakLines, peakObservation, RELAXED_SIMD_MODULE, type PeakExports } from '../src/browser-lab/labs/native-kernel-peak.ts';
import { columnBlock, packBytes, PANEL_COLUMNS, threadsLayout } from '../src/browser-lab/wasm/threads-memory.ts';
import { scalingLines } from '../src/browser-lab/labs/native-kernel-scaling.ts';

const dir = fileURLToPath(new URL('../src/browser-lab/wasm/', import.meta.url));

describe('in-page lab WebAssembly', () => {
  it('the committed .wasm files match a fresh build of their sources', () => {
    assert.deepEqual(
      WASM_MODULES.map((m) => m.output),
      ['matmul-scalar.wasm', 'matmul-simd.wasm', 'matmul-blocked.wasm', 'matmul-blocked-relaxed.wasm', 'matmul-blocked-threads.wasm', 'matmul-blocked-threads-relaxed.wasm'],
      'the blocked and threaded modules, plain and relaxed, are among those checked',
    );
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

  for (const relaxed of [false, true]) {
    const suffix = relaxed ? '-relaxed' : '';
    it(`matmul-blocked-threads${suffix}.wasm imports a shared memory and computes blocks of columns on it (n = 15: blocks of 8 and 7 columns, 2 whole tiles of rows and 3 in the one-row loop, a scalar column edge)`, async () => {
      const module = new WebAssembly.Module(readFileSync(`${dir}matmul-blocked-threads${suffix}.wasm`));
      assert.deepEqual(WebAssembly.Module.imports(module), [{ module: 'env', name: 'memory', kind: 'memory' }]);
      const n = 15;
      const layout = threadsLayout(n, 2);
      const memory = new WebAssembly.Memory({ initial: layout.pages, maximum: THREADS_MAX_PAGES, shared: true });
      assert.ok(memory.buffer instanceof SharedArrayBuffer);
      // Two instances on one memory, as two workers have: each computes its own columns, packing B in its own region.
      const kernels = [0, 1].map(() => new WebAssembly.Instance(module, { env: { memory } }).exports['matmulBlockedColumnsRepeated'] as (n: number, j0: number, j1: number, reps: number, pack: number) => void);
      const m = new Float64Array(memory.buffer);
      const { a, b } = inputs(n);
      m.set(a, 0);
      m.set(b, n * n);
      m.fill(Number.NaN, 2 * n * n, 3 * n * n);
      const blocks = [0, 1].map((w) => columnBlock(n, 2, w));
      assert.deepEqual(blocks, [{ j0: 0, j1: 4 }, { j0: 4, j1: 15 }]);
      kernels[0]!(n, blocks[0]!.j0, blocks[0]!.j1, 2, layout.packAt[0]!);
      kernels[1]!(n, blocks[1]!.j0, blocks[1]!.j1, 3, layout.packAt[1]!);
      assertProduct(new Float64Array(memory.buffer, 2 * n * n * 8, n * n), a, b, n, relaxed);
      // A memory whose maximum exceeds the module's declared one is refused: the page must use THREADS_MAX_PAGES.
      assert.throws(() => new WebAssembly.Instance(module, { env: { memory: new WebAssembly.Memory({ initial: 1, maximum: THREADS_MAX_PAGES + 1, shared: true }) } }), WebAssembly.LinkError);
    });
  }

  it('the threaded rung splits columns into whole 4-column panels, every column once, the rest to the last worker', () => {
    assert.equal(PANEL_COLUMNS, 4);
    for (const [n, threads] of [[256, 2], [128, 3], [128, 16], [15, 2], [7, 4], [3, 2]] as const) {
      const blocks = Array.from({ length: threads }, (_, w) => columnBlock(n, threads, w));
      assert.equal(blocks[0]!.j0, 0);
      assert.equal(blocks.at(-1)!.j1, n);
      for (let w = 1; w < threads; w++) assert.equal(blocks[w]!.j0, blocks[w - 1]!.j1, `n=${n} threads=${threads}: contiguous`);
      for (const block of blocks) assert.equal(block.j0 % 4, 0, `n=${n} threads=${threads}: ${JSON.stringify(block)} starts on a panel`);
      const sizes = blocks.slice(0, -1).map((x) => x.j1 - x.j0);
      assert.ok(sizes.every((size) => size % 4 === 0), `n=${n} threads=${threads}: whole panels ${sizes}`);
    }
    // Reference: 256 columns are 64 panels, 32 each; 128 columns on 16 workers are 32 panels, 2 each (8 columns).
    assert.deepEqual([0, 1].map((w) => columnBlock(256, 2, w)), [{ j0: 0, j1: 128 }, { j0: 128, j1: 256 }]);
    assert.ok(Array.from({ length: 16 }, (_, w) => columnBlock(128, 16, w)).every(({ j0, j1 }) => j1 - j0 === 8));
  });

  it('the shared memory holds A, B, C, the counter and one packed panel per worker, none overlapping', () => {
    for (const [n, threads] of [[256, 2], [15, 3], [1, 1]] as const) {
      const { counterByte, packAt, pages } = threadsLayout(n, threads);
      assert.equal(counterByte, 3 * n * n * 8);
      assert.ok(packAt[0]! >= counterByte + 8 && packAt.every((at) => at % 64 === 0));
      for (let w = 1; w < threads; w++) assert.ok(packAt[w]! >= packAt[w - 1]! + packBytes(n));
      assert.ok(pages * 65536 >= packAt.at(-1)! + packBytes(n));
    }
  });
});

/** Seeded inputs in [-1, 1), as the page's. */
function inputs(n: number): { a: Float64Array; b: Float64Array } {
  let state = 12345;
  const next = (): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return (state / 2147483648) * 2 - 1;
  };
  return { a: Float64Array.from({ length: n * n }, next), b: Float64Array.from({ length: n * n }, next) };
}

/**
 * C against the typed-array i-k-j sum: the same bits with a plain multiply and add (same order, same rounding), within
 * one rounding per term fused (relaxed SIMD), never off by a wrong term (the inputs make any wrong term far larger).
 */
function assertProduct(c: Float64Array, a: Float64Array, b: Float64Array, n: number, fused: boolean): void {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let k = 0; k < n; k++) sum += a[i * n + k]! * b[k * n + j]!;
      if (fused) assert.ok(Math.abs(c[i * n + j]! - sum) <= n * Number.EPSILON, `C[${i}][${j}] = ${c[i * n + j]}, expected ${sum}`);
      else assert.equal(c[i * n + j], sum, `C[${i}][${j}]`);
    }
  }
}

describe('the blocked rung and the WebAssembly SIMD peak probe', () => {
  for (const relaxed of [false, true]) {
    const file = `matmul-blocked${relaxed ? '-relaxed' : ''}.wasm`;
    const load = async () => (await WebAssembly.instantiate(readFileSync(dir + file))).instance.exports as unknown as PeakExports & { memory: WebAssembly.Memory; reserve(n: number): number; matmulBlocked(n: number): void };

    it(`${file} computes C = A * B at sizes with and without scalar edges`, async () => {
      const exports = await load();
      for (const n of [1, 3, 4, 5, 6, 7, 8, 12, 13, 16, 33]) {
        assert.equal(exports.reserve(n), 1);
        const { a, b } = inputs(n);
        const m = new Float64Array(exports.memory.buffer);
        m.set(a, 0);
        m.set(b, n * n);
        m.fill(Number.NaN, 2 * n * n, 3 * n * n);
        exports.matmulBlocked(n);
        assertProduct(new Float64Array(exports.memory.buffer, 2 * n * n * 8, n * n), a, b, n, relaxed);
      }
    });

    it(`${file}'s probe counts 48 flop a step and reports finite GFLOP/s per call`, async () => {
      const exports = await load();
      assert.equal(exports.PEAK_FLOP_PER_STEP.value, 48);
      // With x = 1 and y = 1 each accumulator counts the steps: 12 accumulators, 2 lanes, starting at 0, 1, ..., 11 (times y).
      assert.equal(exports.simdPeak(10, 1, 1), 2 * (12 * 10 + 66));
      const rates = await measureSimdPeak(exports, { samples: 3, targetMs: 2 });
      assert.equal(rates.length, 3);
      assert.ok(rates.every((r) => Number.isFinite(r) && r > 0), String(rates));
      const broken = { ...exports, simdPeak: () => Number.NaN };
      await assert.rejects(measureSimdPeak(broken, { samples: 1, targetMs: 1 }), /the SIMD peak probe returned NaN, not a finite sum/);
    });
  }

  it('relaxed SIMD is detected by validating a module with one f64x2.relaxed_madd, which only the relaxed builds contain', () => {
    assert.equal(WebAssembly.validate(RELAXED_SIMD_MODULE), true, 'Node 24 has relaxed SIMD');
    assert.equal(hasRelaxedSimd(), true);
    const broken = RELAXED_SIMD_MODULE.slice();
    broken[broken.length - 3] = 0xff; // not an opcode
    assert.equal(WebAssembly.validate(broken), false, 'the check can fail');
    // relaxed_madd is 0xfd 0x87 0x02 in the code section: in the relaxed builds, never in the plain ones.
    const hasMadd = (bytes: Uint8Array): boolean => bytes.some((x, i) => x === 0xfd && bytes[i + 1] === 0x87 && bytes[i + 2] === 0x02);
    for (const file of ['matmul-blocked-relaxed.wasm', 'matmul-blocked-threads-relaxed.wasm']) assert.ok(hasMadd(readFileSync(dir + file)), file);
    for (const file of ['matmul-blocked.wasm', 'matmul-blocked-threads.wasm']) assert.ok(!hasMadd(readFileSync(dir + file)), file);
    assert.match(arithmeticOf(true), /relaxed SIMD fused multiply-add/);
    assert.match(arithmeticOf(false), /a multiply then an add .*no relaxed SIMD/);
  });

  it('every rung as a percentage of the probe: one-thread rungs of the probe, a rung on W workers of W x the probe', () => {
    // Reference: n = 100 is 2e6 flop a product; 10 products in 2 ms = 10 GFLOP/s; the probe's best 40 GFLOP/s -> 25%.
    const results = {
      cases: [
        { variant: 'wasm-simd', params: { n: 100 }, workPerSample: { amount: 10, unit: 'products' }, summary: { median: 2 }, observations: {} },
        {
          variant: 'wasm-blocked',
          params: { n: 100 },
          workPerSample: { amount: 10, unit: 'products' },
          summary: { median: 1 },
          observations: { [PEAK_OBSERVATION]: peakSummary(peakObservation([20, 40, 30], true)) },
        },
        { variant: 'wasm-blocked-threads', params: { n: 100, threads: 2 }, workers: 2, workPerSample: { amount: 10, unit: 'products' }, summary: { median: 0.5 }, observations: {} },
      ],
    } as unknown as Results;
    const lines = peakLines(results);
    assert.equal(lines[0], 'WebAssembly SIMD peak (probe, best of 3 on the page\'s main thread, fused multiply-add): 40.0 GFLOP/s. Each rung\'s median as a share of it (on W workers: of W x the probe):');
    assert.deepEqual(lines.slice(1), [
      'wasm-simd n=100: 10.0 GFLOP/s, 25% of the wasm probe',
      'wasm-blocked n=100: 20.0 GFLOP/s, 50% of the wasm probe',
      'wasm-blocked-threads n=100 on 2 workers: 40.0 GFLOP/s, 50% of the wasm probe x 2',
    ]);
    assert.match(peakLines({ cases: results.cases.slice(0, 1) } as unknown as Results)[0]!, /^No WebAssembly SIMD peak was probed in this run/);
    assert.match(peakObservation([1], false).description, /a multiply then an add \(no relaxed SIMD\)/);
  });
});

describe('the threaded rung: what its efficiency lost', () => {
  /** A run with the rung on 1 and 2 workers: worker rates and hand-offs as given, efficiency 0.5 [0.4, 0.6]. */
  function run(rates2: number[], handoff2: number[]): Results {
    const obs = (unit: string, samples: number[]) => ({ unit, description: '', samples, p50: null, p99: null, max: null });
    return {
      cases: [
        { variant: 'wasm-blocked-threads', params: { n: 128, threads: 1 }, workers: 1, summary: { median: 20 }, observations: { 'worker-gflops': obs('GFLOP/s', [20, 10]), handoff: obs('ms', [0.1, 0.1]) } },
        { variant: 'wasm-blocked-threads', params: { n: 128, threads: 2 }, workers: 2, summary: { median: 20 }, observations: { 'worker-gflops': obs('GFLOP/s', rates2), handoff: obs('ms', handoff2) } },
      ],
      speedups: [{ variant: 'wasm-blocked-threads', params: { n: 128, threads: 2 }, efficiency: 0.5, efficiencyCi95: [0.4, 0.6], efficiencyBasis: 'one-worker', baseline: 'js-naive' }],
    } as unknown as Results;
  }
  const head = 'wasm-blocked-threads on 2 workers: efficiency 0.500 [0.400, 0.600] over 1 worker. ';

  it('workers at half the best 1-worker rate shared CPUs: that, not the hand-off, is what was lost', () => {
    // Reference: median(10, 10, 12, 8) = 10 GFLOP/s, 10 / max(20, 10) = 50%; hand-off 0.4 of 20 ms = 2%.
    assert.deepEqual(scalingLines(run([10, 10, 12, 8], [0.4, 0.4])), [
      `${head}Hand-off: median 0.400 ms of a 20.0 ms sample (2%). Each worker computed at a median 10.0 GFLOP/s in its own time, 50% of the best one worker reached alone (20.0): the workers did not each have a CPU for most of the run: they shared CPUs, with one another or with other work on this machine (its load), and that, more than the hand-off, is what the efficiency lost.`,
    ]);
  });

  it('workers at full rate with a hand-off of a fifth of the sample: the hand-off was lost; both small: nothing to blame', () => {
    assert.match(scalingLines(run([19, 19], [4, 4]))[0]!, /Hand-off: median 4\.00 ms of a 20\.0 ms sample \(20%\)\. .* 95% of the best .*: each worker had a CPU, and the hand-off .* is what the efficiency lost/);
    assert.match(scalingLines(run([19, 19], [0.4, 0.4]))[0]!, /each worker had a CPU to itself and the hand-off is small\.$/);
  });

  it('no line without the 2-worker case\'s observations or its efficiency', () => {
    assert.deepEqual(scalingLines(run([], [0.4])), []);
    const r = run([19], [0.4]);
    r.speedups = [];
    assert.deepEqual(scalingLines(r), []);
  });
});

function peakSummary(raw: ReturnType<typeof peakObservation>) {
  return { ...raw, p50: null, p99: null, max: Math.max(...raw.samples) };
}
