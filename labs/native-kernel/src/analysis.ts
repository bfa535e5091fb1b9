/**
 * What the native-kernel lab derives from a run's results.json beyond the harness's speedups: per-call time and
 * throughput of every rung at every size, where native starts to beat TypeScript (the crossover), the per-call
 * overhead of crossing into the addon, the parallel efficiency of the native threads (read from the harness's
 * speedups, not recomputed), and how close each rung comes to this machine's measured peaks (the roofline), whose
 * bandwidth roofs come from the triad cases (bandwidth-analysis.ts) where the run has them. Pure functions of
 * validated results.
 */
import type { CaseResult, Results, SpeedupEntry } from '@parallel-course/core';
import { bandwidthFrom, isTriadCase, type Bandwidth } from './bandwidth-analysis.ts';
import { matmulFlop } from './matrices.ts';
import { PEAK_OBSERVATIONS } from './peaks.ts';

export interface RungPoint {
  variant: string;
  size: number;
  threads: number | null;
  /** Median time of one product (one call), in ns, and its 95% order-statistic interval (the harness's, scaled to one product). */
  perCallNs: number;
  perCallNsCi: [number, number];
  /** Achieved Gflop/s at the median time, and the interval that follows from the time's interval. */
  gflops: number;
  gflopsCi: [number, number];
}

/** One case's point: times scaled from a sample (repeats products) to one product. */
export function rungPoint(c: CaseResult): RungPoint {
  const size = Number(c.params.size);
  const repeats = c.workPerSample.amount / matmulFlop(size);
  const toNs = (ms: number) => (ms * 1e6) / repeats;
  // Gflop/s = flop / (ms * 1e6); a longer time gives fewer Gflop/s, so the interval's ends swap.
  const toGflops = (ms: number) => c.workPerSample.amount / (ms * 1e6);
  return {
    variant: c.variant,
    size,
    threads: c.params.threads === undefined ? null : Number(c.params.threads),
    perCallNs: toNs(c.summary.median),
    perCallNsCi: [toNs(c.summary.ci95[0]), toNs(c.summary.ci95[1])],
    gflops: toGflops(c.summary.median),
    gflopsCi: [toGflops(c.summary.ci95[1]), toGflops(c.summary.ci95[0])],
  };
}

export interface Crossover {
  variant: string;
  /**
   * The smallest size from which this rung's median is faster than ts-typed's at that size and every larger size
   * in the sweep; null if it never is. Below it, calling into the addon costs more than it saves.
   */
  fromSize: number | null;
  /** The largest swept size at which ts-typed was still faster (null if none). */
  tsFasterUpTo: number | null;
}

/** Where each single-threaded native rung starts beating the typed-array TypeScript rung. */
export function crossovers(points: RungPoint[], baseline = 'ts-typed'): Crossover[] {
  const base = new Map(points.filter((p) => p.variant === baseline).map((p) => [p.size, p.perCallNs]));
  const variants = [...new Set(points.filter((p) => p.variant.startsWith('native-') && p.threads === null).map((p) => p.variant))];
  return variants.map((variant) => {
    const mine = points.filter((p) => p.variant === variant && base.has(p.size)).sort((x, y) => x.size - y.size);
    let fromSize: number | null = null;
    let tsFasterUpTo: number | null = null;
    for (const p of mine) {
      const faster = p.perCallNs < (base.get(p.size) as number);
      if (faster && fromSize === null) fromSize = p.size;
      if (!faster) {
        fromSize = null;
        tsFasterUpTo = p.size;
      }
    }
    return { variant, fromSize, tsFasterUpTo };
  });
}

export interface CallOverhead {
  variant: string;
  size: number;
  /** Median ns per call at the smallest size, where the arithmetic (2 n^3 flop) is a few ns: nearly all overhead. */
  perCallNs: number;
  perCallNsCi: [number, number];
  /** The same for ts-typed, a plain JavaScript call the JIT can inline: the floor to compare with. */
  tsPerCallNs: number | null;
}

/** The per-call overhead of each single-threaded native rung, read at the smallest size swept. */
function callOverheads(points: RungPoint[], baseline = 'ts-typed'): CallOverhead[] {
  const native = points.filter((p) => p.variant.startsWith('native-') && p.threads === null);
  const smallest = Math.min(...native.map((p) => p.size));
  return native
    .filter((p) => p.size === smallest)
    .map((p) => ({
      variant: p.variant,
      size: p.size,
      perCallNs: p.perCallNs,
      perCallNsCi: p.perCallNsCi,
      tsPerCallNs: points.find((q) => q.variant === baseline && q.size === smallest)?.perCallNs ?? null,
    }));
}

/** The matrix-product variants measured on 1..P threads, in the order the report lists them. */
const THREADED_VARIANTS = new Set(['native-threads', 'native-blocked-threads', 'native-blas-threads']);

export interface ThreadScaling {
  /** native-threads (kernel.cc's loop), native-blocked-threads or native-blas-threads. */
  variant: string;
  size: number;
  threads: number;
  /** median(threads = 1) / median(threads = t), with its 95% interval (from the harness). */
  speedup: number;
  speedupCi: [number, number];
  /** speedup / threads: 1 is perfect use of every thread; its 95% interval (from the harness). */
  efficiency: number;
  efficiencyCi: [number, number];
}

/**
 * Parallel efficiency of native-threads against itself at 1 thread (the same call path, copies included), as the
 * harness computed it: the lab declares `workers: threads`, so every native-threads speedup entry carries efficiency
 * over the 1-thread case of the same size (`efficiencyBasis: 'one-worker'`) and its interval, paired by round. The
 * speedup over 1 thread is efficiency x threads. Entries without a 1-thread case (basis 'baseline') are left out.
 */
export function threadScaling(speedups: readonly SpeedupEntry[]): ThreadScaling[] {
  const out: ThreadScaling[] = [];
  for (const s of speedups) {
    if (!THREADED_VARIANTS.has(s.variant) || s.efficiencyBasis !== 'one-worker') continue;
    const threads = s.workers;
    if (threads === undefined || threads === 1 || s.efficiency === undefined || s.efficiencyCi95 === undefined) continue;
    const [low, high] = s.efficiencyCi95;
    out.push({
      variant: s.variant,
      size: Number(s.params.size),
      threads,
      speedup: s.efficiency * threads,
      speedupCi: [low * threads, high * threads],
      efficiency: s.efficiency,
      efficiencyCi: [low, high],
    });
  }
  const order = [...THREADED_VARIANTS];
  return out.sort((x, y) => order.indexOf(x.variant) - order.indexOf(y.variant) || x.size - y.size || x.threads - y.threads);
}

export interface Peaks {
  /**
   * The best of the probes' samples: Gflop/s and GB/s (10^9 bytes/s). A peak is what the hardware can do; another
   * process, a frequency dip or a page fault only ever lowers a probe, so on a busy machine the median understated it
   * (a blocked kernel then read above 100% of "peak").
   */
  gflops1: number;
  gbps1: number;
  gflopsAll: number;
  gbpsAll: number;
}

/** The measured peaks, from the observations the headline case recorded; null if the run has none. */
export function peaksFrom(results: Results): Peaks | null {
  for (const c of results.cases) {
    const o = c.observations;
    const f1 = o[PEAK_OBSERVATIONS.flops1]?.max;
    const b1 = o[PEAK_OBSERVATIONS.bandwidth1]?.max;
    const fa = o[PEAK_OBSERVATIONS.flopsAll]?.max;
    const ba = o[PEAK_OBSERVATIONS.bandwidthAll]?.max;
    if (f1 != null && b1 != null && fa != null && ba != null) return { gflops1: f1, gbps1: b1, gflopsAll: fa, gbpsAll: ba };
  }
  return null;
}

/**
 * Arithmetic intensity of an n x n product in flop per byte of compulsory memory traffic: 2 n^3 flop over
 * 3 n^2 doubles (read A and B, write C once) = n / 12. Real traffic is higher when B does not fit in cache.
 */
export function intensity(n: number): number {
  return matmulFlop(n) / (3 * n * n * 8);
}

export interface RooflinePoint extends RungPoint {
  intensity: number;
  /** min(peak flop/s, intensity * peak bandwidth) for the threads this point used. */
  attainableGflops: number;
  /** gflops / attainableGflops: how close to whichever roof is lower at this intensity. */
  fractionOfPeak: number;
  /**
   * Which roof is lower at this intensity: 'memory' left of the ridge point (peak flop/s / bandwidth), where only more
   * bandwidth, not more cores or better arithmetic, would raise the roof; 'compute' right of it.
   */
  bound: 'memory' | 'compute';
  /** Compulsory traffic rate, GB/s: gflops / intensity (3 n^2 doubles per product; real traffic is higher). */
  gbps: number;
  /** gbps / the bandwidth roof of the threads this point used: the memory side of the roofline. */
  fractionOfBandwidth: number;
}

/** Places every point under the roofline of the threads it used (1 thread, or all of them). */
export function roofline(points: RungPoint[], peaks: Peaks): RooflinePoint[] {
  return points.map((p) => {
    const all = p.threads !== null && p.threads > 1;
    const ai = intensity(p.size);
    const flopRoof = all ? peaks.gflopsAll : peaks.gflops1;
    const bandwidthRoof = all ? peaks.gbpsAll : peaks.gbps1;
    const attainable = Math.min(flopRoof, ai * bandwidthRoof);
    const gbps = p.gflops / ai;
    return {
      ...p,
      intensity: ai,
      attainableGflops: attainable,
      fractionOfPeak: p.gflops / attainable,
      bound: ai * bandwidthRoof < flopRoof ? 'memory' : 'compute',
      gbps,
      fractionOfBandwidth: gbps / bandwidthRoof,
    };
  });
}

/**
 * The roofs the roofline is drawn with: the probes' compute peaks, and the bandwidth measured by the triad cases
 * where the run has them (one thread: the 1-thread triad; all threads: the best triad over every thread count),
 * else the probe's own bandwidth. Null without the compute probes.
 */
export function roofsFrom(peaks: Peaks | null, bandwidth: Bandwidth | null): Peaks | null {
  if (!peaks) return null;
  if (!bandwidth) return peaks;
  return { ...peaks, gbps1: bandwidth.oneThread?.gbps ?? peaks.gbps1, gbpsAll: bandwidth.best.gbps };
}

/**
 * The points a roofline summary shows: every rung at the top of the single-threaded ladder (the largest size every
 * sequential native rung ran at), plus the native rungs at each size they ran at beyond it: the top rungs
 * (native-march, native-blocked, native-blas) at the large sizes and the native threads.
 */
export function rooflineSummary(points: RooflinePoint[]): RooflinePoint[] {
  const sequentialNative = points.filter((p) => p.variant.startsWith('native-') && p.threads === null);
  const sizesOf = (variant: string) => new Set(sequentialNative.filter((p) => p.variant === variant).map((p) => p.size));
  const variants = [...new Set(sequentialNative.map((p) => p.variant))];
  const common = [...sizesOf(variants[0] ?? '')].filter((size) => variants.every((v) => sizesOf(v).has(size)));
  const ladderTop = common.length > 0 ? Math.max(...common) : Math.max(...points.map((p) => p.size));
  return points.filter((p) => p.size === ladderTop || (p.variant.startsWith('native-') && p.size > ladderTop));
}

export interface NativeKernelAnalysis {
  /** The matrix-product cases (the triad's are in `bandwidth`). */
  points: RungPoint[];
  crossovers: Crossover[];
  overheads: CallOverhead[];
  threads: ThreadScaling[];
  /** The probes' best samples, as measured. */
  peaks: Peaks | null;
  /** The triad's GB/s per thread count and where it saturates; null when the run has no triad cases. */
  bandwidth: Bandwidth | null;
  /** The roofs the roofline uses: `peaks` with the triad's bandwidth where measured (roofsFrom). */
  roofs: Peaks | null;
  roofline: RooflinePoint[];
}

export function nativeKernelAnalysis(results: Results): NativeKernelAnalysis {
  const points = results.cases.filter((c) => !isTriadCase(c)).map(rungPoint);
  const peaks = peaksFrom(results);
  const bandwidth = bandwidthFrom(results);
  const roofs = roofsFrom(peaks, bandwidth);
  return {
    points,
    crossovers: crossovers(points),
    overheads: callOverheads(points),
    threads: threadScaling(results.speedups),
    peaks,
    bandwidth,
    roofs,
    roofline: roofs ? roofline(points, roofs) : [],
  };
}
