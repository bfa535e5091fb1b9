/**
 * Why the threaded WebAssembly rung scales as it does, from its own observations (native-kernel-threads.ts): the
 * hand-off (a sample's wall time less its slowest worker's compute time: messages, wake-ups, replies, and a worker
 * waiting for a CPU before it starts), each worker's rate over its own compute time, and the share of the columns
 * the busiest worker claimed. When the efficiency on P
 * workers is low, these say which lost it: workers that each computed slower than a worker with a CPU to itself (they
 * shared CPUs, with one another or with other work on the machine), or a hand-off that is a large share of the
 * sample. Pure: no DOM, no bundler imports (unit-tested in Node).
 */
import { formatShare, formatSignificant, median, sameCase, type Results } from '../core-adapter.ts';

/** A worker's median rate at this share of the best 1-worker rate or more: it had a CPU to itself. */
const OWN_CPU_SHARE = 0.85;
/** A hand-off above this share of the sample is what the efficiency lost. */
const HANDOFF_SHARE = 0.1;

/** One line per threaded case on more than one worker: efficiency, hand-off, worker rates, and which one lost it. */
export function scalingLines(results: Results, variant = 'wasm-blocked-threads'): string[] {
  const cases = results.cases.filter((c) => c.variant === variant);
  // The best rate one worker reached alone: what a worker computes with a CPU to itself (another process or a pause
  // only ever lowers a rate, so the best, not the median, is the machine's).
  const oneRates = cases.find((c) => c.workers === 1)?.observations['worker-gflops']?.samples ?? [];
  const best = oneRates.length > 0 ? Math.max(...oneRates) : Number.NaN;
  const lines: string[] = [];
  for (const c of cases.filter((x) => (x.workers ?? 1) > 1)) {
    const s = results.speedups.find((e) => sameCase(e, c));
    const handoff = c.observations['handoff']?.samples ?? [];
    const rates = c.observations['worker-gflops']?.samples ?? [];
    if (!s || s.efficiency === undefined || handoff.length === 0 || rates.length === 0) continue;
    const rate = median(rates);
    const handoffMs = median(handoff);
    const handoffShare = handoffMs / c.summary.median;
    const [low, high] = s.efficiencyCi95 ?? [Number.NaN, Number.NaN];
    let line =
      `${c.variant} on ${c.workers} workers: efficiency ${formatSignificant(s.efficiency)} [${formatSignificant(low)}, ${formatSignificant(high)}] over ${s.efficiencyBasis === 'one-worker' ? '1 worker' : s.baseline}. ` +
      `Hand-off: median ${formatSignificant(handoffMs)} ms of a ${formatSignificant(c.summary.median)} ms sample (${formatShare(handoffMs, c.summary.median, 0)}).`;
    // The workers claim panels from one counter: the busiest one's share says how unevenly the CPUs were theirs.
    const busiest = c.observations['busiest-share']?.samples ?? [];
    if (busiest.length > 0) line += ` The busiest worker computed a median ${formatSignificant(median(busiest))}% of the columns (an even split: ${formatSignificant(100 / (c.workers ?? 1))}%).`;
    if (Number.isFinite(best)) {
      const share = rate / best;
      line += ` Each worker computed at a median ${formatSignificant(rate)} GFLOP/s in its own time, ${formatShare(rate, best, 0)} of the best one worker reached alone (${formatSignificant(best)}): `;
      if (share < OWN_CPU_SHARE) line += 'the workers did not each have a CPU for most of the run: they shared CPUs, with one another or with other work on this machine (its load), and that, more than the hand-off, is what the efficiency lost.';
      else if (handoffShare > HANDOFF_SHARE) line += 'each worker had a CPU, and the hand-off (messages, wake-ups, a worker waiting to start) is what the efficiency lost: give each sample more work.';
      else line += 'each worker had a CPU to itself and the hand-off is small.';
    }
    lines.push(line);
  }
  return lines;
}
