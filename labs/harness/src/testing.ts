/** Helpers for the labs' tests. */
import { execFileSync } from 'node:child_process';

/**
 * PIDs of the processes whose command line names this script file (an absolute path), for "no process is left
 * behind" checks. The absolute path keeps another checkout's runs on the same machine out of the answer.
 */
export function runningProcesses(scriptFile: string): string[] {
  const pattern = scriptFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}
