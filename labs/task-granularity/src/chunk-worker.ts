/** The piscina worker of the pool cases: counts one chunk of points, in a worker thread. */
import { workerData } from 'piscina';
import { addBusyNs, type BusyClock } from './busy-clock.ts';
import { countChunk } from './monte-carlo.ts';
import { applyFault, type FaultyChunkTask } from './task-runner.ts';

/** The pool's busy clock (thread-pool.ts passes it), to which each task adds its compute time. */
const busyClock = (workerData as { busyClock?: BusyClock } | undefined)?.busyClock;

export default function countChunkTask(task: FaultyChunkTask): number[] {
  applyFault(task);
  const started = process.hrtime.bigint();
  const histogram = countChunk(task);
  if (busyClock) addBusyNs(busyClock, process.hrtime.bigint() - started);
  return histogram;
}
