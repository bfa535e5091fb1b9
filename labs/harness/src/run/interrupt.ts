/**
 * A signal after the measuring (SIGINT, SIGTERM from scancel or a Slurm --time limit, SIGHUP), while the statistics
 * are computed and the results and reports are written. The supervisor handles signals while its runners are alive
 * (supervisor.ts); without this guard a signal here killed the process with no word, and could leave a run folder
 * with results.json but half its reports. Here the run ends as one interrupted while measuring does: the folder the
 * write stage made for this run (new, never a learner's earlier one; none before that stage) is removed, one line says
 * so, and the exit code is 128 + the signal's number.
 */
import { rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { exitCodeForSignal, STOP_SIGNALS } from '../errors.ts';
import type { RunStart } from './open.ts';

export interface LastStagesGuard {
  /** The write stage names each folder it makes for this run, the moment it exists: a signal removes it. */
  made(dir: string): void;
  /** Lifts the guard once the run is written (or has ended without results). */
  lift(): void;
}

/** Guards the run's last stages (run/results.ts, run/write.ts) until `lift()`. */
export function guardLastStages(start: Pick<RunStart, 'outRoot' | 'options' | 'command' | 'print' | 'progress'>): LastStagesGuard {
  const labDir = path.join(start.outRoot, start.options.lab);
  const made: string[] = [];
  const onSignal = (signal: NodeJS.Signals) => {
    start.progress.stop();
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
    lift: () => {
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    },
  };
}
