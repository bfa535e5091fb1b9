/** The piscina worker of the solution: derives one account's ring, off the main thread. */
import { deriveRingSync } from '@parallel-course/event-loop/work.ts';

export default function deriveRing({ account }: { account: number }): string {
  return deriveRingSync(account);
}
