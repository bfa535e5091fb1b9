/**
 * A reader thread: reads and decodes batches of sample files with synchronous fs calls, off the main thread, and
 * sends each batch back as a transferred Float32Array (no copy). Started by createWorkerSource (dataset.ts).
 *
 * Why a thread and not fs.promises: onnxruntime-node runs InferenceSession.run synchronously on the main thread
 * (after a setImmediate), and every step of an async readFile (open, fstat, read, close) needs a turn of the main
 * thread to start the next. While a batch computes, async reads stall; a reader thread keeps going.
 */
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { decodeInto, PIXELS, sampleFile } from './dataset.ts';

export interface ReadRequest {
  id: number;
  dir: string;
  start: number;
  count: number;
}

export type ReadReply = { id: number; samples: Float32Array; readMs: number } | { id: number; error: string };

parentPort?.on('message', (request: ReadRequest) => {
  const t0 = performance.now();
  try {
    const samples = new Float32Array(request.count * PIXELS);
    for (let i = 0; i < request.count; i++) decodeInto(readFileSync(sampleFile(request.dir, request.start + i)), samples, i * PIXELS);
    parentPort?.postMessage({ id: request.id, samples, readMs: performance.now() - t0 } satisfies ReadReply, [samples.buffer]);
  } catch (error) {
    parentPort?.postMessage({ id: request.id, error: (error as Error).message } satisfies ReadReply);
  }
});
