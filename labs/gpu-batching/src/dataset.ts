/**
 * The synthetic data set: one small file per sample (784 bytes: a 28 x 28 greyscale "image", one byte per pixel),
 * written once into a cache folder under the OS temp dir, deterministic from a seed. Reading it is real I/O: an
 * open, a read and a close per sample through libuv's threadpool. (After the first pass the files are in the page
 * cache, so what is measured is the system-call and threadpool cost, not the disk: say so when you quote it.)
 * Decoding turns bytes into float32 in [0, 1]: pixel / 255.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { createRng } from '@parallel-course/core';

/** Bump when the file format changes, so an old cache is never read as the new one. */
const FORMAT_VERSION = 1;
export const PIXELS = 784;

export interface Dataset {
  dir: string;
  count: number;
  seed: number;
}

export function defaultCacheRoot(): string {
  return path.join(os.tmpdir(), 'parallel-course-gpu-batching');
}

export function sampleFile(dir: string, index: number): string {
  return path.join(dir, `sample-${String(index).padStart(6, '0')}.u8`);
}

/** The pixels of one sample, deterministic from (seed, index): a smooth blob plus noise, so activations vary. */
export function samplePixels(seed: number, index: number): Uint8Array {
  const rng = createRng((seed * 1_000_003 + index) | 0);
  const cx = 6 + rng() * 16;
  const cy = 6 + rng() * 16;
  const radius = 3 + rng() * 8;
  const pixels = new Uint8Array(PIXELS);
  for (let y = 0; y < 28; y++) {
    for (let x = 0; x < 28; x++) {
      const d = Math.hypot(x - cx, y - cy);
      const blob = d < radius ? 200 * (1 - d / radius) : 0;
      pixels[y * 28 + x] = Math.min(255, Math.floor(blob + rng() * 56));
    }
  }
  return pixels;
}

/** Pixels (bytes) to model input (float32 in [0, 1]), written at `offset` floats into `out`. */
export function decodeInto(pixels: Uint8Array, out: Float32Array, offset: number): void {
  if (pixels.length !== PIXELS) throw new RangeError(`a sample file must hold ${PIXELS} bytes, got ${pixels.length}`);
  for (let i = 0; i < PIXELS; i++) out[offset + i] = (pixels[i] as number) / 255;
}

/**
 * Writes the data set if it is not already complete in the cache and returns it. The set is written into a folder of
 * its own and renamed into place with its manifest inside, so a process that finds the folder finds it complete: two
 * runs at once (two test files, two terminals) never read a half-written set or remove each other's. A folder without
 * a valid manifest (an older interrupted write) is replaced.
 */
export function ensureDataset(seed: number, count: number, root: string = defaultCacheRoot()): Dataset {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`a data set needs a positive integer sample count, got ${count}`);
  const dir = path.join(root, `v${FORMAT_VERSION}-seed${seed}-n${count}`);
  const manifest = path.join(dir, 'manifest.json');
  const expected = JSON.stringify({ format: FORMAT_VERSION, seed, count, bytesPerSample: PIXELS });
  const complete = (): boolean => existsSync(manifest) && readFileSync(manifest, 'utf8') === expected;
  if (complete()) return { dir, count, seed };
  mkdirSync(root, { recursive: true });
  const staging = mkdtempSync(`${dir}.writing-`);
  try {
    for (let i = 0; i < count; i++) writeFileSync(sampleFile(staging, i), samplePixels(seed, i));
    writeFileSync(path.join(staging, 'manifest.json'), expected);
    try {
      renameSync(staging, dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      // Another process put a set there first: use it when complete, else replace the leftover.
      if (!complete()) {
        rmSync(dir, { recursive: true, force: true });
        renameSync(staging, dir);
      }
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { dir, count, seed };
}

/** All samples in memory, decoded, without timing anything: what the in-memory variants start from. */
export function loadAllSync(dataset: Dataset): Float32Array {
  const out = new Float32Array(dataset.count * PIXELS);
  for (let i = 0; i < dataset.count; i++) decodeInto(readFileSync(sampleFile(dataset.dir, i)), out, i * PIXELS);
  return out;
}

/** Reads samples from disk, a batch at a time; the pipeline variant prefetches through it. */
export interface SampleSource {
  readonly count: number;
  readonly features: number;
  /** Reads and decodes samples [start, start + count): resolves to count x features floats. */
  readBatch(start: number, count: number): Promise<Float32Array>;
}

/** How a source reads: on libuv's threadpool with fs.promises, or on a reader thread of its own (reader-worker.ts). */
export type ReaderKind = 'threadpool' | 'worker';

/** A source that also adds up the wall time of its batch reads (ms), for the I/O observations. */
export type TimedSource = SampleSource & { readMs: number };

function checkRange(dataset: Dataset, start: number, count: number): void {
  if (!Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 1 || start + count > dataset.count) {
    throw new RangeError(`readBatch(${start}, ${count}) is outside the data set of ${dataset.count} samples`);
  }
}

/** Reads with fs.promises.readFile: every file's open/stat/read/close on libuv's threadpool, driven by the main thread. */
export function createFileSource(dataset: Dataset): TimedSource {
  const source = {
    count: dataset.count,
    features: PIXELS,
    readMs: 0,
    async readBatch(start: number, count: number): Promise<Float32Array> {
      checkRange(dataset, start, count);
      const t0 = performance.now();
      const out = new Float32Array(count * PIXELS);
      // All files of the batch in flight at once: libuv's threadpool (4 threads by default) bounds the real concurrency.
      await Promise.all(
        Array.from({ length: count }, async (_, i) => decodeInto(await readFile(sampleFile(dataset.dir, start + i)), out, i * PIXELS)),
      );
      source.readMs += performance.now() - t0;
      return out;
    },
  };
  return source;
}

/** A reader thread shared by the sources of one case (started in setup, closed in teardown). */
export interface ReaderThread {
  source(dataset: Dataset): TimedSource;
  close(): Promise<void>;
}

/**
 * Starts a reader thread (reader-worker.ts): batches are read with synchronous fs calls off the main thread, so reads
 * keep going while inference holds the main thread. Requests are answered in order, one batch at a time.
 */
export function startReaderThread(): ReaderThread {
  const worker = new Worker(new URL('./reader-worker.ts', import.meta.url));
  worker.unref();
  const pending = new Map<number, { resolve: (samples: Float32Array) => void; reject: (error: Error) => void; onTime: (ms: number) => void }>();
  let nextId = 0;
  let failure: Error | null = null;
  const failAll = (error: Error) => {
    failure = error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  worker.on('message', (reply: { id: number; samples?: Float32Array; readMs?: number; error?: string }) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (pending.size === 0) worker.unref();
    if (reply.error !== undefined || !reply.samples) p.reject(new Error(`reader thread: ${reply.error}`));
    else {
      p.onTime(reply.readMs ?? 0);
      p.resolve(reply.samples);
    }
  });
  worker.on('error', (error) => failAll(new Error(`reader thread failed: ${error.message}`)));
  worker.on('exit', (code) => failAll(new Error(`reader thread exited (code ${code})`)));
  return {
    source(dataset) {
      const source: TimedSource = {
        count: dataset.count,
        features: PIXELS,
        readMs: 0,
        readBatch(start, count) {
          checkRange(dataset, start, count);
          if (failure) return Promise.reject(failure);
          const id = nextId++;
          return new Promise<Float32Array>((resolve, reject) => {
            pending.set(id, { resolve, reject, onTime: (ms) => (source.readMs += ms) });
            worker.ref(); // keep the process alive while a read is outstanding; unref'd when idle
            worker.postMessage({ id, dir: dataset.dir, start, count });
          });
        },
      };
      return source;
    },
    async close() {
      await worker.terminate();
    },
  };
}
