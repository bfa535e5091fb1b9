/** The piscina worker of the pool cases: counts one chunk of points, in a worker thread. */
import { countChunk } from './monte-carlo.ts';
import { applyFault, type FaultyChunkTask } from './task-runner.ts';

export default function countChunkTask(task: FaultyChunkTask): number[] {
  applyFault(task);
  return countChunk(task);
}
