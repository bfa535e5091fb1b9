/**
 * A full garbage collection on demand, between measurement groups, so garbage left by one group is not collected
 * by V8's background threads while the next group's multi-core cases are timed.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/** Runs a full, blocking garbage collection; false when this V8 does not allow it (then nothing happens). */
export function collectGarbage(): boolean {
  if (!collect) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) collect = exposed;
    else {
      try {
        // Exposes gc() to contexts created from now on; the main context keeps its globals untouched.
        setFlagsFromString('--expose-gc');
        collect = runInNewContext('gc') as () => void;
      } catch {
        return false;
      }
    }
  }
  collect();
  return true;
}
