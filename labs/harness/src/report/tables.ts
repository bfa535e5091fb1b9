/**
 * The report's tables as plain data (headers + rows of text), shared by the HTML and Markdown reporters so both
 * print the same sections with the same numbers. Each output format escapes the cells its own way.
 */
import { caseLabel, correctnessDetail, correctnessStatus, formatBytes, formatLoadAverage, formatPercent, formatSignificant, formatSpeedup, formatThroughput, formatTime, formatTimeWithInterval, type Results } from '@parallel-course/core';
import type { DataTable } from './chart-spec.ts';
import { baselineVariants, findCase } from './select.ts';

/** Flags of a case: "noisy (spread 15%)" (robust spread, see NOISY_TEXT) and/or "oversubscribed". */
function flags(noisy: boolean, spread: number, oversubscribed: boolean): string {
  const list: string[] = [];
  if (noisy) list.push(`noisy (spread ${formatPercent(spread)})`);
  if (oversubscribed) list.push('oversubscribed');
  return list.join(', ');
}

/** One row per checked case: pass / FAIL / not implemented, with the full reason. */
export function correctnessTable(results: Results): DataTable {
  return {
    headers: ['case', 'result', 'comparator', 'inputs checked', 'reason'],
    rows: results.correctness.map((entry) => [
      caseLabel(entry),
      correctnessStatus(entry),
      entry.comparator,
      String(entry.inputsChecked),
      correctnessDetail(entry),
    ]),
  };
}

/** One row per measured case: median time with its interval, throughput at the median, spread and flags. */
export function timesTable(results: Results): DataTable {
  const baselines = new Set(baselineVariants(results));
  return {
    headers: ['case', 'median [95% CI]', 'throughput', 'n', 'spread', 'outliers (low / high)', 'flags'],
    rows: results.cases.map((c) => {
      const s = c.summary;
      const o = s.outliers;
      return [
        baselines.has(c.variant) ? `${caseLabel(c)} [baseline]` : caseLabel(c),
        formatTimeWithInterval(s.median, s.ci95),
        formatThroughput(c.workPerSample, s.median),
        String(s.n),
        formatPercent(s.robustCv),
        `${o.lowSevere + o.lowMild} / ${o.highMild + o.highSevere}`,
        flags(s.noisy, s.robustCv, c.oversubscribed),
      ];
    }),
  };
}

/** One row per speedup: the ratio with its 95% interval, efficiency and Karp-Flatt where the case has workers. */
export function speedupsTable(results: Results): DataTable {
  return {
    headers: ['case', 'vs', 'speedup [95% CI]', 'efficiency', 'Karp-Flatt serial fraction', 'flags'],
    rows: results.speedups.map((s) => {
      const measured = findCase(results, s.variant, s.params);
      return [
        caseLabel(s),
        s.baseline,
        formatSpeedup(s),
        s.efficiency === undefined ? '' : formatPercent(s.efficiency),
        s.karpFlatt === undefined ? '' : formatSignificant(s.karpFlatt, 2),
        flags(measured?.summary.noisy ?? false, measured?.summary.robustCv ?? 0, s.oversubscribed),
      ];
    }),
  };
}

/** One row per Amdahl fit: the serial fraction, the speedup limit it implies and how well it fits. */
export function amdahlTable(results: Results): DataTable {
  return {
    headers: ['variant', 'swept parameter', 'serial fraction', 'max speedup (1 / f, extrapolated, not measured)', 'rmse (speedup)', 'points'],
    rows: results.amdahl.map((fit) => [
      fit.variant,
      fit.param,
      formatSignificant(fit.serialFraction, 2),
      fit.maxSpeedup === null ? 'unbounded' : formatSignificant(fit.maxSpeedup),
      formatSignificant(fit.rmse, 2),
      String(fit.points),
    ]),
  };
}

/** One row per (case, observation): p50, p99 and max in the observation's own unit. */
export function observationsTable(results: Results): DataTable {
  const rows = results.cases.flatMap((c) =>
    Object.entries(c.observations).map(([name, o]) => {
      const value = (v: number | null) => (v === null ? '' : `${formatSignificant(v)} ${o.unit}`);
      return [caseLabel(c), name, value(o.p50), value(o.p99), value(o.max), String(o.samples.length), o.description];
    }),
  );
  return { headers: ['case', 'observation', 'p50', 'p99', 'max', 'n', 'what it measures'], rows };
}

/** The machine and the run settings, one property per row. */
export function environmentTable(results: Results): DataTable {
  const env = results.environment;
  const rows: string[][] = [
    ['CPU', env.cpuModel],
    ['CPUs (logical / available to this process)', `${env.cpuCount} / ${env.availableParallelism}`],
    ['cgroup CPU quota', results.cpus.quota === null ? 'none' : formatSignificant(results.cpus.quota)],
    ['CPU affinity', env.cpuAffinity ?? 'unknown'],
    ['memory', formatBytes(env.totalMemoryBytes)],
    ['GPUs', env.gpus.length === 0 ? 'none' : env.gpus.map((g) => `${g.name}${g.memoryMiB === null ? '' : ` (${g.memoryMiB} MiB)`}`).join(', ')],
    // WebGPU adapters, each said real or emulated: an emulated adapter's times are the CPU's (webgpu-adapters.ts).
    ...(env.webgpuAdapters?.length
      ? [['WebGPU adapters', env.webgpuAdapters.map((a) => `${a.vendor} (${a.backend}, ${a.emulated === true ? 'emulated on the CPU' : a.emulated === false ? 'real GPU' : 'real or emulated: unknown'})`).join(', ')] as [string, string]]
      : []),
    ['Node.js / V8 / libuv', `${env.node} / ${env.v8} / ${env.uv}`],
    ['UV_THREADPOOL_SIZE', env.uvThreadpoolSize ?? 'unset (libuv default 4)'],
    ['OS', `${env.platform} ${env.arch} ${env.osRelease}`],
    ['host', env.hostname],
    ['load average at start (1 / 5 / 15 min)', env.loadAverage ? formatLoadAverage(env.loadAverage) : 'not recorded'],
    ['git commit', env.git.commit === null ? 'unknown' : `${env.git.commit}${env.git.dirty ? ' (uncommitted changes)' : ''}`],
    ...Object.entries(env.slurm).map(([key, value]) => [key, value]),
    ['implementation', results.impl],
    ['run', `${results.startedAt} to ${results.finishedAt}${results.quick ? ' (quick run)' : ''}`],
    ['seed / bootstrap resamples', `${results.seed} / ${results.bootstrapResamples}`],
    ['harness overhead per sample', formatTime(results.harnessOverheadMs)],
  ];
  return { headers: ['property', 'value'], rows };
}
