/**
 * The in-page matrix product (WebAssembly, in this browser) beside the Node lab's native addon rungs (issue 28): both
 * native-kernel runs a learner opened in the results viewer, as GFLOP/s per rung at a matrix size both measured.
 * Two runs, two runtimes: only throughput (flop per second of each run's own median sample, with the 95 % interval
 * of that median) compares across them, never a ratio of times with an interval, because their samples were not
 * taken in the same rounds. Pure, no DOM.
 */
import { formatSignificant, type Results } from '@parallel-course/core';

export interface RungRate {
  rung: string;
  runtime: 'browser' | 'node';
  n: number;
  /** The threads or Web Workers the rung ran on, where it is a parallel rung. */
  threads: number | null;
  gflops: number;
  /** GFLOP/s at the ends of the median's 95 % interval (a longer time is a lower rate). */
  low: number;
  high: number;
}

export type Beside =
  | { ok: true; n: number; rows: RungRate[]; browser: Results; node: Results }
  | { ok: false; reason: string };

function runtimeOf(results: Results): 'browser' | 'node' {
  return results.runtime === 'browser' ? 'browser' : 'node';
}

/** Every matrix-product case of a native-kernel run as GFLOP/s; the triad (bytes, not flop) is left out. */
export function matmulRates(results: Results): RungRate[] {
  const runtime = runtimeOf(results);
  const rates: RungRate[] = [];
  for (const c of results.cases) {
    // Node names the size `size`, the page `n`; a sample's work is in flop (Node) or in products of 2 n^3 flop (page).
    const n = Number(c.params['size'] ?? c.params['n']);
    if (!Number.isInteger(n) || n < 1 || c.params['elements'] !== undefined) continue;
    const flop = c.workPerSample.unit === 'flop' ? c.workPerSample.amount : 2 * n ** 3 * c.workPerSample.amount;
    const [fast, slow] = c.summary.ci95;
    if (!(c.summary.median > 0) || !(fast > 0) || !(slow > 0)) continue;
    const threads = typeof c.params['threads'] === 'number' ? c.params['threads'] : null;
    rates.push({ rung: c.variant, runtime, n, threads, gflops: flop / c.summary.median / 1e6, low: flop / slow / 1e6, high: flop / fast / 1e6 });
  }
  return rates;
}

/**
 * One browser run and one Node run of native-kernel, side by side at the largest size both measured; or why not
 * (not the lab, two runs of one runtime, no size in common: then which sizes each has, and the run that has it).
 */
export function wasmBesideNative(a: Results, b: Results): Beside {
  if (a.lab !== 'native-kernel' || b.lab !== 'native-kernel') return { ok: false, reason: 'both runs must be of the native-kernel lab' };
  if (runtimeOf(a) === runtimeOf(b)) return { ok: false, reason: `both runs are ${runtimeOf(a) === 'browser' ? 'in-page (browser)' : 'Node'} runs: open one of each` };
  const [browser, node] = runtimeOf(a) === 'browser' ? [a, b] : [b, a];
  const browserRates = matmulRates(browser);
  const nodeRates = matmulRates(node);
  const sizes = (rates: RungRate[]) => [...new Set(rates.map((r) => r.n))].sort((x, y) => x - y);
  const shared = sizes(browserRates).filter((n) => sizes(nodeRates).includes(n));
  const n = shared.at(-1);
  if (n === undefined) {
    return {
      ok: false,
      reason:
        `no matrix size in common: the page measured n = ${sizes(browserRates).join(', ')}, the Node run n = ${sizes(nodeRates).join(', ')}. ` +
        'A full Node run (npm run lab -- native-kernel) measures n = 128 and 256, the sizes of the in-page quick and full runs.',
    };
  }
  const rows = [...nodeRates, ...browserRates].filter((r) => r.n === n).sort((x, y) => y.gflops - x.gflops);
  return { ok: true, n, rows, browser, node };
}

/** The table's cells: rung, where it ran, threads, GFLOP/s [95 % interval]. */
export function besideCells(rows: readonly RungRate[]): string[][] {
  return rows.map((r) => [
    r.rung,
    r.runtime === 'browser' ? 'this browser (WebAssembly / JavaScript)' : 'Node (native addon / TypeScript)',
    r.threads === null ? '1' : String(r.threads),
    `${formatSignificant(r.gflops)} [${formatSignificant(r.low)}, ${formatSignificant(r.high)}]`,
  ]);
}
