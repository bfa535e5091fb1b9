/**
 * A fresh pass per measured sample (issue 42): every measured sample used to run on the same data set, so a
 * variant that kept its logits (by input, by folder, by contents) or computed only part of them passed. Now sample
 * number k (drawn by the judge, revealed only with its sample) runs on a pass of its own, made by `freshPass` BEFORE the
 * clock starts (the harness calls measureAt between samples: measure.ts takeSamples), and its logits are checked by
 * `checkPass` after the clock stops. Neither is timed, so the batched and one-at-a-time cases still time inference
 * alone, as before.
 *
 * A fresh pass is the measured pass's images with the low 4 bits of every pixel scrambled by a stream keyed by
 * (run seed, k, image): the same shapes, so the same work, and no image equal to any other of the run (the stream's
 * key is a bijection of (k, image), below). It is written as files (one per image, as the data set is) into a
 * folder of its own, so the cases that read from disk read new files, and a device process's in-memory copy
 * (device-main.ts, by folder) is a new one. Cost per 1024 images on the course machine: about 2 ms to scramble and
 * decode, 3-9 ms to rewrite the files (the last pass's folder renamed, each file overwritten in place).
 *
 * What it gives is valid until the next call (the arrays and the folder are reused, as native-kernel's refillInput
 * reuses its matrices): the harness takes, checks and drops one sample before it asks for the next.
 */
import { randomFillSync } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { formatScientific } from '@parallel-course/core';
import type { Comparison } from '@parallel-course/harness';
import type { InferenceInput } from './cases.ts';
import { defaultCacheRoot, PIXELS, sampleFile } from './dataset.ts';
import type { DenseLayer } from './model-spec.ts';
import { forwardWithBound } from './tolerance.ts';

// Captured when the lab loads, before any learner module: the images checked are drawn after the logits are in.
const fillRandom = randomFillSync;

/** Images of each fresh pass whose logits are recomputed (float64, tolerance.ts's bound) after the pass: about 6 ms each. */
export const SPOT_IMAGES = 4;

/** The measured sample numbers the judge draws are below 2^20 (FRESH_INPUT_INDICES); images per pass below 2^10. */
const MAX_SAMPLE = 2 ** 20;
const MAX_IMAGES = 2 ** 10;

/** MurmurHash3's 32-bit finalizer (Austin Appleby, public domain): a bijection of 32-bit words that mixes every bit. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Writes image `image` of fresh pass `sample` into `out` (PIXELS bytes): the measured image's pixels with their low
 * 4 bits XORed with a stream of words w_j = fmix32(key + j x golden), key = fmix32((sample x 2^10 + image) XOR seed
 * mix). (sample, image) -> key is one-to-one (sample < 2^20, image < 2^10, fmix32 a bijection), and w_0 = fmix32(key)
 * too, so two images of the run differ in their first 8 pixels' scramble, and an image differs from its base unless
 * its whole stream is zero.
 */
function scrambleImage(base: Uint8Array, out: Uint8Array, seed: number, sample: number, image: number): void {
  const key = fmix32(((sample * MAX_IMAGES + image) ^ fmix32(seed >>> 0)) >>> 0);
  let word = 0;
  for (let p = 0; p < PIXELS; p++) {
    if ((p & 7) === 0) word = fmix32((key + Math.imul(p >>> 3, 0x9e3779b9)) >>> 0);
    out[p] = (base[p] as number) ^ ((word >>> ((p & 7) * 4)) & 15);
  }
}

/** pixel / 255 as float32, by table (dataset.ts decodeInto's rule, without a division per pixel). */
const DECODE = Float32Array.from({ length: 256 }, (_, v) => v / 255);

/**
 * The measureAt of a run: fresh pass `sample` of the measured input. Its folder lives under one temporary folder per
 * process, in the data set cache's folder (removed when the process exits).
 */
export function freshPasses(measure: InferenceInput, seed: number): (sample: number) => InferenceInput {
  const count = measure.dataset.count;
  if (count > MAX_IMAGES) throw new RangeError(`a fresh pass holds at most ${MAX_IMAGES} images, got ${count}`);
  let base: Uint8Array | null = null;
  const bytes = new Uint8Array(count * PIXELS);
  const samples = new Float32Array(count * PIXELS);
  let root: string | null = null;
  let folder: string | null = null;
  return (sample: number) => {
    if (!Number.isInteger(sample) || sample < 1 || sample >= MAX_SAMPLE) throw new RangeError(`a fresh pass number must be an integer in 1 .. 2^20 - 1, got ${sample}`);
    // The measured pass's bytes, read once from its files (not its decoded floats: the scramble works on bytes).
    if (!base) {
      base = new Uint8Array(count * PIXELS);
      for (let i = 0; i < count; i++) base.set(readFileSync(sampleFile(measure.dataset.dir, i)), i * PIXELS);
    }
    if (!root) {
      // Inside the data set cache's folder: a process killed before its exit handler leaves its last pass there, not
      // loose in the temp folder.
      mkdirSync(defaultCacheRoot(), { recursive: true });
      const made = mkdtempSync(path.join(defaultCacheRoot(), 'fresh-'));
      process.once('exit', () => rmSync(made, { recursive: true, force: true }));
      root = made;
    }
    // The first pass's files are created; later passes rename the folder and overwrite each file's bytes in place
    // (same size: no truncation, no new inode). On this machine's ext4, under other jobs' I/O, 1024 files took 3-9
    // ms so, 200-700 ms created anew in a new folder (metadata through the journal), and 0.2-1 s truncated and
    // rewritten (ext4 flushes such a file when it is closed).
    const next = path.join(root, `pass-${sample}`);
    if (folder) renameSync(folder, next);
    else mkdirSync(next);
    for (let i = 0; i < count; i++) {
      const image = bytes.subarray(i * PIXELS, (i + 1) * PIXELS);
      scrambleImage(base.subarray(i * PIXELS, (i + 1) * PIXELS), image, seed, sample, i);
      if (!folder) writeFileSync(sampleFile(next, i), image);
      else {
        const fd = openSync(sampleFile(next, i), 'r+');
        try {
          writeSync(fd, image, 0, PIXELS, 0);
        } finally {
          closeSync(fd);
        }
      }
    }
    folder = next;
    for (let j = 0; j < samples.length; j++) samples[j] = DECODE[bytes[j] as number] as number;
    return { dataset: { dir: next, count, seed: sample }, samples };
  };
}

function mismatch(index: string, expected: string, actual: string): Comparison {
  return { equal: false, firstMismatch: { index, expected, actual }, maxAbsError: null, maxRelError: null };
}

/** The last logits checked per output array, to find rows a variant left from the pass before. */
const previous = new WeakMap<Float32Array, Float32Array>();

/**
 * Checks the logits of a fresh pass without recomputing them all (the float64 forward pass with its bound costs about
 * 6 ms per image on the course machine, ONNX Runtime's float32 one about 50 µs): every logit finite, no image's row all zeros (never written) or equal to the same row
 * of the pass before in the same array (kept), and SPOT_IMAGES images, drawn from the CSPRNG after the pass, within
 * tolerance.ts's per-logit bound of the float64 reference. A variant that computes a fraction f of the images and
 * makes up the rest passes one pass with probability (1 - f)^SPOT_IMAGES at most, a whole run (9 or more samples per
 * case) with (1 - f)^36.
 */
export function checkPass(layers: readonly DenseLayer[], input: InferenceInput, output: Float32Array): Comparison {
  const count = input.dataset.count;
  const width = layers[layers.length - 1]!.outputs;
  if (!(output instanceof Float32Array) || output.length !== count * width) {
    return mismatch('length', `Float32Array(${count * width})`, output instanceof Float32Array ? `Float32Array(${output.length})` : String(output));
  }
  const before = previous.get(output);
  for (let i = 0; i < count; i++) {
    let zeros = 0;
    let same = before !== undefined;
    for (let o = 0; o < width; o++) {
      const v = output[i * width + o] as number;
      if (!Number.isFinite(v)) return mismatch(`image ${i} logit ${o}`, 'a finite number', String(v));
      if (v === 0) zeros++;
      if (same && before![i * width + o] !== v) same = false;
    }
    if (zeros === width) return mismatch(`image ${i}`, 'its logits', 'all zeros (never written?)');
    if (same) return mismatch(`image ${i}`, "this pass's logits", "the pass before's, unchanged (kept from an earlier input?)");
  }
  previous.set(output, output.slice());
  const words = fillRandom(new Uint32Array(Math.min(SPOT_IMAGES, count)));
  const spots = [...new Set([...words].map((w) => w % count))];
  const images = new Float32Array(spots.length * PIXELS);
  for (const [k, i] of spots.entries()) images.set(input.samples.subarray(i * PIXELS, (i + 1) * PIXELS), k * PIXELS);
  const { values, bound } = forwardWithBound(layers, images, spots.length);
  let maxAbs = 0;
  for (const [k, i] of spots.entries()) {
    for (let o = 0; o < width; o++) {
      const expected = values[k * width + o] as number;
      const actual = output[i * width + o] as number;
      const err = Math.abs(actual - expected);
      const limit = bound[k * width + o] as number;
      if (!(err <= limit)) return { ...mismatch(`image ${i} logit ${o}`, `${expected} ± ${formatScientific(limit)}`, String(actual)), maxAbsError: err };
      maxAbs = Math.max(maxAbs, err);
    }
  }
  return { equal: true, firstMismatch: null, maxAbsError: maxAbs, maxRelError: null };
}
