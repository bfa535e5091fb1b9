/**
 * The in-page lab runner: the harness's method in the learner's browser.
 *   1. measure the timer's resolution and size every sample so it is under 1 % of it (both recorded);
 *   2. run every case once and check its output against the reference: only cases that pass are timed;
 *   3. size every sample by repetitions grown until the clock can see them (timer.ts), warm every case up;
 *   4. interleaved rounds (every case once per round, the order rotated), every sample's output checked, samples
 *      taken while the tab was hidden marked (browsers throttle background tabs);
 *   5. the lab's probe of the machine, if it has one (afterSamples: episode 07's WebAssembly SIMD peak), once, after
 *      every sample, recorded as observations of the headline case;
 *   6. the harness's own analysis (medians, intervals, speedups, efficiency, Amdahl) on the samples, so the file is
 *      what `npm run report -- validate` recomputes.
 * Stop aborts between samples and tears every case down at once (workers terminated).
 */
import { analyzeRun, buildResults, sameCase, type AnalysisInput, type BrowserEnvironment, type RawObservation, type Results } from './core-adapter.ts';
import { runEnvironment, webgpuInfo } from './environment.ts';
import type { BrowserCase, BrowserLab, CaseHandle, CheckVerdict } from './lab-types.ts';
import { calibrateRepetitions, measureTimerResolution, sampleTargetMs } from './timer.ts';

export interface RunOptions {
  quick: boolean;
  /** Rounds instead of roundsFor(quick): the page's data-bl-rounds (lab-ui.ts), for tests and short demonstrations. */
  rounds?: number;
  signal: AbortSignal;
  onProgress(text: string, fraction: number): void;
}

type Correctness = Results['correctness'][number];

/** Rounds per run: every case is timed once per round; a lab may ask for more (its `rounds`). */
export function roundsFor(quick: boolean, lab?: Pick<BrowserLab<unknown>, 'rounds'>): number {
  return quick ? (lab?.rounds?.quick ?? 5) : (lab?.rounds?.full ?? 15);
}

/** Most rounds data-bl-rounds may ask for: a full run's 15 and some room, not a run that never ends. */
export const MAX_ROUNDS = 50;

/**
 * The rounds a lab's section asks for with its data-bl-rounds text (a whole number 1..MAX_ROUNDS), or null for the run's own
 * (roundsFor). The browser tests set it to 2: every case is still checked and every sample still checked, only fewer
 * samples are timed. Nothing on the site sets it.
 */
export function roundsOverride(text: string | undefined): number | null {
  if (text === undefined || !/^\d+$/.test(text)) return null;
  const rounds = Number(text);
  return rounds >= 1 && rounds <= MAX_ROUNDS ? rounds : null;
}

/** Lets the page paint and handle input between samples (a macrotask, not a microtask). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function stopped(signal: AbortSignal): void {
  if (signal.aborted) throw new DOMException('the run was stopped', 'AbortError');
}

/** A case whose code threw "not implemented: ..." (an exercise not written yet) is marked so, as the Node harness does. */
function entry(c: BrowserCase<unknown>, comparator: string, verdict: CheckVerdict, reps: number, failedAt: Correctness['failedAt']): Correctness {
  return { variant: c.variant, params: c.params, passed: verdict.passed, comparator, reason: verdict.reason, notImplemented: /^error: not implemented: /.test(verdict.reason ?? ''), firstMismatch: verdict.firstMismatch, maxAbsError: verdict.maxAbsError, maxRelError: verdict.maxRelError, inputsChecked: reps, failedAt: verdict.passed ? null : failedAt };
}

function errorVerdict(error: unknown): CheckVerdict {
  return { passed: false, reason: `error: ${(error as Error)?.message ?? String(error)}`.slice(0, 2000), firstMismatch: null, maxAbsError: null, maxRelError: null };
}

/** The median time of an empty awaited sample: the floor under every sample (often 0 at the browser's resolution). */
async function emptySampleMs(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    const t0 = performance.now();
    await Promise.resolve();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[10]!;
}

function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]! & 0x7fffffff;
}

interface Timed<O> {
  c: BrowserCase<O>;
  handle: CaseHandle<O>;
  samplesMs: number[];
  rounds: number[];
  hidden: number[];
  observed: Map<string, number[]>;
  failed: boolean;
}

export async function runBrowserLab<O>(lab: BrowserLab<O>, options: RunOptions): Promise<Results> {
  const { signal, onProgress } = options;
  const startedAt = new Date().toISOString();
  onProgress('measuring the timer', 0);
  const timerResolutionMs = measureTimerResolution();
  const targetMs = sampleTargetMs(timerResolutionMs, lab.floorMs);
  const browser: BrowserEnvironment = {
    userAgent: navigator.userAgent.slice(0, 1000),
    hardwareConcurrency: navigator.hardwareConcurrency || 0,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    timerResolutionMs,
    sampleTargetMs: targetMs,
    ...(await webgpuInfo()),
  };
  const harnessOverheadMs = await emptySampleMs();
  const correctness: Correctness[] = [];
  const demonstrated: string[] = [];
  const timed: Timed<O>[] = [];
  const handles: CaseHandle<O>[] = [];
  const onAbort = (): void => handles.forEach((h) => h.teardown());
  signal.addEventListener('abort', onAbort, { once: true });
  const runnable = lab.cases.filter((c) => c.unavailable === null);
  if (!runnable.some((c) => c.demonstration === undefined)) throw new Error('this browser can run none of this lab\'s cases: see the lines above');
  const rounds = options.rounds ?? roundsFor(options.quick, lab);
  const repsOf = new Map<string, number>();
  const repsFor = (c: BrowserCase<unknown>): number => repsOf.get(c.sizeGroup ?? '') ?? 1;
  let probed: Record<string, RawObservation> = {};
  let probedCase: Timed<O> | null = null;
  try {
    // 2. Correct before timed.
    for (const [i, c] of runnable.entries()) {
      stopped(signal);
      onProgress(`checking ${c.variant} ${JSON.stringify(c.params)}`, (0.2 * i) / runnable.length);
      let handle: CaseHandle<O> | null = null;
      let stage: 'setup' | 'check' = 'setup';
      try {
        handle = await c.setup();
        handles.push(handle);
        stage = 'check';
        const verdict = lab.check(lab.expected(1, c.params), await handle.run(1));
        if (c.demonstration !== undefined) {
          demonstrated.push(`${c.demonstration}: ${verdict.passed ? `this time the check passed: ${c.demonstrationMissed?.() ?? 'the failure it shows did not happen; run again'}` : `the check failed, ${verdict.reason}`}. Not timed.`);
          continue;
        }
        correctness.push(entry(c, lab.comparator, verdict, 1, { stage, sample: null }));
        if (verdict.passed) timed.push({ c, handle, samplesMs: [], rounds: [], hidden: [], observed: new Map(), failed: false });
      } catch (error) {
        stopped(signal);
        correctness.push(entry(c, lab.comparator, errorVerdict(error), 1, { stage, sample: null }));
      }
      await nextTask();
    }
    // 3. Size the samples: each case's repetitions to reach the target, the most of its size group (its fastest
    //    case's) for all of the group; then warm every case up.
    stopped(signal);
    onProgress('sizing the samples', 0.2);
    for (const t of timed) {
      const group = t.c.sizeGroup ?? '';
      const reps = await calibrateRepetitions((n) => t.handle.run(n), { targetMs, resolutionMs: timerResolutionMs });
      repsOf.set(group, Math.max(repsOf.get(group) ?? 1, reps));
      stopped(signal);
      await nextTask();
    }
    onProgress('warming up', 0.22);
    for (const t of timed) {
      await t.handle.run(repsOf.get(t.c.sizeGroup ?? '')!);
      stopped(signal);
      await nextTask();
    }
    // 4. Interleaved rounds, each sample's output checked.
    const expectedOf = new Map<string, O>();
    const expectedFor = (reps: number, c: BrowserCase<O>): O => {
      const key = `${reps} ${JSON.stringify(c.params)}`;
      if (!expectedOf.has(key)) expectedOf.set(key, lab.expected(reps, c.params));
      return expectedOf.get(key)!;
    };
    for (let round = 0; round < rounds; round++) {
      const live = timed.filter((t) => !t.failed);
      for (let k = 0; k < live.length; k++) {
        const t = live[(k + round) % live.length]!;
        stopped(signal);
        onProgress(`round ${round + 1} of ${rounds}: ${t.c.variant} ${JSON.stringify(t.c.params)}`, 0.25 + (0.7 * (round * live.length + k)) / (rounds * live.length));
        let visibilityChanged = false;
        const onVisibility = (): void => {
          visibilityChanged = true;
        };
        document.addEventListener('visibilitychange', onVisibility);
        const hiddenAtStart = document.hidden;
        lab.observers?.forEach((o) => o.start());
        let output: O;
        const reps = repsFor(t.c);
        const t0 = performance.now();
        try {
          output = await t.handle.run(reps);
        } catch (error) {
          document.removeEventListener('visibilitychange', onVisibility);
          stopped(signal);
          t.failed = true;
          correctness.splice(correctness.findIndex((e) => sameCase(e, t.c)), 1, entry(t.c, lab.comparator, errorVerdict(error), reps, { stage: 'measure', sample: t.samplesMs.length }));
          continue;
        }
        const elapsed = performance.now() - t0;
        for (const o of lab.observers ?? []) {
          const values = await o.stop();
          t.observed.set(o.name, [...(t.observed.get(o.name) ?? []), ...values]);
        }
        document.removeEventListener('visibilitychange', onVisibility);
        const verdict = lab.check(expectedFor(reps, t.c), output);
        if (!verdict.passed) {
          t.failed = true;
          const at = correctness.findIndex((e) => sameCase(e, t.c));
          correctness.splice(at, 1, entry(t.c, lab.comparator, verdict, reps, { stage: 'measure', sample: t.samplesMs.length }));
          continue;
        }
        t.samplesMs.push(elapsed);
        t.rounds.push(round);
        t.hidden.push(hiddenAtStart || document.hidden || visibilityChanged ? 1 : 0);
        await nextTask();
      }
    }
    // 5. The lab's probe of the machine, once, after every sample: recorded on the headline case.
    probedCase = timed.find((t) => !t.failed && t.samplesMs.length > 0 && sameCase(lab.headline, t.c)) ?? null;
    if (lab.afterSamples && probedCase) {
      stopped(signal);
      onProgress('probing the peak', 0.95);
      await nextTask();
      probed = await lab.afterSamples(signal);
      stopped(signal);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    handles.forEach((h) => h.teardown());
  }
  // 6. The harness's analysis.
  onProgress('computing intervals', 0.96);
  await nextTask();
  const { environment, cpus, topology } = runEnvironment(browser);
  const seed = randomSeed();
  const resamples = options.quick ? 1000 : 2000;
  const inputs: AnalysisInput[] = timed
    .filter((t) => !t.failed && t.samplesMs.length > 0)
    .map((t) => ({
      variant: t.c.variant,
      params: t.c.params,
      ...(t.c.workers !== undefined ? { workers: t.c.workers } : {}),
      samplesMs: t.samplesMs,
      sampleRounds: t.rounds,
      workPerSample: { amount: repsFor(t.c), unit: lab.workUnit },
      sample: { item: lab.workUnit.replace(/s$/, ''), itemsPerSample: repsFor(t.c) },
      observations: {
        ...Object.fromEntries((lab.observers ?? []).map((o) => [o.name, { unit: o.unit, description: o.description, samples: t.observed.get(o.name) ?? [] }])),
        ...(t === probedCase ? probed : {}),
        hiddenTab: { unit: 'flag', description: '1 for a sample taken while the tab was hidden or changed visibility (the browser throttles timers in background tabs), 0 otherwise', samples: t.hidden },
      },
    }));
  const analysis = analyzeRun(inputs, { baseline: lab.baseline, headline: lab.headline, seed, resamples, availableParallelism: cpus.available, grading: null });
  const hiddenSamples = timed.reduce((sum, t) => sum + t.hidden.reduce((a, b) => a + b, 0), 0);
  const skipped = lab.cases.filter((c) => c.unavailable !== null).map((c) => `${c.variant} ${JSON.stringify(c.params)} was not run: ${c.unavailable}`);
  const notes = [
    `Timer resolution ${timerResolutionMs.toPrecision(3)} ms (${browser.crossOriginIsolated ? 'cross-origin isolated' : 'not cross-origin isolated'}); each sample was sized to at least ${targetMs.toPrecision(3)} ms (${[...repsOf.values()].join(', ')} ${lab.workUnit} per sample) so the resolution is under 1 % of it.`,
    ...(hiddenSamples > 0 ? [`${hiddenSamples} samples were taken while the tab was hidden (observation hiddenTab = 1): background tabs are throttled, so treat those cases' times with care.`] : []),
    ...skipped,
    ...demonstrated,
    ...lab.notes,
  ];
  const results = buildResults(
    {
      lab: lab.lab,
      runtime: 'browser',
      title: lab.title,
      impl: lab.impl ?? 'solution',
      quick: options.quick,
      startedAt,
      finishedAt: new Date().toISOString(),
      command: `in-page lab at ${location.pathname}${options.quick ? ' (quick)' : ''}${options.rounds !== undefined ? ` (${rounds} rounds, set by the page)` : ''}`.slice(0, 2000),
      baseline: lab.baseline,
      sweeps: lab.sweeps ?? [],
      seed,
      bootstrapResamples: resamples,
      harnessOverheadMs,
      environment,
      cpus,
      topology,
      correctness,
      notes: notes.map((n) => n.slice(0, 2000)),
    },
    analysis,
  );
  results.notes.push(...(lab.summarize?.(results) ?? []).map((n) => n.slice(0, 2000)));
  onProgress('done', 1);
  return results;
}
