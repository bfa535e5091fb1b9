/**
 * A run's third stage: check every case against its expected output, then measure, in a supervised child process
 * (learner code cannot block this one).
 * In: RunStart, DeclaredRun. Out: the supervised run, or the outcome of a run a signal ended (its summary printed).
 */
import path from 'node:path';
import { exitCodeForSignal, LabLoadError } from '../errors.ts';
import { supervise, type SupervisedRun } from '../supervise/supervisor.ts';
import { formatCheckReport } from './check-report.ts';
import type { DeclaredRun } from './declare.ts';
import type { RunLabOutcome, RunStart } from './open.ts';

export async function checkAndMeasure(start: RunStart, declared: DeclaredRun): Promise<{ run: SupervisedRun } | { outcome: RunLabOutcome }> {
  const { options, progress, print } = start;
  let phase = '';
  const run = await supervise({
    job: declared.job,
    cases: declared.cases,
    forwardOutput: !options.silent,
    onProgress: (p) => {
      if (p.phase !== phase) {
        phase = p.phase;
        progress.stage(p.phase === 'check' ? `Checking ${p.total} cases against their expected outputs...` : p.phase === 'warm-up' ? 'Measuring: warm-up, then interleaved rounds...' : '');
      }
      progress.update(p.done, p.total, p.label);
    },
    onEvent: (line) => {
      progress.stop();
      print(`stopped: ${line}`);
    },
    ...(options.limitScale !== undefined ? { limitScale: options.limitScale } : {}),
    ...(options.trustedCode ? { trustedCode: true } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  progress.stop();
  if (run.fatal) {
    if (run.fatal.kind === 'usage') throw new LabLoadError(run.fatal.message);
    throw new Error(run.fatal.message);
  }
  if (run.interrupted) {
    const summary =
      `Interrupted (${run.interrupted}): the lab's processes were stopped and no results were written for this run; ` +
      `earlier runs under ${path.join(start.outRoot, options.lab)} are untouched. Rerun with: ${start.command}`;
    print(summary);
    return { outcome: { exitCode: exitCodeForSignal(run.interrupted), results: null, runDir: null, correctness: run.correctness, summary } };
  }
  for (const note of run.lab.notes) print(`note: ${note}`);
  print(formatCheckReport(run.correctness, run.lab.name, options.impl));
  return { run };
}
