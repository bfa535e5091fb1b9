/**
 * The native-kernel analysis as Markdown: the tables the episode quotes, from one results.json. Every number goes
 * through the core's one formatter family (three significant digits, times in the unit that fits, intervals in
 * brackets in their value's unit), as in the terminal report and on the site.
 */
import { formatBracketInterval, formatPercent, formatRatio, formatShare, formatSignificant, formatSpeedup, formatTime, formatTimeWithInterval, type MeasuredValue, type Results } from '@parallel-course/core';
import type { LabAnalysis } from '@parallel-course/harness';
import { nativeKernelAnalysis, rooflineSummary, type NativeKernelAnalysis } from './analysis.ts';
import { keyPart, nativeKernelValues, SYNC_TWIN } from './analysis-values.ts';
import { saturationSentence, type Bandwidth } from './bandwidth-analysis.ts';
import { rooflineSvg } from './roofline-svg.ts';
import { describeTriadSize } from './triad.ts';

export function formatAnalysis(results: Results, a: NativeKernelAnalysis, serialPath: string[] = []): string {
  const env = results.environment;
  const lines: string[] = [];
  lines.push(`# Native kernel: analysis of ${results.impl} run ${results.startedAt}`);
  lines.push('');
  lines.push(`Machine: ${env.cpuModel}, ${env.cpuCount} CPUs (available parallelism ${env.availableParallelism}), ${env.platform} ${env.osRelease}, Node ${env.node}. Command: \`${results.command}\`${results.quick ? ' (quick run: few samples)' : ''}.`);
  lines.push('');
  lines.push('## Time per product (median, 95% CI) and Gflop/s');
  lines.push('');
  const sizes = [...new Set(a.points.map((p) => p.size))].sort((x, y) => x - y);
  const variants = [...new Set(a.points.map((p) => p.variant + (p.threads ? ` x${p.threads}` : '')))];
  lines.push(`| rung | ${sizes.map((s) => `n=${s}`).join(' | ')} |`);
  lines.push(`|---|${sizes.map(() => '---').join('|')}|`);
  for (const v of variants) {
    const cells = sizes.map((s) => {
      const p = a.points.find((q) => q.variant + (q.threads ? ` x${q.threads}` : '') === v && q.size === s);
      return p ? `${formatTimeWithInterval(p.perCallNs / 1e6, nsToMs(p.perCallNsCi))}, ${formatSignificant(p.gflops)} GF/s` : '';
    });
    lines.push(`| ${v} | ${cells.join(' | ')} |`);
  }
  lines.push('');
  lines.push('## Boundary: crossover and per-call overhead');
  lines.push('');
  for (const c of a.crossovers) {
    lines.push(`- ${c.variant}: ${c.fromSize === null ? 'never faster than ts-typed in this sweep' : `faster than ts-typed from n = ${c.fromSize}`}${c.tsFasterUpTo === null ? '' : ` (ts-typed faster up to n = ${c.tsFasterUpTo})`}.`);
  }
  for (const o of a.overheads) {
    lines.push(`- ${o.variant} per call at n = ${o.size}: ${formatTimeWithInterval(o.perCallNs / 1e6, nsToMs(o.perCallNsCi))}${o.tsPerCallNs === null ? '' : ` (ts-typed: ${formatTime(o.tsPerCallNs / 1e6)})`}.`);
  }
  lines.push('');
  lines.push('## Native threads: efficiency against 1 thread');
  lines.push('');
  if (a.threads.length === 0) lines.push('- no native-threads cases in this run.');
  for (const t of a.threads) {
    lines.push(`- ${t.variant === 'native-threads' ? '' : `${t.variant}, `}n = ${t.size}, ${t.threads} threads: speedup ${formatSpeedup({ speedup: t.speedup, ci95: t.speedupCi })}, efficiency ${formatSignificant(t.efficiency)} ${formatBracketInterval(t.efficiencyCi)}.`);
  }
  lines.push(...serialPath);
  lines.push('');
  lines.push(...formatBandwidth(a.bandwidth));
  lines.push('## Roofline: fraction of this machine\'s measured peak');
  lines.push('');
  if (!a.peaks || !a.roofs) {
    lines.push('- no peak probes in this run (the native -march=native rung did not run).');
  } else {
    const p = a.peaks;
    const r = a.roofs;
    lines.push(`Compute peaks (FMA probe, best sample): ${formatSignificant(p.gflops1)} Gflop/s on 1 thread, ${formatSignificant(p.gflopsAll)} Gflop/s on all threads.`);
    if (a.bandwidth) {
      lines.push(`Bandwidth roofs from the triad cases: ${formatSignificant(r.gbps1)} GB/s on 1 thread, ${formatSignificant(r.gbpsAll)} GB/s on all cores (the best, at ${a.bandwidth.best.threads} threads). The probe's own triad, for comparison: ${formatSignificant(p.gbps1)} and ${formatSignificant(p.gbpsAll)} GB/s.`);
    } else {
      lines.push(`Bandwidth roofs from the probe's triad (this run has no triad cases): ${formatSignificant(p.gbps1)} GB/s on 1 thread, ${formatSignificant(p.gbpsAll)} GB/s on all threads.`);
    }
    lines.push(`Ridge points (flop per byte where the roofs meet): ${formatSignificant(r.gflops1 / r.gbps1)} on 1 thread, ${formatSignificant(r.gflopsAll / r.gbpsAll)} on all cores. A rung left of its ridge is memory-bound: only bandwidth would raise its roof, not more cores.`);
    lines.push('');
    // The memory side, where it applies: a memory-bound rung's compulsory GB/s against the bandwidth roof.
    lines.push('| rung | n | intensity (flop/B) | bound by | Gflop/s | GB/s (compulsory) | attainable Gflop/s | fraction of roof | fraction of bandwidth roof (memory-bound) |');
    lines.push('|---|---|---|---|---|---|---|---|---|');
    const summary = rooflineSummary(a.roofline);
    for (const q of summary) {
      lines.push(`| ${q.variant}${q.threads ? ` x${q.threads}` : ''} | ${q.size} | ${formatSignificant(q.intensity)} | ${q.bound} | ${formatSignificant(q.gflops)} | ${formatSignificant(q.gbps)} | ${formatSignificant(q.attainableGflops)} | ${formatShare(q.fractionOfPeak, 1)} | ${q.bound === 'memory' ? formatShare(q.fractionOfBandwidth, 1) : '-'} |`);
    }
    const above = aboveRoof(summary);
    if (above.length > 0) lines.push('', aboveRoofWarning(above));
  }
  lines.push('');
  return lines.join('\n');
}

/** The triad's section: GB/s and efficiency per thread count, and where bandwidth saturates. */
export function formatBandwidth(b: Bandwidth | null): string[] {
  const lines = ['## Memory bandwidth: the triad on 1..P threads', ''];
  if (!b) return [...lines, '- no triad cases in this run (the native -march=native rung did not run).', ''];
  lines.push(`a[i] = b[i] + s·c[i] over 3 arrays of ${describeTriadSize(b.elements)}, 24 bytes per element; GB/s at the median time, 95% intervals.`);
  lines.push('');
  lines.push('| threads | GB/s | of the best | efficiency vs 1 thread |');
  lines.push('|---|---|---|---|');
  for (const p of b.points) {
    const efficiency = p.efficiency === null ? '' : `${formatSignificant(p.efficiency)}${p.efficiencyCi ? ` ${formatBracketInterval(p.efficiencyCi)}` : ''}`;
    lines.push(`| ${p.threads} | ${formatSignificant(p.gbps)} ${formatBracketInterval(p.gbpsCi)} | ${formatPercent(p.gbps / b.best.gbps)} | ${efficiency} |`);
  }
  lines.push('');
  lines.push(`- ${saturationSentence(b)}`);
  if (b.typescriptGbps !== null && b.oneThread) {
    lines.push(`- The same triad in TypeScript on one thread (ts-typed): ${formatSignificant(b.typescriptGbps)} GB/s, ${formatRatio(b.typescriptGbps / b.oneThread.gbps)} the native triad on one thread.`);
  }
  lines.push('');
  return lines;
}

/** An interval of times in ns as ms, the unit the core's time formatters take. */
function nsToMs([low, high]: readonly [number, number]): [number, number] {
  return [low / 1e6, high / 1e6];
}

/**
 * The lab's analysis of a run (LabDefinition.labAnalysis): the tables as text, roofline.svg when the peaks were probed, and
 * the values and tables episode 07 quotes (analysis-values.ts).
 */
export function analysisReport(results: Results): LabAnalysis {
  const analysis = nativeKernelAnalysis(results);
  const files: LabAnalysis['files'] = [];
  const measured = nativeKernelValues(results, analysis);
  let text = formatAnalysis(results, analysis, serialPathLines(measured.values));
  if (analysis.roofs) {
    const shown = new Set([...rooflineSummary(analysis.roofline), ...analysis.roofline.filter((r) => r.variant === 'native-march')]);
    files.push({
      name: 'roofline.svg',
      contents: rooflineSvg([...shown], analysis.roofs, `Matrix product on ${results.environment.cpuModel} (P = ${results.cpus.p})`, analysis.bandwidth?.points ?? []),
    });
    text += '\n\n![Roofline of the rungs](roofline.svg)';
  }
  return { text, files, ...measured };
}

/**
 * One line per threads rung and size with a 1-thread case and a synchronous twin (analysis-values.ts): how much
 * longer the 1-thread call took than the synchronous call of the same kernel, and the copies alone where measured.
 */
export function serialPathLines(values: Record<string, MeasuredValue>): string[] {
  const lines: string[] = [];
  for (const [variant, sync] of Object.entries(SYNC_TWIN)) {
    const prefix = `oneThreadOverSync${keyPart(variant)}`;
    for (const [key, v] of Object.entries(values)) {
      if (!key.startsWith(prefix) || !/^\d+$/.test(key.slice(prefix.length))) continue;
      const size = key.slice(prefix.length);
      const copyMs = values[`copyMs${keyPart(variant)}${size}`];
      const copyShare = values[`copyShare${keyPart(variant)}${size}`];
      const copies = copyMs && copyShare ? `; the copies alone (3 n² doubles) ${formatTime(copyMs.value)}, ${formatSignificant(copyShare.value)}% of the synchronous call` : '';
      lines.push(`- ${variant}, n = ${size}, 1 thread: ${formatRatio(v.value)}${v.ci95 ? ` ${formatBracketInterval(v.ci95)}` : ''} the time of ${sync} (one synchronous call): the call path's serial work (copies, the hop to a libuv thread and back, waking sleeping threads)${copies}.`);
    }
  }
  return lines;
}

/**
 * A rung measured above its roof (more than 5% over, beyond rounding and timer noise). A program cannot beat the
 * hardware, so the roof read low: the probes run after the cases, and on a shared VM the capacity behind the vCPUs
 * changes during a run (two vCPUs that ran as two cores for one case can share one core's FMA units for the probe).
 */
export function aboveRoof(summary: { variant: string; threads?: number | null; size: number; fractionOfPeak: number }[]): string[] {
  return summary
    .filter((q) => q.fractionOfPeak > 1.05)
    .map((q) => `${q.variant}${q.threads ? ` x${q.threads}` : ''} at n = ${q.size} (${formatPercent(q.fractionOfPeak)})`);
}

export function aboveRoofWarning(above: string[]): string {
  return (
    `Warning: measured above its roof: ${above.join(', ')}. No program runs faster than the hardware, so the roof read ` +
    'low in this run: the peak probes run after the cases, and on a shared machine or VM the capacity behind the CPUs ' +
    'can change during a run (two vCPUs that ran as two cores for one case may share one core for the probe). Treat ' +
    'the roofs and fractions of peak here as lower bounds, and rerun on a quiet machine before you quote them.'
  );
}
