/**
 * A correctness check for `--status`: checkLab already runs the lab in a fresh, supervised child process (so each
 * call sees the learner's current files, one lab's threads or addon cannot leak into the next, and a hung call is
 * ended within its limit); this only turns an error that is not one case's (an unknown lab) into a value.
 */
import { checkLab, type CheckLabOptions, type CheckLabOutcome } from './run-lab.ts';

export async function checkLabInChild(options: CheckLabOptions): Promise<CheckLabOutcome | { error: string }> {
  try {
    return await checkLab(options);
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
