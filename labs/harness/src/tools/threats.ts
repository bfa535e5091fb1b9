/**
 * Threats to validity of one run, derived from its results: noise, drift over the run (frequency scaling, another
 * load), SMT, a shared node, more workers than cores, a cgroup quota below the CPU count, a quick run, uncommitted
 * code, a harness floor close to the times measured. Pure: the report lists what applies, with the evidence.
 */
import { caseLabel, formatLoadAverage, formatPercent, formatSignificant, formatTime, median, type Results } from '@parallel-course/core';

/** Relative change between the first and the second half of a case's samples above which we call it drift. */
const DRIFT_THRESHOLD = 0.05;

export interface Threat {
  /** A stable key, for the machine-readable report and for tests. */
  id: 'noise' | 'drift' | 'frequency-scaling' | 'smt' | 'shared-node' | 'busy-machine' | 'oversubscribed' | 'cgroup-quota' | 'quick-run' | 'uncommitted-code' | 'harness-floor';
  /** What applies to this run, with the numbers. */
  text: string;
}

/** Median of the second half over the median of the first half, minus 1: +0.08 = 8% slower later in the run. */
export function driftOf(samplesMs: readonly number[]): number | null {
  if (samplesMs.length < 6) return null;
  const half = Math.floor(samplesMs.length / 2);
  const first = median(samplesMs.slice(0, half));
  const second = median(samplesMs.slice(samplesMs.length - half));
  return first > 0 ? second / first - 1 : null;
}

/** At most `limit` items, the largest first, then "and N more". */
function listLargest<T>(items: T[], size: (t: T) => number, label: (t: T) => string, limit = 6): string {
  const sortedItems = [...items].sort((a, b) => Math.abs(size(b)) - Math.abs(size(a)));
  const shown = sortedItems.slice(0, limit).map(label).join(', ');
  return items.length > limit ? `${shown} and ${items.length - limit} more` : shown;
}

export function threatsToValidity(results: Results): Threat[] {
  const env = results.environment;
  const threats: Threat[] = [];
  const noisy = results.cases.filter((c) => c.summary.noisy);
  if (noisy.length > 0) {
    threats.push({
      id: 'noise',
      text: `${noisy.length} of ${results.cases.length} cases are noisy (robust spread, 1.4826 x MAD / median, above 10%): ${listLargest(noisy, (c) => c.summary.robustCv, (c) => `${caseLabel(c)} ${formatPercent(c.summary.robustCv)}`)}. Their intervals are wide; re-run on a quieter machine.`,
    });
  }
  const drifting = results.cases
    .map((c) => ({ c, drift: driftOf(c.samplesMs) }))
    .filter((d): d is { c: (typeof results.cases)[number]; drift: number } => d.drift !== null && Math.abs(d.drift) > DRIFT_THRESHOLD);
  if (drifting.length > 0) {
    threats.push({
      id: 'drift',
      text: `times drifted during the run (second half vs first half of the samples): ${listLargest(drifting, (d) => d.drift, (d) => `${caseLabel(d.c)} ${d.drift > 0 ? '+' : ''}${formatPercent(d.drift)}`)}. Frequency scaling (turbo, heat) or another load changed the machine's speed; the interleaved rounds spread it over every variant alike, but not away.`,
    });
  } else {
    threats.push({
      id: 'frequency-scaling',
      text: 'the harness does not read the CPU clock; no case drifted by more than 5% between the first and second half of its samples, so frequency scaling did not change much during this run. A fixed governor (cpupower frequency-set -g performance) removes it on a machine you control.',
    });
  }
  if (results.cases.some((c) => c.workers !== undefined && c.workers > 1)) {
    threats.push({
      id: 'smt',
      text: `${env.availableParallelism} CPUs were available, counted as logical CPUs: if two of them are hyper-threads (SMT) of one core, two workers share its execution units and the speedup from the second worker is lower than on two cores. lscpu's "Thread(s) per core" tells.`,
    });
  }
  const oversubscribed = results.cases.filter((c) => c.oversubscribed);
  if (oversubscribed.length > 0) {
    threats.push({
      id: 'oversubscribed',
      text: `${oversubscribed.map(caseLabel).join(', ')} used more workers than the ${env.availableParallelism} available CPUs: their speedup is limited by time-slicing, and the Amdahl fit leaves them out.`,
    });
  }
  if (results.cpus.quota !== null && results.cpus.quota < env.availableParallelism) {
    threats.push({
      id: 'cgroup-quota',
      text: `the cgroup CPU quota allows ${formatSignificant(results.cpus.quota)} CPUs but ${env.availableParallelism} were visible: workers beyond the quota are throttled, which the oversubscription flag does not catch.`,
    });
  }
  const load = env.loadAverage?.[0];
  if (load !== undefined && load > 0.5 * env.availableParallelism) {
    threats.push({
      id: 'busy-machine',
      text: `the 1-minute load average was ${formatLoadAverage([load])} on ${env.availableParallelism} CPUs when the run started: other work was running, and parallel cases lose the most from it. Re-run on a quiet machine before trusting a small difference.`,
    });
  }
  const slurm = env.slurm;
  if (Object.keys(slurm).length === 0) {
    threats.push({
      id: 'shared-node',
      text: `not run under a batch scheduler: other processes on ${env.hostname} may have competed for the CPUs (a shared VM or laptop). Variants were compared within one run, so they saw the same conditions.`,
    });
  } else if (slurm['SLURM_JOB_ID'] !== undefined && slurm['SLURM_CPUS_PER_TASK'] === undefined) {
    threats.push({
      id: 'shared-node',
      text: `Slurm job ${slurm['SLURM_JOB_ID']} did not set --cpus-per-task: the job may have shared the node's CPUs with other jobs (use --exclusive).`,
    });
  }
  if (results.quick) {
    threats.push({ id: 'quick-run', text: 'a --quick run: fewer samples and a smaller sweep than the full run, so wider intervals.' });
  }
  if (env.git.dirty === true) {
    threats.push({
      id: 'uncommitted-code',
      text: `the working tree had uncommitted changes: commit ${env.git.commit ?? 'unknown'} alone does not reproduce this code. Commit before the run you report.`,
    });
  }
  // The overhead is one per sample: a sample of several calls (callsPerSample) shares it between them.
  const fastest = Math.min(...results.cases.map((c) => c.summary.median * (c.callsPerSample ?? 1)));
  if (Number.isFinite(fastest) && fastest > 0 && results.harnessOverheadMs / fastest > 0.01) {
    threats.push({
      id: 'harness-floor',
      text: `the harness overhead per sample (${formatTime(results.harnessOverheadMs)}) is ${formatPercent(results.harnessOverheadMs / fastest)} of the shortest median sample (${formatTime(fastest)}, its calls together): give each sample more work.`,
    });
  }
  return threats;
}
