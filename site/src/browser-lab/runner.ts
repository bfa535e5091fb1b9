/**
 * The in-page lab runner: the harness's method in the learner's browser.
 *   1. measure the timer's resolution and size every sample so it is under 1 % of it (both recorded);
 *   2. run every case once and check its output against its expected output: only cases that pass are timed;
 *   3. size every sample by repetitions grown until the clock can see them (timer.ts), warm every case up;
 *   4. interleaved rounds (every case once per round, the order rotated), every sample's output checked, samples
 *      taken while the tab was hidden marked (browsers throttle background tabs);
 *   5. the lab's probe of the machine, if it has one (afterSamples: episode 07's WebAssembly SIMD peak), once, after
 *      every sample, recorded as observations of the headline case;
 *   6. the harness's own analysis (medians, intervals, speedups, efficiency, Amdahl) on the samples, so the file is
 *      what `npm run report -- validate` recomputes.
 * Stop aborts between samples and tears every case down at once (workers terminated).
 */
import { analyzeRun, buildResults, formatSignificant, median, sameCase, type AnalysisInput, type BrowserEnvironment, type RawObservation, type Results } from './core-adapter.ts';
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
  return median(times);
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

/** What the stages of one run share: the lab, the clock's limits and what each case has given so far. */
interface RunState<O> {
  lab: BrowserLab<O>;
  signal: AbortSignal;
  onProgress: RunOptions['onProgress'];
  timerResolutionMs: number;
  /** Every sample is sized to at least this (ms), so the timer's resolution is under 1 % of it. */
  targetMs: number;
  correctness: Correctness[];
  /** The demonstration cases' lines (shown, never timed). */
  demonstrated: string[];
  timed: Timed<O>[];
  /** Every case set up, torn down at the end or on Stop. */
  handles: CaseHandle<O>[];
  /** Repetitions per sample of each size group ('' for a case without one). */
  repsOf: Map<string, number>;
}

function repsFor(state: RunState<unknown>, c: BrowserCase<unknown>): number {
  return state.repsOf.get(c.sizeGroup ?? '') ?? 1;
}

/** 1. The timer's resolution, the sample size it asks for and the browser the run is in. */
async function measureBrowser(lab: BrowserLab<unknown>): Promise<{ browser: BrowserEnvironment; timerResolutionMs: number; targetMs: number }> {
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
  return { browser, timerResolutionMs, targetMs };
}

/** 2. Correct before timed: every case set up and run once; only those whose output passes the check are timed. */
async function checkCases<O>(state: RunState<O>, runnable: readonly BrowserCase<O>[]): Promise<void> {
  const { lab, signal } = state;
  for (const [i, c] of runnable.entries()) {
    stopped(signal);
    state.onProgress(`checking ${c.variant} ${JSON.stringify(c.params)}`, (0.2 * i) / runnable.length);
    let stage: 'setup' | 'check' = 'setup';
    try {
      const handle = await c.setup();
      state.handles.push(handle);
      stage = 'check';
      const verdict = lab.check(lab.expected(1, c.params), await handle.run(1));
      if (c.demonstration !== undefined) {
        state.demonstrated.push(`${c.demonstration}: ${verdict.passed ? `this time the check passed: ${c.demonstrationMissed?.() ?? 'the failure it shows did not happen; run again'}` : `the check failed, ${verdict.reason}`}. Not timed.`);
        continue;
      }
      state.correctness.push(entry(c, lab.comparator, verdict, 1, { stage, sample: null }));
      if (verdict.passed) state.timed.push({ c, handle, samplesMs: [], rounds: [], hidden: [], observed: new Map(), failed: false });
    } catch (error) {
      stopped(signal);
      state.correctness.push(entry(c, lab.comparator, errorVerdict(error), 1, { stage, sample: null }));
    }
    await nextTask();
  }
}

/**
 * 3. Size the samples: each case's repetitions to reach the target, the most of its size group (its fastest case's)
 * for all of the group; then warm every case up.
 */
async function sizeAndWarm(state: RunState<unknown>): Promise<void> {
  stopped(state.signal);
  state.onProgress('sizing the samples', 0.2);
  for (const t of state.timed) {
    const group = t.c.sizeGroup ?? '';
    const reps = await calibrateRepetitions((n) => t.handle.run(n), { targetMs: state.targetMs, resolutionMs: state.timerResolutionMs });
    state.repsOf.set(group, Math.max(state.repsOf.get(group) ?? 1, reps));
    stopped(state.signal);
    await nextTask();
  }
  state.onProgress('warming up', 0.22);
  for (const t of state.timed) {
    await t.handle.run(repsFor(state, t.c));
    stopped(state.signal);
    await nextTask();
  }
}

/** A case that failed while timed: its correctness entry says where (the sample), and it is timed no more. */
function failTimed<O>(state: RunState<O>, t: Timed<O>, verdict: CheckVerdict, reps: number): void {
  t.failed = true;
  const at = state.correctness.findIndex((e) => sameCase(e, t.c));
  state.correctness.splice(at, 1, entry(t.c, state.lab.comparator, verdict, reps, { stage: 'measure', sample: t.samplesMs.length }));
}

/** One timed sample of one case, its output checked; marked hidden when the tab was hidden at any moment of it. */
async function takeSample<O>(state: RunState<O>, t: Timed<O>, round: number, expectedFor: (reps: number, c: BrowserCase<O>) => O): Promise<void> {
  const { lab } = state;
  let visibilityChanged = false;
  const onVisibility = (): void => {
    visibilityChanged = true;
  };
  document.addEventListener('visibilitychange', onVisibility);
  const hiddenAtStart = document.hidden;
  lab.observers?.forEach((o) => o.start());
  let output: O;
  const reps = repsFor(state, t.c);
  const t0 = performance.now();
  try {
    output = await t.handle.run(reps);
  } catch (error) {
    document.removeEventListener('visibilitychange', onVisibility);
    stopped(state.signal);
    failTimed(state, t, errorVerdict(error), reps);
    return;
  }
  const elapsed = performance.now() - t0;
  for (const o of lab.observers ?? []) {
    const values = await o.stop();
    t.observed.set(o.name, [...(t.observed.get(o.name) ?? []), ...values]);
  }
  document.removeEventListener('visibilitychange', onVisibility);
  const verdict = lab.check(expectedFor(reps, t.c), output);
  if (!verdict.passed) {
    failTimed(state, t, verdict, reps);
    return;
  }
  for (const [name, values] of Object.entries(t.handle.observed?.() ?? {})) t.observed.set(name, [...(t.observed.get(name) ?? []), ...values]);
  t.samplesMs.push(elapsed);
  t.rounds.push(round);
  t.hidden.push(hiddenAtStart || document.hidden || visibilityChanged ? 1 : 0);
}

/** 4. Interleaved rounds: every live case once per round, the order rotated, each sample's output checked. */
async function runRounds<O>(state: RunState<O>, rounds: number): Promise<void> {
  const expectedOf = new Map<string, O>();
  const expectedFor = (reps: number, c: BrowserCase<O>): O => {
    const key = `${reps} ${JSON.stringify(c.params)}`;
    if (!expectedOf.has(key)) expectedOf.set(key, state.lab.expected(reps, c.params));
    return expectedOf.get(key)!;
  };
  for (let round = 0; round < rounds; round++) {
    const live = state.timed.filter((t) => !t.failed);
    for (let k = 0; k < live.length; k++) {
      const t = live[(k + round) % live.length]!;
      stopped(state.signal);
      state.onProgress(`round ${round + 1} of ${rounds}: ${t.c.variant} ${JSON.stringify(t.c.params)}`, 0.25 + (0.7 * (round * live.length + k)) / (rounds * live.length));
      await takeSample(state, t, round, expectedFor);
      if (!t.failed) await nextTask();
    }
  }
}

/** The lab's probe of the machine: its observations and the headline case they are recorded on. */
interface Probe<O> {
  probed: Record<string, RawObservation>;
  probedCase: Timed<O> | null;
}

/** 5. The lab's probe of the machine, once, after every sample (episode 07's WebAssembly SIMD peak). */
async function probeMachine<O>(state: RunState<O>): Promise<Probe<O>> {
  const { lab, signal } = state;
  const probedCase = state.timed.find((t) => !t.failed && t.samplesMs.length > 0 && sameCase(lab.headline, t.c)) ?? null;
  if (!lab.afterSamples || !probedCase) return { probed: {}, probedCase };
  stopped(signal);
  state.onProgress('probing the peak', 0.95);
  await nextTask();
  const probed = await lab.afterSamples(signal);
  stopped(signal);
  return { probed, probedCase };
}

/** 6a. Each timed case's samples, work and observations, as the core's analysis takes them. */
function analysisInputs<O>(state: RunState<O>, probe: Probe<O>): AnalysisInput[] {
  const { lab } = state;
  return state.timed
    .filter((t) => !t.failed && t.samplesMs.length > 0)
    .map((t) => ({
      variant: t.c.variant,
      params: t.c.params,
      ...(t.c.workers !== undefined ? { workers: t.c.workers } : {}),
      samplesMs: t.samplesMs,
      sampleRounds: t.rounds,
      workPerSample: { amount: repsFor(state, t.c), unit: lab.workUnit },
      sample: { item: lab.workUnit.replace(/s$/, ''), itemsPerSample: repsFor(state, t.c) },
      observations: {
        ...Object.fromEntries((lab.observers ?? []).map((o) => [o.name, { unit: o.unit, description: o.description, samples: t.observed.get(o.name) ?? [] }])),
        ...Object.fromEntries(Object.entries(t.c.observes ?? {}).map(([name, o]) => [name, { ...o, samples: t.observed.get(name) ?? [] }])),
        ...(t === probe.probedCase ? probe.probed : {}),
        hiddenTab: { unit: 'flag', description: '1 for a sample taken while the tab was hidden or changed visibility (the browser throttles timers in background tabs), 0 otherwise', samples: t.hidden },
      },
    }));
}

/** 6b. The file's notes: the clock and the sample size, hidden-tab samples, cases not run, demonstrations, the lab's. */
function runNotes(state: RunState<unknown>, crossOriginIsolated: boolean): string[] {
  const { lab } = state;
  const hiddenSamples = state.timed.reduce((sum, t) => sum + t.hidden.reduce((a, b) => a + b, 0), 0);
  const skipped = lab.cases.filter((c) => c.unavailable !== null).map((c) => `${c.variant} ${JSON.stringify(c.params)} was not run: ${c.unavailable}`);
  return [
    `Timer resolution ${formatSignificant(state.timerResolutionMs)} ms (${crossOriginIsolated ? 'cross-origin isolated' : 'not cross-origin isolated'}); each sample was sized to at least ${formatSignificant(state.targetMs)} ms (${[...state.repsOf.values()].join(', ')} ${lab.workUnit} per sample) so the resolution is under 1 % of it.`,
    ...(hiddenSamples > 0 ? [`${hiddenSamples} samples were taken while the tab was hidden (observation hiddenTab = 1): background tabs are throttled, so treat those cases' times with care.`] : []),
    ...skipped,
    ...state.demonstrated,
    ...lab.notes,
  ];
}

export async function runBrowserLab<O>(lab: BrowserLab<O>, options: RunOptions): Promise<Results> {
  const { signal, onProgress } = options;
  const startedAt = new Date().toISOString();
  onProgress('measuring the timer', 0);
  const { browser, timerResolutionMs, targetMs } = await measureBrowser(lab);
  const harnessOverheadMs = await emptySampleMs();
  const state: RunState<O> = { lab, signal, onProgress, timerResolutionMs, targetMs, correctness: [], demonstrated: [], timed: [], handles: [], repsOf: new Map() };
  const onAbort = (): void => state.handles.forEach((h) => h.teardown());
  signal.addEventListener('abort', onAbort, { once: true });
  const runnable = lab.cases.filter((c) => c.unavailable === null);
  if (!runnable.some((c) => c.demonstration === undefined)) throw new Error('this browser can run none of this lab\'s cases: see the lines above');
  const rounds = options.rounds ?? roundsFor(options.quick, lab);
  let probe: Probe<O>;
  try {
    await checkCases(state, runnable);
    await sizeAndWarm(state);
    await runRounds(state, rounds);
    probe = await probeMachine(state);
  } finally {
    signal.removeEventListener('abort', onAbort);
    state.handles.forEach((h) => h.teardown());
  }
  // 6. The harness's analysis.
  onProgress('computing intervals', 0.96);
  await nextTask();
  const { environment, cpus, topology } = runEnvironment(browser);
  const seed = randomSeed();
  const resamples = options.quick ? 1000 : 2000;
  const analysis = analyzeRun(analysisInputs(state, probe), { baseline: lab.baseline, headline: lab.headline, seed, resamples, availableParallelism: cpus.available, grading: null });
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
      correctness: state.correctness,
      notes: runNotes(state, browser.crossOriginIsolated).map((n) => n.slice(0, 2000)),
    },
    analysis,
  );
  results.notes.push(...(lab.summarize?.(results) ?? []).map((n) => n.slice(0, 2000)));
  onProgress('done', 1);
  return results;
}
