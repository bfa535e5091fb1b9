/**
 * The worker of the minimal pool (pool-per-task.ts): the lab's own task function (graph-worker.ts's default export),
 * answered over the worker's MessagePort (parentPort) with the request's id. Nothing else: no queue, no options, no
 * transfer lists, no Atomics signalling, which is what makes it the floor a pool library is compared with.
 */
import { parentPort } from 'node:worker_threads';
import graphTask, { type EmptyTask } from '../src/graph-worker.ts';

parentPort!.on('message', ({ id, task }: { id: number; task: EmptyTask }) => {
  parentPort!.postMessage({ id, result: graphTask(task) });
});
