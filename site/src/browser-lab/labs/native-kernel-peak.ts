/**
 * Episode 07's in-page roof: the WebAssembly SIMD peak of this browser on this machine, measured by a probe
 * (simdPeak in ../wasm/simd-blocked.as.ts: independent f64x2 multiply-adds, nothing loaded or stored), and each rung's
 * GFLOP/s as a percentage of it, as the Node lab sets its rungs against its FMA probe. The probe uses the arithmetic
 * the blocked rungs use: relaxed SIMD's fused multiply-add where the browser validates a module with one
 * (hasRelaxedSimd), a multiply then an add otherwise; the page says which. Pure apart from the clock: no DOM, no
 * bundler imports, so the unit tests run it in Node on the committed .wasm.
 */
import { formatShare, formatSignificant, type RawObservation, type Results } from '../core-adapter.ts';

/** A minimal module that uses one SIMD instruction (i8x16.popcnt): WebAssembly.validate says whether SIMD is there. */
const SIMD_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

/**
 * A minimal module whose one function returns f64x2.relaxed_madd of three splats (opcode 0xfd 0x107, LEB128 253 135
 * 2): a browser without relaxed SIMD refuses it.
 */
export const RELAXED_SIMD_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 19, 1, 17, 0, 65, 0, 253, 15, 65, 0, 253, 15, 65, 0, 253, 15, 253, 135, 2, 11]);

function validates(bytes: Uint8Array<ArrayBuffer>): boolean {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(bytes);
  } catch {
    return false;
  }
}

export function hasWasmSimd(): boolean {
  return validates(SIMD_MODULE);
}

/** Relaxed SIMD (Chrome 114+, Firefox behind a flag today): the fused multiply-add the blocked rungs and the probe use. */
export function hasRelaxedSimd(): boolean {
  return hasWasmSimd() && validates(RELAXED_SIMD_MODULE);
}

/** How the blocked rungs and the probe multiply and add, in words, for the page's notes and the probe's description. */
export function arithmeticOf(relaxed: boolean): string {
  return relaxed
    ? 'relaxed SIMD fused multiply-add (f64x2.relaxed_madd: one instruction, fused where the CPU has FMA)'
    : 'a multiply then an add (f64x2.mul, f64x2.add: this browser has no relaxed SIMD, WebAssembly.validate refused a relaxed_madd module)';
}

/** The observation the probe's GFLOP/s are recorded under, on the headline case. */
export const PEAK_OBSERVATION = 'wasm-simd-peak';

/** What the probe's module exports (matmul-blocked.as.ts). */
export interface PeakExports {
  simdPeak(steps: number, x: number, y: number): number;
  PEAK_FLOP_PER_STEP: WebAssembly.Global;
}

export interface PeakOptions {
  /** Calls of the probe; the best is the peak (a pause or another process only ever lowers a call's rate). */
  samples: number;
  /** Time one call is sized to, in ms (the steps double from 2^12 until a call takes this long). */
  targetMs: number;
  /**
   * Time spent calling the probe before it is sized, in ms (in slices of about a tenth of it, yielding between): V8
   * first runs a WebAssembly function with its baseline compiler (Liftoff), and only a later call runs the optimised
   * code (TurboFan), compiled in the background once the function has run enough. In Chromium on the course's
   * machine the probe's first calls ran at a sixth of its rate; a probe sized and sampled on them reads low.
   */
  warmUpMs?: number;
  now?: () => number;
  /** Between calls: lets the page paint (a macrotask) and Stop act. */
  between?: () => Promise<void>;
}

/** GFLOP/s of each call of the probe, after sizing a call to `targetMs`. */
export async function measureSimdPeak(exports: PeakExports, options: PeakOptions): Promise<number[]> {
  const { samples, targetMs, warmUpMs = 0, now = () => performance.now(), between = async () => {} } = options;
  const flopPerStep = Number(exports.PEAK_FLOP_PER_STEP.value);
  // x just under 1, y small: the accumulators stay near y / (1 - x) = 1 (simdPeak's comment).
  const call = (steps: number): number => {
    const t0 = now();
    const sum = exports.simdPeak(steps, 0.999999, 1e-6);
    const ms = now() - t0;
    if (!Number.isFinite(sum)) throw new Error(`the SIMD peak probe returned ${sum}, not a finite sum: its arithmetic is wrong`);
    return ms;
  };
  for (const end = now() + warmUpMs; now() < end; ) {
    const slice = Math.min(now() + warmUpMs / 10, end);
    while (now() < slice) call(1 << 14);
    await between();
  }
  let steps = 1 << 12;
  while (steps < 1 << 30 && call(steps) < targetMs) {
    steps *= 2;
    await between();
  }
  const rates: number[] = [];
  for (let s = 0; s < samples; s++) {
    await between();
    rates.push((steps * flopPerStep) / call(steps) / 1e6);
  }
  return rates;
}

/** The probe's observation: its unit, what it measured (with the arithmetic), and the GFLOP/s of each call. */
export function peakObservation(rates: number[], relaxed: boolean): RawObservation {
  return {
    unit: 'GFLOP/s',
    description: `WebAssembly SIMD peak probe on the page's main thread: 12 independent f64x2 multiply-adds per step, nothing loaded or stored, with ${relaxed ? 'relaxed SIMD fused multiply-add (f64x2.relaxed_madd)' : 'a multiply then an add (no relaxed SIMD)'}; GFLOP/s of each call, the best is the peak`,
    samples: rates,
  };
}

/** GFLOP/s of a native-kernel case's median sample: one product of n x n matrices is 2 n^3 flop. */
function caseGflops(c: Results['cases'][number]): number {
  return (2 * Number(c.params['n']) ** 3 * c.workPerSample.amount) / c.summary.median / 1e6;
}

/**
 * The probe and each rung as a percentage of it (a rung on W workers: of W x the one-thread probe), or why there is
 * no such line (no probe in the run). One line per rung, in the order of the run's cases.
 */
export function peakLines(results: Results): string[] {
  const probed = results.cases.find((c) => c.observations[PEAK_OBSERVATION]?.max != null);
  const o = probed?.observations[PEAK_OBSERVATION];
  if (!o || !(o.max! > 0)) return ['No WebAssembly SIMD peak was probed in this run (it runs after the samples when the headline rung was timed): no rung is set against it.'];
  const peak = o.max!;
  const lines = [`WebAssembly SIMD peak (probe, best of ${o.samples.length} on the page's main thread, ${/fused/.test(o.description) ? 'fused multiply-add' : 'multiply then add'}): ${formatSignificant(peak)} GFLOP/s. Each rung's median as a share of it (on W workers: of W x the probe):`];
  for (const c of results.cases) {
    const workers = c.workers ?? 1;
    const gflops = caseGflops(c);
    lines.push(`${c.variant} n=${c.params['n']}${c.workers !== undefined ? ` on ${workers} worker${workers > 1 ? 's' : ''}` : ''}: ${formatSignificant(gflops)} GFLOP/s, ${formatShare(gflops, workers * peak, 0)} of the wasm probe${workers > 1 ? ` x ${workers}` : ''}`);
  }
  return lines;
}
