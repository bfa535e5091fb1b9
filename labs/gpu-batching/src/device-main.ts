/**
 * One device process, started by device-pool.ts with `CUDA_VISIBLE_DEVICES` already in its environment: CUDA reads
 * the list once, when the process first touches the GPU, so the only way to give each process its own GPU is to set
 * it before the process starts. Inside, the one visible GPU is always `deviceId: 0`. On CPU "devices" the variable is
 * empty (no GPU visible) and the process's own intra-op thread count is its share of the CPU.
 *
 * The model is loaded once per process; each chunk of the data set is then read from disk and run through the
 * implementation's pipeline (inferPipelined), and its outputs are sent back with the chunk id.
 */
import { exitWithParent, leaveParent } from '@parallel-course/harness/learner.ts';
import { loadAllSync, startReaderThread, type SampleSource } from './dataset.ts';
import type { DeviceConfig, DeviceMessage, ParentMessage } from './device-protocol.ts';
import { loadImpl } from './impl.ts';
import { openModel } from './session.ts';

function send(message: DeviceMessage): void {
  process.send?.(message);
}

// The learner's pipeline runs here: end with the harness even if it blocks this process's event loop.
exitWithParent({ evenIfBlocked: true });

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as DeviceConfig;
  const t0 = performance.now();
  const impl = await loadImpl(config.implDir);
  const oomAbove = config.faults?.oomAbove;
  const model = await openModel({
    modelPath: config.modelPath,
    ep: config.ep,
    threads: config.threads,
    deviceId: 0,
    onHalve: (from, to, error) => send({ type: 'halved', from, to, message: (error as Error).message }),
    ...(oomAbove !== undefined
      ? {
          wrapRun: (run) => async (samples, count) => {
            if (count > oomAbove) throw new Error(`Failed to allocate memory for requested buffer (injected: more than ${oomAbove} samples)`);
            return run(samples, count);
          },
        }
      : {}),
  });
  const reader = startReaderThread();
  /** Data sets kept in memory for `source: 'memory'` chunks, by folder: read once, on the first chunk that needs it. */
  const cached = new Map<string, Float32Array>();
  send({ type: 'ready', ep: model.ep, pid: process.pid, visibleDevices: process.env.CUDA_VISIBLE_DEVICES ?? null, loadMs: performance.now() - t0 });

  process.on('message', async (message: ParentMessage) => {
    if (message.type === 'close') {
      await model.release();
      await reader.close();
      leaveParent();
      return;
    }
    const firstTry = message.attempt === 1;
    if (firstTry && config.faults?.crashChunks?.includes(message.id)) process.exit(70);
    try {
      if (firstTry && config.faults?.failChunks?.includes(message.id)) throw new Error(`injected failure of chunk ${message.id}`);
      const dataset = { dir: message.dir, count: message.datasetCount, seed: 0 };
      let file: SampleSource & { readMs: number };
      if (message.source === 'memory') {
        let samples = cached.get(dataset.dir);
        if (!samples) {
          // One data set at a time: every measured sample brings a fresh pass in a folder of its own (fresh-inputs.ts).
          cached.clear();
          cached.set(dataset.dir, (samples = loadAllSync(dataset)));
        }
        const all = samples;
        file = { count: dataset.count, features: model.features, readMs: 0, readBatch: async (start, count) => all.subarray(start * model.features, (start + count) * model.features) };
      } else {
        file = reader.source(dataset);
      }
      // The chunk as a source of its own: sample 0 of the chunk is sample `start` of the data set.
      const chunk: SampleSource = {
        count: message.count,
        features: file.features,
        readBatch: (start, count) => {
          if (start + count > message.count) throw new RangeError(`readBatch(${start}, ${count}) is outside this chunk of ${message.count}`);
          return file.readBatch(message.start + start, count);
        },
      };
      model.resetStats();
      const logits = await impl.inferPipelined(model, chunk, message.batch, message.prefetch);
      send({ type: 'done', id: message.id, logits, busyMs: model.busyMs, readMs: file.readMs, latenciesMs: [...model.latenciesMs], rssBytes: process.memoryUsage.rss() });
    } catch (error) {
      send({ type: 'chunk-failed', id: message.id, message: error instanceof Error ? error.message : String(error) });
    }
  });
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exitCode = 1;
  leaveParent();
});
