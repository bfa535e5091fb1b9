/**
 * A signal after the measuring (SIGINT, SIGTERM from scancel or a Slurm --time limit, SIGHUP), while the statistics
 * are computed and the results and reports are written. The supervisor handles signals while its runners are alive
 * (supervisor.ts); without this guard a signal here killed the process with no word, and could leave a run folder
 * with results.json but half its reports. Here, before the run's folder is whole, the run ends as one interrupted while
 * measuring does: the folder the write stage made for this run (new, never a learner's earlier one; none before that
 * stage) is removed; once it is whole (written()), it is kept and the line says where. One line says so either way,
 * and the exit code is 128 + the signal's number.
 */
import { rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { exitCodeForSignal, STOP_SIGNALS } from '../errors.ts';
import type { RunStart } from './open.ts';

export interface LastStagesGuard {
  /** The write stage names each folder it makes for this run, the moment it exists: a signal removes it. */
  made(dir: string): void;
  /**
   * The run's folder is whole (results.json and its reports): a signal from here on ends the run but keeps it, and
   * says how to make the lab's analysis that was under way.
   */
  written(dir: string): void;
  /** Lifts the guard once the run is written (or has ended without results). */
  lift(): void;
}

/** Guards the run's last stages (run/results.ts, run/write.ts) until `lift()`. */
export function guardLastStages(start: Pick<RunStart, 'outRoot' | 'options' | 'command' | 'print' | 'progress'>): LastStagesGuard {
  const labDir = path.join(start.outRoot, start.options.lab);
  const made: string[] = [];
  let whole: string | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    start.progress.stop();
    if (whole !== null) {
      start.print(`Interrupted (${signal}) after the results were written: they are kept in ${whole}; the lab's analysis may be missing (make it with: npm run analyse -- ${whole}).`);
      process.exit(exitCodeForSignal(signal));
    }
    for (const dir of made) {
      rmSync(dir, { recursive: true, force: true });
      if (path.dirname(dir) !== labDir) continue; // the temporary folder of a write that fell back
      try {
        rmdirSync(labDir); // the lab's folder too, when this run was its only one
      } catch {
        // not empty (earlier runs, another run's folder): nothing of a learner's is ever removed
      }
    }
    const kept = made.length > 0 ? "this run's folder was removed, so no half-made results were kept" : 'no results were kept';
    start.print(
      `Interrupted (${signal}) while the results were being written: ${kept}; earlier runs under ${labDir} are untouched. Rerun with: ${start.command}`,
    );
    process.exit(exitCodeForSignal(signal));
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return {
    made: (dir) => void made.push(dir),
    written: (dir) => {
      whole = dir;
    },
    lift: () => {
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    },
  };
}
