/**
 * The supervisor: runs the runner (run-child.ts) in a child process of its own process group and bounds every call
 * the runner announces. The harness's own event loop is never the one learner code can block.
 *
 * When a call overruns its limit, or the runner ends without finishing (`process.exit` in learner code, a native
 * crash, an uncaught error), the whole process group is killed (the lab's servers and pools with it), the case that
 * was running fails with the reason and the learner file named, and the run starts again without that case, as
 * JMH forks a fresh JVM: no state of the failed attempt colours the next. Each attempt drops at least one more
 * variant, so a run ends after at most MAX_ATTEMPTS attempts.
 *
 * A `--grade` run has 1 + 2F runners per attempt (run-attempt.ts each; F = run-cases.ts GRADE_FORKS): F forks of the
 * solution's, which sets up only the solution's copies of the graded cases and so never loads a learner module; F
 * forks of the learner's graded cases', each mirroring its solution fork (the same cases in the same order, the
 * learner's code), so the two sides of a graded pair are alike by construction and fresh processes on both sides
 * (JMH's forks: a process's own speed shows between forks); and the learner's, with every other case. Each fork checks
 * its cases (a case passes only if it passed in every fork). They meet for the measure stage (measure-meeting.ts),
 * where the judge interleaves their samples. A case that ends one ends them all.
 *
 * The stop signals (errors.ts STOP_SIGNALS: SIGINT, SIGTERM, SIGHUP) end the runners' process groups and the run;
 * nothing is written (run/check-and-measure.ts says so).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readSandboxNeeds, sandboxExecArgv, sandboxGrants } from './sandbox.ts';
import { osSandboxNote, probeOsSandbox, sandboxLimits } from './os-sandbox.ts';
import { competingLoadNote } from '../measure/competing-load.ts';
import type { CorrectnessEntry } from '@parallel-course/core';
import type { LabInfo, RunJob, RunnerSide } from '../measure/run-protocol.ts';
import { runAttempt } from './run-attempt.ts';
import { failedEntry, type AttemptOutcome } from './attempt-outcome.ts';
import { killGroup } from './runner-process.ts';
import { MeasureMeeting } from '../measure/measure-meeting.ts';
import { changedFiles, fingerprintFiles } from './solution-fingerprint.ts';
import { CheckJudge } from '../measure/check-judge.ts';
import { caseKey } from '@parallel-course/core';
import { STOP_SIGNALS } from '../errors.ts';
import { gradeForks } from '../measure/run-cases.ts';

export { effectiveLimitMs, LIMIT_GRACE_MS, MEMORY_POLL_MS } from './attempt-watchdog.ts';
/**
 * Attempts of one run at most. Each attempt after the first runs without the variant whose case ended the process
 * before it, so a lab with V variants needs at most V + 1; this caps the time a badly broken exercise costs.
 */
export const MAX_ATTEMPTS = 5;
/** How long SIGTERM'd processes get before SIGKILL when the run is interrupted, in ms. */
export const INTERRUPT_GRACE_MS = 1_500;
/** The flag that lets an instructor grade trusted code where no OS sandbox can start. */
export const TRUSTED_CODE_FLAG = '--trusted-code';

export type { LabInfo };

export type { MeasuredData, SupervisedRun, SuperviseOptions } from '../measure/supervised-run.ts';
import type { SupervisedRun, SuperviseOptions } from '../measure/supervised-run.ts';

/** The message of a graded job where no OS sandbox can start. */
export function notSandboxedMessage(reason: string): string {
  return (
    `not sandboxed: not a grade. bubblewrap cannot wall in the learner's code here (${reason}). ` +
    `Practise without --grade, grade on a Linux machine with bubblewrap (apt install bubblewrap), or, as an instructor grading code you trust, pass ${TRUSTED_CODE_FLAG}.`
  );
}

/** A signal after the run was already interrupted: it is that same interruption, still being wound up. */
function ignoreRepeatedSignal(): void {}

/** Runs a job under supervision; never throws for anything learner code does. */
export async function supervise(options: SuperviseOptions): Promise<SupervisedRun> {
  const run: SupervisedRun = { lab: options.cases.info, correctness: [], measured: new Map(), harnessOverheadMs: null, fatal: null, interrupted: null, notes: [], competingCpus: new Map() };
  const entries = new Map<string, CorrectnessEntry>();
  const failedKeys = new Set<string>();
  /** The runner processes of the attempt under way (1 + 2F in a graded run: the learner's, F forks of its graded cases', F of the solution's). */
  let current: ChildProcess[] = [];

  const onSignal = (signal: NodeJS.Signals) => {
    run.interrupted ??= signal;
    for (const child of current) {
      killGroup(child, 'SIGTERM');
      setTimeout(() => killGroup(child, 'SIGKILL'), INTERRUPT_GRACE_MS).unref();
    }
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  const onStop = () => onSignal('SIGTERM');
  if (options.stop?.aborted) onStop();
  options.stop?.addEventListener('abort', onStop);
  // A graded run measures the solution's copies of the graded cases in runners of their own, which never load a
  // learner module (and the learner's runners then need no read of solutions/), and the learner's graded cases in
  // runners that mirror them (run-cases.ts runnerSideOf), F fresh processes a side (forks); a practice run has one runner.
  const graded = options.job.grade === true && !options.job.checkOnly;
  const forks = graded ? gradeForks(options.job) : 1;
  const sides: { name: RunnerSide; impl: RunJob['impl']; fork: number }[] = [{ name: 'learner', impl: options.job.impl, fork: 0 }];
  for (let fork = 0; graded && fork < forks; fork++) sides.push({ name: 'graded', impl: options.job.impl, fork }, { name: 'solution', impl: 'solution', fork });
  // The walls, outer then inner: the OS sandbox and its limits (os-sandbox.ts), then Node's permissions (sandbox.ts).
  const probe = probeOsSandbox();
  const limits = { ...sandboxLimits(options.job.availableParallelism, run.lab.memoryBytes), ...options.limits };
  run.notes.push(osSandboxNote(probe, limits, sides.length));
  const needs = readSandboxNeeds(options.job.rootDir, options.job.lab);
  // A folder granted to the runner must exist when it starts: Node resolves the grants then (a missing one is a file).
  for (const w of needs.writes) mkdirSync(path.join(options.job.rootDir, 'labs', options.job.lab, w), { recursive: true });
  const tmpDirs: string[] = [];
  // Also on a signal that ends this process before the finally below runs (SIGTERM from scancel or a --time limit).
  const removeTmpDir = () => tmpDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  process.once('exit', removeTmpDir);
  const runners = sides.map((side) => {
    // Each runner's own temp folder: with the lab's declared folders, the only place its code may write (sandbox.ts).
    const tmpDir = mkdtempSync(path.join(os.tmpdir(), `lab-run-${options.job.lab}-`));
    tmpDirs.push(tmpDir);
    const sandboxOptions = { rootDir: options.job.rootDir, lab: options.job.lab, impl: side.impl, grade: options.job.grade === true && !graded, tmpDir, needs };
    const wall = probe.available ? { probe, grants: sandboxGrants(sandboxOptions), needs, limits, cwd: options.job.rootDir } : null;
    return { side, sandbox: { execArgv: sandboxExecArgv(sandboxOptions), tmpDir, wall, limits } };
  });
  // The judge's own copy of the cases (lab code only, never a learner module): it compares the check outputs the
  // runners send (check-judge.ts CheckJudge); the measure stage's output judge is made from the same (measure-meeting.ts).
  const { definition, ctx, definitions } = options.cases;
  const checks = new CheckJudge(definition, ctx, new Map(definitions.map((d) => [caseKey(d), d])));
  if (!probe.available && options.job.grade && !options.trustedCode) {
    run.fatal = { kind: 'usage', message: notSandboxedMessage(probe.reason) };
  } else if (!probe.available && options.job.grade) {
    run.notes.push(`Graded without an OS sandbox (${TRUSTED_CODE_FLAG}): the code was trusted, not walled in.`);
  }

  /** One attempt: every runner started, met for the measure stage; the first case that ends a runner ends them all. */
  const attempt1 = async (job: RunJob, parties: typeof runners): Promise<AttemptOutcome> => {
    let stopped = false;
    const meeting = new MeasureMeeting(parties.length, run, entries, options, (key, reason, stage, sample) => {
      const info = run.lab.cases.find((c) => c.key === key);
      if (info) entries.set(key, failedEntry(info, `${reason}${info.learnerFile ? `. Look at ${info.learnerFile}.` : ''}`, entries.get(key), stage, sample));
    });
    // The check's inputs and expected outputs, no longer needed once the judge measures (it makes its own).
    meeting.beforeMeasure = () => checks.release();
    current = [];
    const outcomes = await Promise.all(
      parties.map(async ({ side, sandbox }) => {
        const sideJob: RunJob = graded ? { ...job, impl: side.impl, side: side.name } : job;
        const outcome = await runAttempt(sideJob, options, run, entries, (child) => current.push(child), sandbox, { name: side.name, fork: side.fork, meeting, stopped: () => stopped }, checks);
        if ((outcome.kind === 'case-ended' || run.fatal) && !stopped) {
          stopped = true;
          for (const child of current) killGroup(child, 'SIGKILL');
        }
        return outcome;
      }),
    );
    current = [];
    return outcomes.find((o) => o.kind === 'case-ended') ?? { kind: 'finished' };
  };

  // The solution's build outputs (native addons built from solutions/<lab>), fingerprinted before any learner code
  // runs and again after the run: the grade is a ratio to the solution only if it ran what was built.
  const solutionBuild = options.job.grade ? fingerprintFiles(run.lab.solutionBuildOutputs) : null;
  try {
    for (let attempt = 1; !run.interrupted && !run.fatal; attempt++) {
      const job: RunJob = { ...options.job, exclude: [...failedKeys], caseKeys: run.lab.cases.map((c) => c.key), ...(options.limitScale !== undefined ? { limitScale: options.limitScale } : {}) };
      const outcome = await attempt1(job, runners);
      if (outcome.kind === 'finished' || run.fatal || run.interrupted) break;
      // A case ended the process: start again without it and without the rest of its variant (the same code would
      // most likely end it again, one restart per chunk size), and without the cases that failed their check.
      failedKeys.add(outcome.caseKey);
      for (const info of run.lab.cases) {
        if (info.variant !== outcome.variant || info.key === outcome.caseKey || failedKeys.has(info.key)) continue;
        failedKeys.add(info.key);
        entries.set(info.key, failedEntry(info, `skipped: ${outcome.label} of the same variant ended the lab process; fix that first`, undefined, 'check', null));
      }
      for (const [key, entry] of entries) if (!entry.passed) failedKeys.add(key);
      run.measured.clear();
      run.competingCpus.clear();
      run.harnessOverheadMs = null;
      if (attempt >= MAX_ATTEMPTS) {
        const left = (run.lab.cases).filter((c) => !failedKeys.has(c.key));
        for (const info of left) {
          entries.set(info.key, failedEntry(info, `not measured: the lab process had to be ended ${attempt} times in this run; fix the cases above first`, entries.get(info.key), 'check', null));
        }
        run.notes.push(`The run stopped after ${attempt} attempts: each ended a lab process that overran or crashed.`);
        break;
      }
      const line = `restarting the lab process without ${outcome.variant} (attempt ${attempt + 1} of at most ${MAX_ATTEMPTS})`;
      options.onEvent?.(line);
      run.notes.push(`The lab process was restarted without ${outcome.variant}, after ${outcome.label} ended it; every other case was checked and measured again from the start.`);
    }
  } finally {
    // Once interrupted, for good: Slurm's --time limit can send SIGTERM twice, and a second one after these handlers
    // went killed this process with no word while its caller was about to say so.
    if (run.interrupted) for (const s of STOP_SIGNALS) process.on(s, ignoreRepeatedSignal);
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
    options.stop?.removeEventListener('abort', onStop);
    removeTmpDir();
    process.removeListener('exit', removeTmpDir);
  }
  const changed = solutionBuild ? changedFiles(solutionBuild, fingerprintFiles(run.lab.solutionBuildOutputs)) : [];
  if (changed.length > 0 && !run.fatal && !run.interrupted) {
    const files = changed.map((f) => path.relative(options.job.rootDir, f)).join(', ');
    run.fatal = {
      kind: 'usage',
      message:
        `not a grade: the solution's build output changed during the run (${files}), so the solution measured may not be the one built. ` +
        `Something in the run wrote it (code that runs when a module loads, such as a native static initializer, or a build while the run went on). ` +
        `Rebuild it (npm ci builds every lab's native code again) and grade again; look at the learner's files.`,
    };
  }
  const load = competingLoadNote(run.competingCpus);
  if (load !== null) run.notes.push(load);
  const order = run.lab.cases.map((c) => c.key);
  run.correctness = order.filter((k) => entries.has(k)).map((k) => entries.get(k) as CorrectnessEntry);
  return run;
}

