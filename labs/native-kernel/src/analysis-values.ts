/**
 * The native-kernel numbers episode 07 quotes, as data (issue 20: analysis/values.json): the ladder table (GFLOP/s and
 * fraction of the measured one-core peak of every sequential rung at n = 256, 512 and 1024), the blocked kernel
 * against -march=native and against the BLAS as ratios with paired intervals from the one run, the peaks, the
 * per-call overhead and crossover, the threads' efficiency and the triad's bandwidth. Pure functions of validated
 * results and the lab's own analysis (analysis.ts); nothing here measures.
 */
import type { AnalysisTable, MeasuredValue } from '@parallel-course/core';
import { caseRatioInterval, type CaseResult, formatScientific, type Results } from '@parallel-course/core';
import type { NativeKernelAnalysis, RungPoint } from './analysis.ts';
import { matmulFlop } from './matrices.ts';
import { productTolerance } from './tolerance.ts';

/** The sequential rungs of the ladder table, bottom to top. */
const LADDER_RUNGS = ['ts-naive', 'ts-typed', 'native-O0', 'native-O3', 'native-march', 'native-blocked', 'native-blas'] as const;
/** The sizes of the ladder table (issue 17): the ladder's largest size and the two large ones. */
const LADDER_SIZES = [256, 512, 1024] as const;

/** "native-march" -> "NativeMarch", "ts-naive" -> "TsNaive", "native-O3" -> "NativeO3": a key part. */
export function keyPart(variant: string): string {
  return variant.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

/** The sequential (single-thread, single-call) matrix case of a variant at a size, or null. */
function productCase(results: Results, variant: string, size: number): CaseResult | null {
  return results.cases.find((c) => c.variant === variant && Number(c.params.size) === size && c.params.threads === undefined && c.params.elements === undefined) ?? null;
}

/** Products per sample of a matrix case (a sample may repeat the product at small n). */
function productsPerSample(c: CaseResult): number {
  return c.workPerSample.amount / matmulFlop(Number(c.params.size));
}

/** A case's samples as ms per product. */
function perProductMs(c: CaseResult): number[] {
  const repeats = productsPerSample(c);
  return c.samplesMs.map((ms) => ms / repeats);
}

/**
 * How many times as fast `fast` ran as `slow`: median(slow) / median(fast) per product, with its 95% interval from
 * the harness (caseRatioInterval: resampled as the run's speedups are, paired by round when the two cases were measured
 * in the same rounds, as the large sizes' group is). Null when either case is missing.
 */
export function speedRatio(results: Results, fast: string, slow: string, size: number): { value: number; ci95: [number, number]; paired: boolean } | null {
  const f = productCase(results, fast, size);
  const s = productCase(results, slow, size);
  if (!f || !s) return null;
  const perProduct = (c: CaseResult) => ({ samplesMs: perProductMs(c), sampleRounds: c.sampleRounds });
  const { ci95, pairing } = caseRatioInterval(results, perProduct(s), perProduct(f), `ratio:${fast}:${slow}:${size}`);
  const paired = pairing === 'rounds';
  return { value: s.summary.median / productsPerSample(s) / (f.summary.median / productsPerSample(f)), ci95, paired };
}

/** The observation of a threads rung's 1-thread case (lab.ts measureCopies): ms to copy what matmulAsync copies per call. */
export const COPY_OBSERVATION = 'copy-inputs-and-output-ms';

/** The threads rungs and the synchronous call of the same kernel on one thread (their "fastest one-thread form"). */
export const SYNC_TWIN: Record<string, string> = { 'native-threads': 'native-march', 'native-blocked-threads': 'native-blocked' };

/** A threads rung's case at a size and thread count, or null. */
function threadedCase(results: Results, variant: string, size: number, threads: number): CaseResult | null {
  return results.cases.find((c) => c.variant === variant && Number(c.params.size) === size && Number(c.params.threads) === threads) ?? null;
}

const perProductMedian = (c: CaseResult) => c.summary.median / productsPerSample(c);

/** median(over) / median(under) per product, with its 95% interval (caseRatioInterval, resampled as speedRatio's). */
function perProductRatio(results: Results, over: CaseResult, under: CaseResult, key: string): { value: number; ci95: [number, number] } {
  const perProduct = (c: CaseResult) => ({ samplesMs: perProductMs(c), sampleRounds: c.sampleRounds });
  const { ci95 } = caseRatioInterval(results, perProduct(over), perProduct(under), key);
  return { value: perProductMedian(over) / perProductMedian(under), ci95 };
}

const gflopsValue = (p: RungPoint): MeasuredValue => ({
  value: p.gflops,
  unit: 'GFLOP/s',
  ci95: p.gflopsCi,
  what: `${p.variant} at n = ${p.size}, one thread: GFLOP/s at the median time per product (2n³ flop)`,
});

const fractionValue = (p: RungPoint, peak: number): MeasuredValue => ({
  value: (100 * p.gflops) / peak,
  unit: '%',
  ci95: [(100 * p.gflopsCi[0]) / peak, (100 * p.gflopsCi[1]) / peak],
  what: `${p.variant} at n = ${p.size}: GFLOP/s as a percentage of the one-core FMA peak the run measured (the interval is the time's; the peak's own spread is not in it)`,
});

/** The values and tables of a run (LabAnalysis.values and .tables). */
export function nativeKernelValues(results: Results, a: NativeKernelAnalysis): { values: Record<string, MeasuredValue>; tables: Record<string, AnalysisTable> } {
  const values: Record<string, MeasuredValue> = {};
  const sequential = (variant: string, size: number) => a.points.find((p) => p.variant === variant && p.size === size && p.threads === null);

  // The peaks the fractions are taken against.
  const peak1 = a.peaks?.gflops1 ?? null;
  if (a.peaks) {
    values.peakGflops1 = { value: a.peaks.gflops1, unit: 'GFLOP/s', ci95: null, what: 'one-core compute peak: the FMA probe (native/probe.cc, the widest vectors the CPU has), best of its samples' };
    values.peakGflopsAll = { value: a.peaks.gflopsAll, unit: 'GFLOP/s', ci95: null, what: 'all-cores compute peak: the FMA probe on every available CPU, best of its samples' };
  }

  if (a.roofs) {
    values.ridgeFlopPerByte1 = { value: a.roofs.gflops1 / a.roofs.gbps1, unit: '', ci95: null, what: 'the one-core ridge point of the roofline: peak GFLOP/s / bandwidth GB/s (the triad on one thread where measured), in flop per byte' };
  }

  // Every sequential rung at the ladder's sizes: GFLOP/s and, with a peak, its fraction.
  const sizes = LADDER_SIZES.filter((size) => LADDER_RUNGS.some((v) => sequential(v, size)));
  for (const variant of LADDER_RUNGS) {
    for (const size of sizes) {
      const p = sequential(variant, size);
      if (!p) continue;
      values[`gflops${keyPart(variant)}${size}`] = gflopsValue(p);
      if (peak1 !== null) values[`peakFraction${keyPart(variant)}${size}`] = fractionValue(p, peak1);
    }
  }
  const tables: Record<string, AnalysisTable> = {};
  if (sizes.length > 0) {
    const columns = ['rung', ...sizes.flatMap((size) => [`n = ${size}: GFLOP/s`, ...(peak1 !== null ? [`n = ${size}: % of peak`] : [])])];
    const rows = LADDER_RUNGS.filter((v) => sizes.some((size) => sequential(v, size))).map((variant) => [
      variant,
      ...sizes.flatMap((size) => {
        const p = sequential(variant, size);
        const cells: (string | MeasuredValue)[] = [p ? gflopsValue(p) : 'not measured'];
        if (peak1 !== null) cells.push(p ? fractionValue(p, peak1) : 'not measured');
        return cells;
      }),
    ]);
    tables.ladder = {
      caption: `The ladder on one thread: GFLOP/s per product (median, 95% interval)${peak1 !== null ? ' and its percentage of the one-core FMA peak measured in the same run' : ''}; not measured: the rung does not run at that size`,
      columns,
      rows,
    };
  }

  // The blocked kernel against the simple loop and the library, in the same run.
  for (const [other, name] of [['native-march', 'March'], ['native-blas', 'Blas']] as const) {
    for (const size of LADDER_SIZES) {
      const r = speedRatio(results, 'native-blocked', other, size);
      if (!r) continue;
      values[`blockedOver${name}${size}`] = {
        value: r.value,
        unit: 'x',
        ci95: r.ci95,
        what: `native-blocked's speed over ${other}'s at n = ${size}: median time of ${other} / median time of native-blocked, one run, 95% interval ${r.paired ? 'paired by round' : 'from independent resampling'}`,
      };
    }
  }

  // The boundary: per-call overhead at the smallest size, and where each rung starts beating ts-typed.
  for (const o of a.overheads) {
    values[`callNs${keyPart(o.variant)}${o.size}`] = { value: o.perCallNs, unit: 'ns', ci95: o.perCallNsCi, what: `${o.variant}: median time of one call at n = ${o.size}, nearly all of it the cost of the call` };
  }
  const tsSmall = a.overheads[0] ? sequential('ts-typed', a.overheads[0].size) : undefined;
  if (tsSmall) values[`callNsTsTyped${tsSmall.size}`] = { value: tsSmall.perCallNs, unit: 'ns', ci95: tsSmall.perCallNsCi, what: `ts-typed: median time of one call at n = ${tsSmall.size}, a plain JavaScript call` };
  for (const c of a.crossovers) {
    if (c.fromSize !== null) values[`crossover${keyPart(c.variant)}`] = { value: c.fromSize, unit: '', ci95: null, what: `the smallest n from which ${c.variant} is faster than ts-typed at every larger size swept (medians)` };
  }

  // Threads: efficiency against the same variant on one thread.
  for (const t of a.threads) {
    values[`efficiency${keyPart(t.variant)}${t.size}At${t.threads}`] = { value: t.efficiency, unit: '', ci95: t.efficiencyCi, what: `${t.variant} at n = ${t.size} on ${t.threads} threads: speedup over its own 1-thread case divided by ${t.threads}` };
    // And over the fastest one-thread form of the same work (issue 43): the threads rungs on one thread pay a hop to a
    // libuv thread, copies and a Promise that the synchronous call of the same kernel does not, so an efficiency over
    // that slower one-thread case flatters the second thread. Over whichever of the two is faster at this size.
    const syncVariant = SYNC_TWIN[t.variant];
    if (syncVariant !== undefined) {
      const threaded = threadedCase(results, t.variant, t.size, t.threads);
      const oneThread = threadedCase(results, t.variant, t.size, 1);
      const sync = productCase(results, syncVariant, t.size);
      if (threaded && oneThread && sync) {
        const fastest = perProductMedian(sync) <= perProductMedian(oneThread) ? sync : oneThread;
        const { value, ci95 } = perProductRatio(results, fastest, threaded, `ratio:${fastest.variant}:${threaded.variant}:${t.size}:${t.threads}`);
        const name = fastest === sync ? `${syncVariant} (one synchronous call)` : `${t.variant} on 1 thread`;
        values[`efficiencyOverFastest${keyPart(t.variant)}${t.size}At${t.threads}`] = {
          value: value / t.threads,
          unit: '',
          ci95: [ci95[0] / t.threads, ci95[1] / t.threads],
          what: `${t.variant} at n = ${t.size} on ${t.threads} threads: speedup over the fastest one-thread form of the same product, ${name}, divided by ${t.threads}`,
        };
      }
    }
  }
  // What the threads rungs' call path costs on one thread (issue 47): the 1-thread case's time per product over the
  // synchronous call of the same kernel at the same size. Above 1 by the serial work of the path (copying a and b in
  // and c out on the JavaScript thread, the hop to a libuv thread and back, the Promise), which no thread count removes.
  for (const [variant, syncVariant] of Object.entries(SYNC_TWIN)) {
    for (const oneThread of results.cases.filter((c) => c.variant === variant && Number(c.params.threads) === 1)) {
      const size = Number(oneThread.params.size);
      const sync = productCase(results, syncVariant, size);
      if (!sync) continue;
      const { value, ci95 } = perProductRatio(results, oneThread, sync, `ratio:${variant}:1:${syncVariant}:${size}`);
      values[`oneThreadOverSync${keyPart(variant)}${size}`] = {
        value,
        unit: 'x',
        ci95,
        what: `${variant} at n = ${size} on 1 thread: its time per product over ${syncVariant}'s (one synchronous call of the same kernel), one run; above 1 by the call path's serial work`,
      };
      // The copies alone (lab.ts measureCopies, after the samples): the part of that serial work that is memory traffic.
      const copies = oneThread.observations[COPY_OBSERVATION];
      if (copies?.p50 != null) {
        values[`copyMs${keyPart(variant)}${size}`] = { value: copies.p50, unit: 'ms', ci95: null, what: `copying a and b in and c out at n = ${size} (3 x n² doubles, Float64Array.prototype.set), median of ${copies.samples?.length ?? 'its'} samples: what ${variant} copies on the JavaScript thread per call` };
        values[`copyShare${keyPart(variant)}${size}`] = { value: (100 * copies.p50) / perProductMedian(sync), unit: '%', ci95: null, what: `those copies at n = ${size} as a percentage of one ${syncVariant} product (median): serial work per call that no thread count removes` };
      }
    }
  }

  // Memory bandwidth from the triad cases.
  if (a.bandwidth) {
    const b = a.bandwidth;
    if (b.oneThread) values.triadGbps1 = { value: b.oneThread.gbps, unit: 'GB/s', ci95: b.oneThread.gbpsCi, what: 'STREAM triad on one native thread: GB/s at the median time (24 bytes per element)' };
    values.triadGbpsBest = { value: b.best.gbps, unit: 'GB/s', ci95: b.best.gbpsCi, what: `STREAM triad, the best over 1..P threads (at ${b.best.threads}): the all-cores bandwidth roof` };
    values.triadSaturatesAt = { value: b.saturatesAt, unit: '', ci95: null, what: 'the fewest threads whose triad reaches 90% of the best GB/s' };
  }

  // The largest difference the check saw between the -march=native rung and the expected product at the ladder's top,
  // as a percentage of the bound it is checked against at that size (a tiny number reads better as a share of its
  // bound).
  const check = results.correctness.find((e) => e.variant === 'native-march' && Number(e.params.size) === 256 && e.params.threads === undefined);
  if (check?.maxAbsError != null) {
    values.maxErrorOfBoundNativeMarch256 = {
      value: (100 * check.maxAbsError) / productTolerance(256),
      unit: '%',
      ci95: null,
      what: `the largest |difference| between native-march and the reference on the check inputs of n = 256 (and 255), ${formatScientific(check.maxAbsError)}, as a percentage of the bound 2·γ(n)·n at n = 256`,
    };
  }
  return { values, tables };
}
