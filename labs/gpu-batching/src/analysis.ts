/**
 * The lab's own reading of a results.json, beyond the harness's speedups: throughput and latency p50/p95/p99 per
 * batch size, the stability verdict per case, the pipeline's wall time against max(pure I/O, pure compute), the
 * per-device efficiency of the multi-device cases (the harness's, read from the speedups), and what the sessions add.
 * Pure functions of the results file.
 */
import { type CaseResult, DEFAULT_STABILITY, firstStableWindow, formatBracketInterval, formatFixed, formatRatio, formatSignificant, median, quantile, type Results, sameParams, sorted, type StabilityOptions, windowThroughputs } from '@parallel-course/core';

export interface CaseLine {
  label: string;
  medianMs: number;
  /** Work units (samples) per second at the median time. */
  throughput: number;
  /** Latency of one inference call, ms (from the 'call latency' observation). */
  latency: { p50: number; p95: number; p99: number } | null;
  /** Index of the window that ends the first stable run, or null when the case never settled. */
  stableAtWindow: number | null;
  windows: number;
}

export interface DeviceLine {
  /** Where the device processes read their samples: `disk` or `memory`. */
  source: string;
  devices: number;
  throughput: number;
  /**
   * The harness's parallel efficiency of this case over one device reading the same way (the case declares
   * `workers: devices`): median(1 device) / (D x median(D devices)), the same as throughput(D) / (D x throughput(1)) for
   * the same work per sample; 1 means every device added a whole device's worth. Null without a one-device case.
   */
  efficiency: number | null;
  /** Its 95% interval, from the harness (paired by round where both cases were measured in the same rounds). */
  efficiencyCi: [number, number] | null;
  /** Median busy fraction of each device (inference time / wall time of a pass). */
  busy: number[];
}

export interface LabAnalysis {
  ep: string;
  /** On WebGPU: 'emulated', 'real' or 'unknown' (the cases' `adapter` param); null on CPU and CUDA. */
  adapter: string | null;
  baseline: CaseLine | null;
  batches: (CaseLine & { batch: number; speedup: number | null })[];
  best: { batch: number; speedup: number } | null;
  pipeline: { label: string; wallMs: number; ioMs: number; computeMs: number; ratio: number }[];
  sessions: (CaseLine & { sessions: number; vsOne: number | null })[];
  devices: DeviceLine[];
  /** Several processes sharing one device: throughput against one process on it (the "several models per GPU" claim). */
  sharing: { processes: number; throughput: number; vsOne: number | null }[];
  notes: string[];
}

/** The execution provider in words, with the emulated adapter's warning wherever a number is shown. */
export function providerWords(ep: string, adapter: string | null): string {
  if (ep === 'cuda') return 'CUDA execution provider (GPU)';
  if (ep === 'webgpu') {
    return adapter === 'emulated'
      ? "WebGPU execution provider on an emulated GPU on the CPU: correct, but its times are not a GPU's"
      : adapter === 'real' ? 'WebGPU execution provider (GPU)' : 'WebGPU execution provider (adapter not known to be a real GPU)';
  }
  return 'CPU execution provider (CPU fallback: no GPU used)';
}

const label = (c: CaseResult) => `${c.variant} (${Object.entries(c.params).map(([k, v]) => `${k}=${v}`).join(', ')})`;

function caseLine(c: CaseResult, stability: StabilityOptions, samplesPerWindow: number): CaseLine {
  const medianMs = median(c.samplesMs);
  const calls = c.observations['call latency']?.samples ?? [];
  const xs = sorted(calls);
  const windows = windowThroughputs(c.samplesMs, samplesPerWindow, c.workPerSample.amount);
  return {
    label: label(c),
    medianMs,
    throughput: c.workPerSample.amount / (medianMs / 1000),
    latency: xs.length ? { p50: quantile(xs, 0.5), p95: quantile(xs, 0.95), p99: quantile(xs, 0.99) } : null,
    stableAtWindow: firstStableWindow(windows, stability),
    windows: windows.length,
  };
}

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

export function gpuBatchingAnalysis(all: Results, stability: StabilityOptions = DEFAULT_STABILITY, samplesPerWindow = 2): LabAnalysis {
  // The sweep's own cases: a --grade run adds the solution's graded cases (params.impl) beside them.
  const results = { ...all, cases: all.cases.filter((c) => c.params.impl === undefined) };
  const line = (c: CaseResult) => caseLine(c, stability, samplesPerWindow);
  const baselineCase = results.cases.find((c) => c.variant === 'one-at-a-time') ?? null;
  const baseline = baselineCase ? line(baselineCase) : null;
  const ep = String(baselineCase?.params.ep ?? results.cases[0]?.params.ep ?? 'unknown');
  const adapterParam = baselineCase?.params.adapter ?? results.cases[0]?.params.adapter;
  const adapter = adapterParam === undefined ? null : String(adapterParam);
  const notes: string[] = [];

  const batches = results.cases
    .filter((c) => c.variant === 'batched')
    .map((c) => {
      const l = line(c);
      return { ...l, batch: num(c.params.batch) ?? 0, speedup: baseline ? baseline.medianMs / l.medianMs : null };
    })
    .sort((a, b) => a.batch - b.batch);
  const bestLine = batches.reduce<(typeof batches)[number] | null>((best, b) => (!best || b.throughput > best.throughput ? b : best), null);
  const best = bestLine && bestLine.speedup !== null ? { batch: bestLine.batch, speedup: bestLine.speedup } : null;

  const pipeline = results.cases
    .filter((c) => c.variant === 'pipeline')
    .flatMap((c) => {
      const sequential = results.cases.find((s) => s.variant === 'read-then-infer' && s.params.batch === c.params.batch && s.params.reader === c.params.reader);
      const io = sequential?.observations['read ms']?.samples ?? [];
      const compute = sequential?.observations['compute ms']?.samples ?? [];
      if (!io.length || !compute.length) {
        notes.push(`${label(c)}: no read-then-infer case with the same batch and reader to compare with`);
        return [];
      }
      const wallMs = median(c.samplesMs);
      const ioMs = median(io);
      const computeMs = median(compute);
      return [{ label: label(c), wallMs, ioMs, computeMs, ratio: wallMs / Math.max(ioMs, computeMs) }];
    });

  const sessionCases = results.cases.filter((c) => c.variant === 'sessions');
  const oneSession = sessionCases.find((c) => c.params.sessions === 1);
  const sessions = sessionCases
    .map((c) => ({ ...line(c), sessions: num(c.params.sessions) ?? 0, vsOne: oneSession ? median(oneSession.samplesMs) / median(c.samplesMs) : null }))
    .sort((a, b) => a.sessions - b.sessions);

  const deviceCases = results.cases
    .filter((c) => c.variant === 'devices')
    .sort((a, b) => String(a.params.source ?? 'disk').localeCompare(String(b.params.source ?? 'disk')) || (num(a.params.devices) ?? 0) - (num(b.params.devices) ?? 0));
  const throughputOf = (c: CaseResult) => c.workPerSample.amount / (median(c.samplesMs) / 1000);
  const devices = deviceCases.map((c) => {
    const d = num(c.params.devices) ?? 1;
    const source = String(c.params.source ?? 'disk');
    // Efficiency against one device reading the same way, as the harness computed it (not recomputed here).
    const entry = results.speedups.find((s) => s.variant === c.variant && sameParams(s.params, c.params) && s.efficiencyBasis === 'one-worker');
    const throughput = throughputOf(c);
    const busy = Object.entries(c.observations)
      .filter(([name]) => /^device \d+ busy fraction$/.test(name))
      .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
      .map(([, o]) => median(o.samples));
    return { source, devices: d, throughput, efficiency: entry?.efficiency ?? null, efficiencyCi: entry?.efficiencyCi95 ?? null, busy };
  });
  const sharingCases = results.cases.filter((c) => c.variant === 'processes-per-device');
  const oneProcess = sharingCases.find((c) => c.params.processes === 1);
  const sharing = sharingCases
    .map((c) => ({ processes: num(c.params.processes) ?? 0, throughput: throughputOf(c), vsOne: oneProcess ? median(oneProcess.samplesMs) / median(c.samplesMs) : null }))
    .sort((a, b) => a.processes - b.processes);
  if (ep === 'cpu') notes.push('Execution provider: CPU. The "devices" are CPU processes with one ONNX Runtime thread each; no GPU was used.');
  if (ep === 'webgpu') notes.push(`Execution provider: ${providerWords(ep, adapter)}.`);
  return { ep, adapter, baseline, batches, best, pipeline, sessions, devices, sharing, notes };
}

/** The analysis as plain text for the terminal. */
export function formatAnalysis(a: LabAnalysis, stability: StabilityOptions = DEFAULT_STABILITY): string {
  const stable = (l: CaseLine) => (l.stableAtWindow === null ? `no (${l.windows} windows)` : `yes, at window ${l.stableAtWindow + 1} of ${l.windows}`);
  const lat = (l: CaseLine) => (l.latency ? `${formatSignificant(l.latency.p50)} / ${formatSignificant(l.latency.p95)} / ${formatSignificant(l.latency.p99)}` : '-');
  const out = [`Execution provider that ran: ${a.ep.toUpperCase()}${a.adapter ? ` (adapter: ${a.adapter})` : ''}`, ''];
  out.push(`Batch sweep (throughput at the median; call latency p50 / p95 / p99 in ms; stable = ${stability.windows} consecutive windows within ${stability.tolerance * 100}%)`);
  out.push(`  ${'batch'.padEnd(16)}${'samples/s'.padStart(11)}${'speedup'.padStart(9)}  ${'latency p50/p95/p99'.padEnd(26)}stable`);
  if (a.baseline) out.push(`  ${'one-at-a-time'.padEnd(16)}${formatSignificant(a.baseline.throughput).padStart(11)}${'1.00x'.padStart(9)}  ${lat(a.baseline).padEnd(26)}${stable(a.baseline)}`);
  for (const b of a.batches) {
    out.push(`  ${String(b.batch).padEnd(16)}${formatSignificant(b.throughput).padStart(11)}${(b.speedup === null ? '-' : formatRatio(b.speedup)).padStart(9)}  ${lat(b).padEnd(26)}${stable(b)}`);
  }
  if (a.best) out.push(`  best: batch ${a.best.batch}, ${formatRatio(a.best.speedup)} the one-at-a-time throughput (medians; intervals in the harness report)`);
  out.push('', 'Pipeline: wall time / max(pure I/O, pure compute) from read-then-infer (1.00 = perfect overlap; the goal is <= 1.15)');
  for (const p of a.pipeline) out.push(`  ${p.label}: ${formatSignificant(p.wallMs)} ms vs I/O ${formatSignificant(p.ioMs)} ms, compute ${formatSignificant(p.computeMs)} ms: ratio ${formatFixed(p.ratio, 2)}`);
  out.push('', 'Sessions on one device (throughput relative to one session)');
  for (const s of a.sessions) out.push(`  ${String(s.sessions).padEnd(3)} session(s): ${formatSignificant(s.throughput)} samples/s, ${s.vsOne === null ? '-' : formatRatio(s.vsOne)}, ${stable(s)}`);
  out.push('', 'Devices (efficiency = throughput(D) / (D x throughput(1)) [95% interval]; busy = inference time / wall time per device)');
  for (const d of a.devices) {
    const efficiency = d.efficiency === null ? '-' : `${formatSignificant(d.efficiency)}${d.efficiencyCi ? ` ${formatBracketInterval(d.efficiencyCi)}` : ''}`;
    out.push(`  ${String(d.devices).padEnd(3)} device(s), data from ${d.source.padEnd(6)}: ${formatSignificant(d.throughput)} samples/s, efficiency ${efficiency}, busy ${d.busy.map((b) => formatFixed(b, 2)).join(' / ')}`);
  }
  if (a.sharing.length) {
    out.push('', 'Processes sharing one device (throughput relative to one process on it)');
    for (const p of a.sharing) out.push(`  ${String(p.processes).padEnd(3)} process(es): ${formatSignificant(p.throughput)} samples/s, ${p.vsOne === null ? '-' : formatRatio(p.vsOne)}`);
  }
  if (a.notes.length) out.push('', ...a.notes);
  return out.join('\n');
}
