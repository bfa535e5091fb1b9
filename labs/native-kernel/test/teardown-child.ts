/**
 * Run as a child process by teardown.test.ts: starts Worker threads, one after another, that each start matmulAsync
 * calls and then go away: terminated by this thread while the calls are pending (`terminate`), calling process.exit
 * themselves while they are pending (`exit`), or ending normally once they have settled (`finish`). This thread
 * never loads the addon, so each Worker's exit also unloads it. The addon must settle or drop pending calls without
 * throwing into the dying environment (else SIGABRT, "terminate called after throwing an instance of
 * 'Napi::Error'"), and no thread of it may outlive its code (else SIGSEGV): either way this process would die by
 * signal before printing its tally.
 * Usage: node teardown-child.ts <module file> <terminate|exit|finish> <rounds> <n>
 */
import { Worker } from 'node:worker_threads';

const [file, mode, roundsArg, nArg] = process.argv.slice(2);
if (!file || (mode !== 'terminate' && mode !== 'exit' && mode !== 'finish')) {
  console.error('usage: node teardown-child.ts <module file> <terminate|exit|finish> <rounds> <n>');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 5);

// CommonJS in an eval'd worker: loads the addon and starts two calls on n x n matrices (2 threads each).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const addon = require(workerData.file);
const n = workerData.n;
const a = new Float64Array(n * n).fill(1);
const b = new Float64Array(n * n).fill(2);
for (let i = 0; i < 2; i++) addon.matmulAsync(a, b, new Float64Array(n * n), n, 2).then(() => parentPort.postMessage('settled'));
if (workerData.mode === 'exit') process.exit(0);
if (workerData.mode === 'terminate') parentPort.postMessage('pending');
`;

let settledBeforeExit = 0;
for (let round = 0; round < rounds; round++) {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, mode, n: Number(nArg ?? 768) } });
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (message) => {
      if (message === 'pending') void worker.terminate();
      if (message === 'settled') settledBeforeExit++;
    });
    worker.on('error', reject);
    worker.on('exit', () => resolve());
  });
}
console.log(`teardown-child: ${rounds} workers went away (${mode}); ${settledBeforeExit} calls settled first`);
