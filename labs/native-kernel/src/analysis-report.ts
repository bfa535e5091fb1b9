/**
 * The native-kernel analysis as Markdown: the tables the episode quotes, from one results.json.
 */
import type { Results } from '@parallel-course/harness/results-schema.ts';
import type { LabAnalysis } from '@parallel-course/harness/lab-definition.ts';
import { analyseNativeKernel, rooflineSummary, type NativeKernelAnalysis } from './analysis.ts';
import { rooflineSvg } from './roofline-svg.ts';

const ci = ([lo, hi]: [number, number], digits: number) => `[${lo.toFixed(digits)}, ${hi.toFixed(digits)}]`;

export function formatAnalysis(results: Results, a: NativeKernelAnalysis): string {
  const env = results.environment;
  const lines: string[] = [];
  lines.push(`# Native kernel: analysis of ${results.impl} run ${results.startedAt}`);
  lines.push('');
  lines.push(`Machine: ${env.cpuModel}, ${env.cpuCount} CPUs (available parallelism ${env.availableParallelism}), ${env.platform} ${env.osRelease}, Node ${env.node}. Command: \`${results.command}\`${results.quick ? ' (quick run: few samples)' : ''}.`);
  lines.push('');
  lines.push('## Time per product (median ns, 95% CI) and Gflop/s');
  lines.push('');
  const sizes = [...new Set(a.points.map((p) => p.size))].sort((x, y) => x - y);
  const variants = [...new Set(a.points.map((p) => p.variant + (p.threads ? ` x${p.threads}` : '')))];
  lines.push(`| rung | ${sizes.map((s) => `n=${s}`).join(' | ')} |`);
  lines.push(`|---|${sizes.map(() => '---').join('|')}|`);
  for (const v of variants) {
    const cells = sizes.map((s) => {
      const p = a.points.find((q) => q.variant + (q.threads ? ` x${q.threads}` : '') === v && q.size === s);
      return p ? `${fmtNs(p.perCallNs)} [${fmtNs(p.perCallNsCi[0])}, ${fmtNs(p.perCallNsCi[1])}], ${p.gflops.toFixed(2)} GF/s` : '';
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
    lines.push(`- ${o.variant} per call at n = ${o.size}: ${o.perCallNs.toFixed(0)} ns ${ci(o.perCallNsCi, 0)}${o.tsPerCallNs === null ? '' : ` (ts-typed: ${o.tsPerCallNs.toFixed(0)} ns)`}.`);
  }
  lines.push('');
  lines.push('## Native threads: efficiency against 1 thread');
  lines.push('');
  if (a.threads.length === 0) lines.push('- no native-threads cases in this run.');
  for (const t of a.threads) {
    lines.push(`- n = ${t.size}, ${t.threads} threads: speedup ${t.speedup.toFixed(2)} ${ci(t.speedupCi, 2)}, efficiency ${t.efficiency.toFixed(2)} ${ci(t.efficiencyCi, 2)}.`);
  }
  lines.push('');
  lines.push('## Roofline: fraction of this machine\'s measured peak');
  lines.push('');
  if (!a.peaks) {
    lines.push('- no peak probes in this run (the native -march=native rung did not run).');
  } else {
    const p = a.peaks;
    lines.push(`Measured peaks (median of probe runs): 1 thread ${p.gflops1.toFixed(1)} Gflop/s and ${p.gbps1.toFixed(1)} GB/s; all threads ${p.gflopsAll.toFixed(1)} Gflop/s and ${p.gbpsAll.toFixed(1)} GB/s.`);
    lines.push('');
    lines.push('| rung | n | Gflop/s | GB/s (compulsory) | attainable Gflop/s | fraction of roof |');
    lines.push('|---|---|---|---|---|---|');
    for (const r of rooflineSummary(a.roofline)) {
      lines.push(`| ${r.variant}${r.threads ? ` x${r.threads}` : ''} | ${r.size} | ${r.gflops.toFixed(2)} | ${(r.gflops / r.intensity).toFixed(2)} | ${r.attainableGflops.toFixed(1)} | ${(100 * r.fractionOfPeak).toFixed(1)}% |`);
    }
  }
  lines.push('');
  return lines.join('\n');
}

/** "812 ns", "4.56 us", "1.53 ms": three significant digits in the unit that fits. */
export function fmtNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toPrecision(3)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toPrecision(3)} us`;
  return `${ns.toPrecision(3)} ns`;
}

/** The lab's analysis of a run (LabDefinition.analyse): the tables as text, and roofline.svg when the peaks were probed. */
export function analyseRun(results: Results): LabAnalysis {
  const analysis = analyseNativeKernel(results);
  const files: LabAnalysis['files'] = [];
  let text = formatAnalysis(results, analysis);
  if (analysis.peaks) {
    const shown = new Set([...rooflineSummary(analysis.roofline), ...analysis.roofline.filter((r) => r.variant === 'native-march')]);
    files.push({
      name: 'roofline.svg',
      contents: rooflineSvg([...shown], analysis.peaks, `Matrix product on ${results.environment.cpuModel} (P = ${results.cpus.p})`),
    });
    text += '\n\n![Roofline of the rungs](roofline.svg)';
  }
  return { text, files };
}
