/**
 * The other thread of the race probe (race-probe.ts): adds 1 to the shared histogram's counters, one bin after
 * another, atomically, until told to stop, then reports how many it added. Lab code: it never runs learner code.
 */
import { parentPort, workerData } from 'node:worker_threads';

const { counts, control } = workerData as { counts: Int32Array; control: Int32Array };
// control[0]: 1 once this thread runs; control[1]: set to 1 to stop it; control[2]: its adds so far, every 8th.
Atomics.store(control, 0, 1);
Atomics.notify(control, 0);
let adds = 0;
let bin = 0;
while (Atomics.load(control, 1) === 0) {
  Atomics.add(counts, bin, 1);
  adds++;
  if ((adds & 7) === 0) Atomics.store(control, 2, adds);
  bin = (bin + 1) % counts.length;
}
parentPort?.postMessage(adds);
