/**
 * The numbers episode 08 quotes, as data (issue 20): analysis/values.json's `values` and `tables`, derived from a
 * run's results.json and the lab's analysis (analysis.ts). Every `what` names the execution provider that ran, so a
 * CPU run is labelled as the CPU fallback wherever its numbers are shown.
 *
 * Keys (stable; episodes name them):
 *   perCallUsOneAtATime, throughputOneAtATime, callP50MsOneAtATime, callP95MsOneAtATime, callP99MsOneAtATime
 *   throughputBatch<B>, speedupBatch<B>, callP50MsBatch<B>, callP95MsBatch<B>, callP99MsBatch<B>   (every swept B)
 *   bestBatch, bestBatchSpeedup, kneeBatch, kneeNextGainPct
 *   pureIoMs, pureComputeMs, overlapBound, pipelineGain, pipelineRatioPrefetch<N>, pipelineComputeMsPrefetch<N>
 *   pureIoMsThreadpool, pureComputeMsThreadpool, pipelineRatioThreadpool, pipelineComputeMsThreadpool
 *   sessionsVsOne<N>, sessionsCallP50Ms<N>, sessionsCallP99Ms<N>
 *   deviceEfficiency{Disk,Memory}<D>, deviceBusy{Disk,Memory}<D>, deviceThroughput{Disk,Memory}<D>
 *   deviceResidentMiB, devicesMax, gpusUsed, gpusFound, samplesPerPass
 * A key is absent when its case was not run (a quick run has fewer batches, no threadpool reader, no memory source).
 * Tables: batchSweep, pipeline, sessions, devices.
 */
import { type AnalysisTable, caseRatioInterval, type CaseResult, formatFixed, type MeasuredValue, mean, median, moverRatioCi, orderStatisticMedianCi, paramsSeedText, type Results, sameParams } from '@parallel-course/core';
import { providerWords, type CaseLine, type LabAnalysis } from './analysis.ts';

/** Gain per doubling of the batch below which the curve has reached its knee (the episode's "less than 10%"). */
const KNEE_GAIN_PER_DOUBLING = 0.1;

/**
 * The knee of the batch sweep: the smallest batch B whose next swept batch B' adds less than `gainPerDoubling`
 * throughput per doubling, (tp(B') / tp(B))^(1 / log2(B' / B)) - 1 < gainPerDoubling, so a sweep with gaps (the
 * quick run's 1, 8, 64, 256, 512) is judged per doubling too. Null when every step still gains (no knee in the sweep).
 * Also returns that step's gain per doubling (a fraction).
 */
export function kneeOf(points: readonly { batch: number; throughput: number }[], gainPerDoubling = KNEE_GAIN_PER_DOUBLING): { batch: number; nextGain: number } | null {
  const xs = [...points].filter((p) => p.batch > 0 && p.throughput > 0).sort((a, b) => a.batch - b.batch);
  for (let i = 0; i + 1 < xs.length; i++) {
    const a = xs[i]!;
    const b = xs[i + 1]!;
    const gain = (b.throughput / a.throughput) ** (1 / Math.log2(b.batch / a.batch)) - 1;
    if (gain < gainPerDoubling) return { batch: a.batch, nextGain: gain };
  }
  return null;
}

/**
 * The most a perfect overlap of reading and computing can give over doing them one after the other:
 * (io + compute) / max(io, compute), between 1 and 2 (2 when they take equally long).
 */
export function overlapBound(ioMs: number, computeMs: number): number {
  if (!(ioMs >= 0 && computeMs >= 0 && ioMs + computeMs > 0)) throw new RangeError(`overlapBound: times must be non-negative and not both 0, got ${ioMs} and ${computeMs}`);
  return (ioMs + computeMs) / Math.max(ioMs, computeMs);
}

/**
 * The 95% interval of overlapBound from the intervals of the two medians (issue 43: a bound compared with a measured
 * gain needs its own uncertainty): the MOVER interval of io / compute (core moverRatioCi, which treats the two
 * medians as independent; they come from the same passes, so it errs on the wide side), mapped through
 * r -> 1 + min(r, 1 / r), which peaks at 2 where r = 1. Reference: io 20 [18, 22], compute 80 [76, 84] -> r = 0.25
 * [0.25 e^-hypot(ln(20/18), ln(84/80)), 0.25 e^hypot(ln(22/20), ln(80/76))] = [0.22259, 0.27858], bound 1.25 [1.22259,
 * 1.27858]; io 50 [40, 60], compute 50 [45, 55] -> r's interval contains 1, so the bound's upper end is 2.
 */
export function overlapBoundInterval(ioMs: number, ioCi: readonly [number, number], computeMs: number, computeCi: readonly [number, number]): [number, number] {
  if (!(ioCi[0] > 0 && computeCi[0] > 0)) throw new RangeError(`overlapBoundInterval: the intervals must be above 0 ms, got [${ioCi.join(', ')}] and [${computeCi.join(', ')}]`);
  const [low, high] = moverRatioCi(ioMs, ioCi, computeMs, computeCi);
  const f = (r: number) => 1 + Math.min(r, 1 / r);
  const ends = [f(low), f(high)];
  // The bound itself lies inside in exact arithmetic; the min / max keep it there through exp(ln(...)) rounding.
  const bound = overlapBound(ioMs, computeMs);
  return [Math.min(bound, ...ends), low <= 1 && 1 <= high ? 2 : Math.max(bound, ...ends)];
}

/** Throughput (work units/s) at a median time in ms, and its interval from the median's (the bounds swap). */
export function throughputOf(work: number, medianMs: number, ciMs: readonly [number, number] | null | undefined): { value: number; ci95: [number, number] | null } {
  return { value: work / (medianMs / 1000), ci95: ciMs ? [work / (ciMs[1] / 1000), work / (ciMs[0] / 1000)] : null };
}

/** "batches of 256 samples" -> "BatchOf256"-style key parts: capitalised source names. */
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function analysisValues(results: Results, a: LabAnalysis): { values: Record<string, MeasuredValue>; tables: Record<string, AnalysisTable> } {
  const where = providerWords(a.ep, a.adapter);
  const values: Record<string, MeasuredValue> = {};
  const put = (key: string, value: number, unit: string, what: string, ci95: [number, number] | null = null) => {
    if (Number.isFinite(value)) values[key] = { value, unit, ci95, what: `${what}; ${where}` };
  };
  // The sweep's own cases: a --grade run adds the solution's graded cases (params.impl), not part of it.
  const own = results.cases.filter((c) => c.params.impl === undefined);
  const caseOf = (variant: string, params: Record<string, string | number>) =>
    own.find((c) => c.variant === variant && Object.entries(params).every(([k, v]) => (k === 'source' ? (c.params.source ?? 'disk') === v : c.params[k] === v))) ?? null;
  const ciOf = (c: CaseResult | null) => (c?.summary.ci95 ?? null) as [number, number] | null;
  const timeCell = (c: CaseResult | null, what: string): MeasuredValue | string =>
    c ? { value: c.summary.median, unit: 'ms', ci95: ciOf(c), what: `${what}: median time of one pass; ${where}` } : '-';
  const tpCell = (c: CaseResult | null, what: string): MeasuredValue | string => {
    if (!c) return '-';
    const t = throughputOf(c.workPerSample.amount, c.summary.median, ciOf(c));
    return { value: t.value, unit: 'samples/s', ci95: t.ci95, what: `${what}: samples per second at the median; ${where}` };
  };
  const msCell = (v: number | undefined | null, what: string): MeasuredValue | string => (v === undefined || v === null ? '-' : { value: v, unit: 'ms', ci95: null, what: `${what}; ${where}` });
  const xCell = (v: number | null | undefined, ci: [number, number] | null | undefined, what: string): MeasuredValue | string =>
    v === null || v === undefined ? '-' : { value: v, unit: 'x', ci95: ci ?? null, what: `${what}; ${where}` };
  const ratioCell = (v: number | null | undefined, what: string): MeasuredValue | string => (v === null || v === undefined ? '-' : { value: v, unit: '', ci95: null, what: `${what}; ${where}` });
  const speedupOf = (c: CaseResult) => results.speedups.find((s) => s.variant === c.variant && sameParams(s.params, c.params) && s.baseline === 'one-at-a-time') ?? null;

  // One at a time: the fixed cost of a call at batch 1.
  const base = caseOf('one-at-a-time', {});
  if (base) {
    const n = base.workPerSample.amount;
    const ci = ciOf(base);
    put('perCallUsOneAtATime', (base.summary.median / n) * 1000, 'µs', 'time per inference call one sample at a time (median pass time / samples per pass)', ci ? [(ci[0] / n) * 1000, (ci[1] / n) * 1000] : null);
    const t = throughputOf(n, base.summary.median, ci);
    put('throughputOneAtATime', t.value, 'samples/s', 'throughput one sample at a time', t.ci95);
    put('samplesPerPass', n, '', 'samples in one pass over the data set (one measured sample; a lab input)');
  }
  const latencyValues = (l: CaseLine, suffix: string, what: string) => {
    if (!l.latency) return;
    put(`callP50Ms${suffix}`, l.latency.p50, 'ms', `median latency of one inference call, ${what}`);
    put(`callP95Ms${suffix}`, l.latency.p95, 'ms', `95th percentile latency of one inference call, ${what}`);
    put(`callP99Ms${suffix}`, l.latency.p99, 'ms', `99th percentile latency of one inference call, ${what}`);
  };
  if (a.baseline) latencyValues(a.baseline, 'OneAtATime', 'one sample at a time');

  // The batch sweep.
  const batchRows: (string | MeasuredValue)[][] = [];
  if (base && a.baseline) {
    batchRows.push(['one at a time (baseline)', timeCell(base, 'one at a time'), tpCell(base, 'one at a time'), '1', msCell(a.baseline.latency?.p50, 'call latency p50, one at a time'), msCell(a.baseline.latency?.p95, 'call latency p95, one at a time'), msCell(a.baseline.latency?.p99, 'call latency p99, one at a time')]);
  }
  const headlineBatch = results.headline?.variant === 'batched' ? results.headline.params.batch : undefined;
  const knee = kneeOf(a.batches);
  // Each row says which batch is the headline, the knee and the best, so the episode can point at them in words.
  const marks = (batch: number) =>
    [batch === headlineBatch ? 'headline' : null, batch === knee?.batch ? 'knee' : null, batch === a.best?.batch ? 'best' : null].filter(Boolean).join(', ');
  for (const b of a.batches) {
    const c = caseOf('batched', { batch: b.batch });
    if (!c) continue;
    const t = throughputOf(c.workPerSample.amount, c.summary.median, ciOf(c));
    put(`throughputBatch${b.batch}`, t.value, 'samples/s', `throughput in batches of ${b.batch}`, t.ci95);
    const s = speedupOf(c);
    if (s) put(`speedupBatch${b.batch}`, s.speedup, 'x', `throughput in batches of ${b.batch} over one at a time`, s.ci95 as [number, number]);
    latencyValues(b, `Batch${b.batch}`, `batches of ${b.batch}`);
    batchRows.push([
      marks(b.batch) ? `${b.batch} (${marks(b.batch)})` : String(b.batch),
      timeCell(c, `batches of ${b.batch}`),
      tpCell(c, `batches of ${b.batch}`),
      xCell(s?.speedup, s?.ci95 as [number, number] | undefined, `speedup of batches of ${b.batch} over one at a time`),
      msCell(b.latency?.p50, `call latency p50, batches of ${b.batch}`),
      msCell(b.latency?.p95, `call latency p95, batches of ${b.batch}`),
      msCell(b.latency?.p99, `call latency p99, batches of ${b.batch}`),
    ]);
  }
  if (a.best) {
    put('bestBatch', a.best.batch, '', 'batch size with the highest throughput at the median');
    const c = caseOf('batched', { batch: a.best.batch });
    const s = c ? speedupOf(c) : null;
    if (s) put('bestBatchSpeedup', s.speedup, 'x', `throughput of the best batch (${a.best.batch}) over one at a time`, s.ci95 as [number, number]);
  }
  if (knee) {
    put('kneeBatch', knee.batch, '', `the knee: the smallest batch whose next swept size adds less than ${KNEE_GAIN_PER_DOUBLING * 100}% throughput per doubling`);
    put('kneeNextGainPct', knee.nextGain * 100, '%', 'throughput gained per doubling from the knee batch to the next swept size');
  }

  // The pipeline against its read-then-infer parts.
  const pipeRows: (string | MeasuredValue)[][] = [];
  for (const reader of ['worker', 'threadpool'] as const) {
    const suffix = reader === 'worker' ? '' : 'Threadpool';
    const readerText = reader === 'worker' ? 'reader thread' : 'fs.promises reads';
    const seq = own.find((c) => c.variant === 'read-then-infer' && c.params.reader === reader) ?? null;
    const io = seq?.observations['read ms']?.samples ?? [];
    const compute = seq?.observations['compute ms']?.samples ?? [];
    if (!seq || !io.length || !compute.length) continue;
    const ioMs = median(io);
    const computeMs = median(compute);
    // Medians of one value per pass (sample), so each has the distribution-free interval of a median.
    const ioCi = orderStatisticMedianCi(io);
    const computeCi = orderStatisticMedianCi(compute);
    put(`pureIoMs${suffix}`, ioMs, 'ms', `pure I/O: reading and decoding one pass in read-then-infer (${readerText}), median over the passes`, ioCi);
    put(`pureComputeMs${suffix}`, computeMs, 'ms', `pure compute: inference time of one pass in read-then-infer (${readerText}), median over the passes`, computeCi);
    if (reader === 'worker') {
      const boundCi = ioCi[0] > 0 && computeCi[0] > 0 ? overlapBoundInterval(ioMs, ioCi, computeMs, computeCi) : null;
      put('overlapBound', overlapBound(ioMs, computeMs), 'x', 'the most overlap can give: (pure I/O + pure compute) / max(pure I/O, pure compute), from the medians (interval: MOVER from theirs)', boundCi);
    }
    pipeRows.push([`read-then-infer, ${readerText}`, timeCell(seq, `read-then-infer, ${readerText}`), tpCell(seq, `read-then-infer, ${readerText}`), '-', msCell(ioMs, 'pure I/O per pass'), msCell(computeMs, 'pure compute per pass')]);
    const pipes = own.filter((c) => c.variant === 'pipeline' && c.params.reader === reader && c.params.batch === seq.params.batch).sort((x, y) => Number(x.params.prefetch) - Number(y.params.prefetch));
    for (const p of pipes) {
      const prefetch = Number(p.params.prefetch);
      const ratio = p.summary.median / Math.max(ioMs, computeMs);
      const pipeCompute = p.observations['compute ms']?.samples ?? [];
      const key = reader === 'worker' ? `Prefetch${prefetch}` : 'Threadpool';
      if (reader === 'worker' || prefetch === 4) {
        put(`pipelineRatio${key}`, ratio, '', `pipeline (prefetch ${prefetch}, ${readerText}): wall time / max(pure I/O, pure compute); 1 is a perfect overlap`);
        if (pipeCompute.length) put(`pipelineComputeMs${key}`, median(pipeCompute), 'ms', `inference time of one pass inside the pipeline (prefetch ${prefetch}, ${readerText}), median over the passes`, orderStatisticMedianCi(pipeCompute));
      }
      if (reader === 'worker' && prefetch === 4) {
        put('pipelineGain', seq.summary.median / p.summary.median, 'x', 'read-then-infer time over the pipeline (prefetch 4, reader thread): what the overlap gave', ratioCi(results, seq, p));
      }
      pipeRows.push([`pipeline, prefetch ${prefetch}, ${readerText}`, timeCell(p, `pipeline, prefetch ${prefetch}, ${readerText}`), tpCell(p, `pipeline, prefetch ${prefetch}, ${readerText}`), ratioCell(ratio, 'wall time / max(pure I/O, pure compute)'), '-', msCell(pipeCompute.length ? median(pipeCompute) : null, 'inference time per pass inside the pipeline')]);
    }
  }

  // Sessions on one device.
  const sessionRows: (string | MeasuredValue)[][] = [];
  for (const s of a.sessions) {
    const c = caseOf('sessions', { sessions: s.sessions });
    if (s.vsOne !== null && s.sessions !== 1) put(`sessionsVsOne${s.sessions}`, s.vsOne, 'x', `throughput of ${s.sessions} sessions at once over one session (medians)`);
    if (s.latency) {
      put(`sessionsCallP50Ms${s.sessions}`, s.latency.p50, 'ms', `median latency of one call with ${s.sessions} session(s) at once`);
      put(`sessionsCallP99Ms${s.sessions}`, s.latency.p99, 'ms', `99th percentile latency of one call with ${s.sessions} session(s) at once`);
    }
    sessionRows.push([String(s.sessions), timeCell(c, `${s.sessions} session(s)`), tpCell(c, `${s.sessions} session(s)`), s.sessions === 1 ? '1' : xCell(s.vsOne, null, 'throughput over one session'), msCell(s.latency?.p50, 'call latency p50'), msCell(s.latency?.p99, 'call latency p99')]);
  }

  // Processes sharing one device: the "several models per GPU" claim, measured.
  const sharingRows: (string | MeasuredValue)[][] = [];
  for (const p of a.sharing) {
    const c = caseOf('processes-per-device', { processes: p.processes });
    const text = `${p.processes} process(es) on one device`;
    if (p.vsOne !== null && p.processes !== 1) put(`sharingVsOne${p.processes}`, p.vsOne, 'x', `throughput of ${text} over one process on it (medians)`);
    sharingRows.push([String(p.processes), timeCell(c, text), tpCell(c, text), p.processes === 1 ? '1' : xCell(p.vsOne, null, 'throughput over one process on the device')]);
  }

  // Devices: efficiency, busy fractions, memory per process.
  const deviceRows: (string | MeasuredValue)[][] = [];
  const resident: number[] = [];
  for (const d of a.devices) {
    const key = `${cap(d.source)}${d.devices}`;
    const c = caseOf('devices', { devices: d.devices, source: d.source });
    const text = `${d.devices} device process(es), data from ${d.source}`;
    if (d.efficiency !== null && d.devices > 1) put(`deviceEfficiency${key}`, d.efficiency, '', `parallel efficiency, throughput(D) / (D x throughput(1)), ${text}`, d.efficiencyCi);
    const busy = d.busy.length > 0 && d.busy.every(Number.isFinite) ? mean(d.busy) : NaN;
    put(`deviceBusy${key}`, busy, '', `busy fraction (inference time / wall time), mean over the devices, ${text}`);
    put(`deviceThroughput${key}`, d.throughput, 'samples/s', `throughput, ${text}`);
    if (c && d.devices === 1) for (const [name, o] of Object.entries(c.observations)) if (/^device \d+ resident MiB$/.test(name)) resident.push(median(o.samples));
    deviceRows.push([
      String(d.devices),
      d.source,
      timeCell(c, text),
      tpCell(c, text),
      d.devices === 1 ? '1' : ratioCell(d.efficiency, `parallel efficiency over one device, ${text}`),
      d.busy.length ? d.busy.map((b) => formatFixed(b, 2)).join(' / ') : '-',
    ]);
  }
  if (resident.length) put('deviceResidentMiB', median(resident), 'MiB', 'resident memory of one device process after a pass (runtime, session and buffers at batch 64; host memory)');
  const devicesMax = a.devices.reduce((m, d) => Math.max(m, d.devices), 0);
  if (devicesMax) put('devicesMax', devicesMax, '', 'most device processes run at once');
  // An emulated WebGPU adapter is not a GPU: it counts as none, as the CPU does.
  put('gpusUsed', a.ep === 'cuda' || (a.ep === 'webgpu' && a.adapter === 'real') ? devicesMax : 0, '', 'GPUs the run used (0 when every case ran on the CPU)');
  put('gpusFound', results.environment.gpus?.length ?? 0, '', 'GPUs nvidia-smi listed on the machine');

  const on = a.ep === 'cpu' ? 'CPU execution provider: no GPU was used' : providerWords(a.ep, a.adapter);
  const tables: Record<string, AnalysisTable> = {};
  if (batchRows.length) {
    tables.batchSweep = {
      caption: `Batch sweep (${on}): time per pass, throughput, speedup over one at a time, call latency p50 / p95 / p99`,
      columns: ['batch', 'time per pass', 'throughput', 'speedup over one at a time', 'call p50', 'call p95', 'call p99'],
      rows: batchRows,
    };
  }
  if (pipeRows.length) {
    tables.pipeline = {
      caption: `Reading and computing (${on}): one after the other, and overlapped; pure I/O and compute from read-then-infer`,
      columns: ['case', 'time per pass', 'throughput', 'wall / max(I/O, compute)', 'pure I/O', 'compute'],
      rows: pipeRows,
    };
  }
  if (sessionRows.length) {
    tables.sessions = { caption: `Sessions on one device (${on})`, columns: ['sessions', 'time per pass', 'throughput', 'vs one session', 'call p50', 'call p99'], rows: sessionRows };
  }
  if (sharingRows.length) {
    tables.sharing = { caption: `Processes sharing one device (${on}): the "several models per GPU" claim`, columns: ['processes', 'time per pass', 'throughput', 'vs one process'], rows: sharingRows };
  }
  if (deviceRows.length) {
    tables.devices = {
      caption: `One process per device (${on}${a.ep === 'cpu' ? '; the devices are CPU processes of one thread each' : a.ep === 'webgpu' ? '; one device: a WebGPU session cannot be given an adapter' : ''})`,
      columns: ['devices', 'data', 'time per pass', 'throughput', 'efficiency', 'busy fraction per device'],
      rows: deviceRows,
    };
  }
  return { values, tables };
}

/** The 95% interval of median(a) / median(b), resampled as the run's speedups are (the harness's caseRatioInterval). */
function ratioCi(results: Results, a: CaseResult, b: CaseResult): [number, number] | null {
  try {
    return caseRatioInterval(results, a, b, `ratio:${a.variant}:${paramsSeedText(a.params)}:${b.variant}:${paramsSeedText(b.params)}`).ci95;
  } catch {
    return null;
  }
}
