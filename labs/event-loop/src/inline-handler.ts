/**
 * The baseline: the work runs inline, on the event loop. While a ring is derived (about 20 ms) the server can do
 * nothing else: no other request is read, not even the cheap `/ping`.
 */
import { deriveRingSync, type RingHandler } from './work.ts';

export function createInlineHandler(): RingHandler {
  return {
    async derive(account) {
      return deriveRingSync(account);
    },
    async close() {},
  };
}
