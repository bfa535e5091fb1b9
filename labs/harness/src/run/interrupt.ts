/**
 * A signal after the measuring (SIGINT, SIGTERM from scancel or a Slurm --time limit, SIGHUP), while the statistics
 * are computed and the results and reports are written. The supervisor handles signals while its runners are alive
 * (supervisor.ts); without this guard a signal here killed the process with no word, and could leave a run folder
 * with results.json but half its reports. Here the run ends as one interrupted while measuring does: its own run
 * folder (made new by openRun, never a learner's earlier one) is removed, one line says so, and the exit code is
 * 128 + the signal's number.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { exitCodeForSignal } from '../errors.ts';
import { removeIfEmpty } from '../write/results-writer.ts';
import type { RunStart } from './open.ts';

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Guards the run's last stages; returns the function that lifts the guard once the run is written. */
export function guardLastStages(start: Pick<RunStart, 'runDir' | 'outRoot' | 'options' | 'command' | 'print' | 'progress'>): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    start.progress.stop();
    rmSync(start.runDir, { recursive: true, force: true });
    removeIfEmpty(start.runDir); // and the lab's folder, when this run was its only one
    start.print(
      `Interrupted (${signal}) while the results were being written: this run's folder was removed, so no half-made ` +
        `results were kept; earlier runs under ${path.join(start.outRoot, start.options.lab)} are untouched. Rerun with: ${start.command}`,
    );
    process.exit(exitCodeForSignal(signal));
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  return () => {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
}
