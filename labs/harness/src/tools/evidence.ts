/**
 * Evidence sentences a report builds from numbers: where the baseline's time goes and what the scaling curve says.
 * Pure functions of Results; the learner's own interpretation goes in notes.md.
 */
import { caseLabel, formatSignificant, formatThroughput, formatTimeWithInterval, type Results, scalingNotes } from '@parallel-course/core';
import { speedupsByWorkers } from '../report/select.ts';

/** The baseline cases (the variant every speedup is relative to) with their absolute times. */
function baselineCases(results: Results): Results['cases'] {
  return results.cases.filter((c) => c.variant === results.baseline);
}

/** One sentence per baseline case: its median time, interval and throughput; then its observations. */
export function baselineEvidence(results: Results): string[] {
  return baselineCases(results).flatMap((c) => [
    `${caseLabel(c)} (baseline): ${formatTimeWithInterval(c.summary.median, c.summary.ci95)} per sample of ${formatSignificant(c.workPerSample.amount)} ${c.workPerSample.unit}, ${formatThroughput(c.workPerSample, c.summary.median)}, n = ${c.summary.n}.`,
    ...Object.entries(c.observations)
      .filter(([, o]) => o.p50 !== null)
      .map(([name, o]) => `${caseLabel(c)} ${name} (${o.description}): p50 ${formatSignificant(o.p50 ?? 0)} ${o.unit}, p99 ${formatSignificant(o.p99 ?? 0)} ${o.unit}.`),
  ]);
}

/**
 * What the Karp-Flatt values say about each worker sweep: a serial fraction that stays flat as workers grow is a
 * fixed serial part (Amdahl); one that grows is overhead that grows with the workers (hand-off, contention).
 */
export function scalingEvidence(results: Results): string[] {
  const out: string[] = [];
  for (const [variant, entries] of speedupsByWorkers(results)) {
    const kf = entries.filter((e) => e.karpFlatt !== undefined && !e.oversubscribed);
    const fit = results.amdahl.find((a) => a.variant === variant);
    if (fit) {
      out.push(
        `${variant}: the Amdahl fit gives a serial fraction of ${formatSignificant(fit.serialFraction, 2)} (at most ${fit.maxSpeedup === null ? 'unbounded' : `${formatSignificant(fit.maxSpeedup)}x, extrapolated, not measured,`} with any number of workers; rmse ${formatSignificant(fit.rmse, 2)} over ${fit.points} points).`,
      );
    }
    if (kf.length >= 2) {
      const first = kf[0]!;
      const last = kf[kf.length - 1]!;
      const rising = (last.karpFlatt as number) - (first.karpFlatt as number) > 0.05;
      out.push(
        `${variant}: the Karp-Flatt serial fraction goes from ${formatSignificant(first.karpFlatt as number, 2)} at ${first.workers} workers to ${formatSignificant(last.karpFlatt as number, 2)} at ${last.workers}: ${rising ? 'it grows with the workers, so overhead (hand-off, contention) grows too' : 'roughly flat, as for a fixed serial part'}.`,
      );
    } else if (kf.length === 1) {
      const only = kf[0]!;
      out.push(`${variant}: Karp-Flatt serial fraction ${formatSignificant(only.karpFlatt as number, 2)} at ${only.workers} workers.`);
    }
  }
  // Efficiency above 1, negative Karp-Flatt values, sweeps too short to fit, extrapolated maxima (issue 43).
  out.push(...scalingNotes({ speedups: results.speedups, amdahl: results.amdahl, availableParallelism: results.cpus.available }).filter((n) => !/extrapolated, not measured: the sweep/.test(n)));
  return out;
}
