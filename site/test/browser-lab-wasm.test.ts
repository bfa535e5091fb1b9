/**
 * The committed WebAssembly of the in-page labs is what its AssemblyScript source builds (scripts/build-wasm.ts), and
 * it computes the product: a stale or hand-edited .wasm fails here, naming the file. The register-blocked rung, its
 * threaded module and the SIMD peak probe (labs/native-kernel-peak.ts) are checked here in Node, plain and relaxed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { staleWasm, WASM_MODULES } from '../scripts/build-wasm.ts';
import { THREADS_MAX_PAGES } from '../src/browser-lab/wasm/threads-memory.ts';
import type { Results } from '@parallel-course/core';
import { arithmeticOf, hasRelaxedSimd, measureSimdPeak, PEAK_OBSERVATION, peakLines, peakObservation, RELAXED_SIMD_MODULE, type PeakExports } from '../src/browser-lab/labs/native-kernel-peak.ts';
import { packBytes, panelCount, PANEL_COLUMNS, threadsLayout } from '../src/browser-lab/wasm/threads-memory.ts';
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
    it(`matmul-blocked-threads${suffix}.wasm imports a shared memory and computes the panels it claims from the shared counter (n = 15: 3 whole panels and a 3-column edge panel, 2 whole tiles of rows and 3 in the one-row loop)`, async () => {
      const module = new WebAssembly.Module(readFileSync(`${dir}matmul-blocked-threads${suffix}.wasm`));
      assert.deepEqual(WebAssembly.Module.imports(module), [{ module: 'env', name: 'memory', kind: 'memory' }]);
      const n = 15;
      const layout = threadsLayout(n, 2);
      const memory = new WebAssembly.Memory({ initial: layout.pages, maximum: THREADS_MAX_PAGES, shared: true });
      assert.ok(memory.buffer instanceof SharedArrayBuffer);
      // Two instances on one memory, as two workers have, each packing B in its own region.
      const kernels = [0, 1].map(() => new WebAssembly.Instance(module, { env: { memory } }).exports['matmulBlockedClaimPanels'] as (n: number, reps: number, pack: number, claim: number) => number);
      const m = new Float64Array(memory.buffer);
      const counters = new Int32Array(memory.buffer);
      const { a, b } = inputs(n);
      m.set(a, 0);
      m.set(b, n * n);
      m.fill(Number.NaN, 2 * n * n, 3 * n * n);
      const c = new Float64Array(memory.buffer, 2 * n * n * 8, n * n);
      // Panels 0 and 1 already claimed (by a worker that has not written them yet): this caller computes panels 2
      // and 3 (columns 8..14) three times over and leaves columns 0..7 alone.
      Atomics.store(counters, layout.claimByte / 4, 2);
      assert.equal(kernels[0]!(n, 3, layout.packAt[0]!, layout.claimByte), 7 * 3);
      for (let i = 0; i < n; i++) for (let j = 0; j < 8; j++) assert.ok(Number.isNaN(c[i * n + j]!), `C[${i}][${j}] untouched`);
      assert.equal(kernels[1]!(n, 1, layout.packAt[1]!, layout.claimByte), 0, 'every panel is claimed: a late caller computes none');
      // From zero: the first caller claims every panel, the second finds none; the product is whole.
      Atomics.store(counters, layout.claimByte / 4, 0);
      assert.equal(kernels[1]!(n, 2, layout.packAt[1]!, layout.claimByte), n * 2);
      assert.equal(kernels[0]!(n, 2, layout.packAt[0]!, layout.claimByte), 0);
      assertProduct(c, a, b, n, relaxed);
      // A memory whose maximum exceeds the module's declared one is refused: the page must use THREADS_MAX_PAGES.
      assert.throws(() => new WebAssembly.Instance(module, { env: { memory: new WebAssembly.Memory({ initial: 1, maximum: THREADS_MAX_PAGES + 1, shared: true }) } }), WebAssembly.LinkError);
    });

    it(`matmul-blocked-threads${suffix}.wasm on 3 threads at once (worker_threads, one shared memory): every panel computed by exactly one of them`, async () => {
      const module = new WebAssembly.Module(readFileSync(`${dir}matmul-blocked-threads${suffix}.wasm`));
      // n = 130: 33 panels (the last one 2 columns wide), many claims each, so the threads race for the counter.
      const n = 130;
      const threads = 3;
      const reps = 4;
      const layout = threadsLayout(n, threads);
      const memory = new WebAssembly.Memory({ initial: layout.pages, maximum: THREADS_MAX_PAGES, shared: true });
      const m = new Float64Array(memory.buffer);
      const { a, b } = inputs(n);
      m.set(a, 0);
      m.set(b, n * n);
      m.fill(Number.NaN, 2 * n * n, 3 * n * n);
      const source = `
        const { parentPort, workerData: { module, memory, n, reps, pack, claim } } = require('node:worker_threads');
        const kernel = new WebAssembly.Instance(module, { env: { memory } }).exports.matmulBlockedClaimPanels;
        parentPort.postMessage(kernel(n, reps, pack, claim));`;
      const columns = await Promise.all(
        layout.packAt.map(
          (pack) =>
            new Promise<number>((resolve, reject) => {
              const worker = new Worker(source, { eval: true, workerData: { module, memory, n, reps, pack, claim: layout.claimByte } });
              worker.once('message', (value: number) => void worker.terminate().then(() => resolve(value)));
              worker.once('error', reject);
            }),
        ),
      );
      // Each claimed panel counts its columns x reps: the sum is every column once, however the threads shared them.
      assert.equal(columns.reduce((x, y) => x + y, 0), n * reps, `columns per thread: ${columns}`);
      assert.ok(columns.every((x) => x % reps === 0), `columns per thread: ${columns}`);
      assert.ok(Atomics.load(new Int32Array(memory.buffer), layout.claimByte / 4) >= panelCount(n) + threads, 'each thread\'s last claim found no panel');
      assertProduct(new Float64Array(memory.buffer, 2 * n * n * 8, n * n), a, b, n, relaxed);
    });
  }

  it('the threaded rung cuts a product into whole 4-column panels, the last one holding the columns past a multiple of 4', () => {
    assert.equal(PANEL_COLUMNS, 4);
    // Reference: ceil(256 / 4) = 64; ceil(15 / 4) = 4 (12 columns in 3 panels, 3 in the last); ceil(3 / 4) = 1.
    assert.deepEqual([256, 128, 15, 8, 3, 1].map(panelCount), [64, 32, 4, 2, 1, 1]);
  });

  it('the shared memory holds A, B, C, the two counters and one packed panel per worker, none overlapping', () => {
    for (const [n, threads] of [[256, 2], [15, 3], [1, 1]] as const) {
      const { counterByte, claimByte, packAt, pages } = threadsLayout(n, threads);
      assert.equal(counterByte, 3 * n * n * 8);
      assert.equal(claimByte, counterByte + 4);
      assert.ok(packAt[0]! >= claimByte + 4 && packAt.every((at) => at % 64 === 0));
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

  it('the busiest worker\'s share of the columns, where the rung observed it, against an even split', () => {
    const r = run([19, 19], [0.4, 0.4]);
    // Reference: median(50, 56.25, 62.5) = 56.25 -> "56.3"; an even split on 2 workers is 50%.
    (r.cases[1]!.observations as Record<string, unknown>)['busiest-share'] = { unit: '%', description: '', samples: [62.5, 50, 56.25], p50: null, p99: null, max: null };
    assert.match(scalingLines(r)[0]!, /\(2%\)\. The busiest worker computed a median 56\.3% of the columns \(an even split: 50\.0%\)\. Each worker/);
    assert.doesNotMatch(scalingLines(run([19, 19], [0.4, 0.4]))[0]!, /busiest/);
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
