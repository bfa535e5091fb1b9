/**
 * An output too large to send each sample (a typed array over OUTPUT_BYTES_BOUND), fetched whole by the judge, block
 * by block in an order it draws, for the lab's whole check (issue 42). Positions alone (output-positions.ts) miss a
 * kernel wrong at fewer than about 0.1% of its entries; a whole check reads every entry (the lab's checkSample, else
 * its comparator: the triad's exact block sums miss no single wrong entry; a product's one round of Freivalds' test
 * misses an entry off by e with probability about its tolerance / |e|, docs/architecture.md). The blocks are read
 * after the sample's positions (every call's), which the runner shows at once after its answer: the positions bound
 * what a worker thread could still be writing then, the whole check what is wrong anywhere. In the check stage (no clock) a
 * whole check drawn takes the positions' place (check-verdicts.ts CheckVerdicts).
 * Input: the output's length, a way to ask the runner for one block. Output: the judge's own copy of the output.
 */
import { randomInt } from 'node:crypto';
import { OUTPUT_BYTES_BOUND } from './sample-server.ts';

/** One contiguous block of an output, in elements. */
export interface OutputBlock {
  from: number;
  count: number;
}

/** Elements per block: OUTPUT_BYTES_BOUND bytes of doubles (4 MiB, one message). */
export const WHOLE_BLOCK_ELEMENTS = OUTPUT_BYTES_BOUND / 8;

/**
 * The bytes of large output a whole check moves on average: an output (a check's or a measured sample's) up to this
 * size is checked whole every time, a larger one with probability WHOLE_CHECK_BYTES / its size, drawn after its
 * answer (native-kernel's 8 MiB product and its check triad of 2^19 + 3 elements every time, its 512 MiB measured
 * triad one time in 16: fetching each such output whole in the check stage, at WHOLE_FETCH_NS_PER_BYTE, took the plan
 * of a quick run at P = 64 to 98 s, past its 90 s budget). Its transfer is not timed.
 */
export const WHOLE_CHECK_BYTES = 32 * 2 ** 20;

/**
 * The judge's fetch of a large output, per byte, in ns, for the plan (plan.ts): 512 MiB took 2.2-4.9 s on the course
 * machine at load 9-10 (bench/whole-check.ts, median 2.8 s: about 190 MB/s).
 */
export const WHOLE_FETCH_NS_PER_BYTE = 5;

/**
 * What the judge's whole fetches of a case whose measured output is `outputBytes` cost on average, for the plan, in
 * ms: min(outputBytes, WHOLE_CHECK_BYTES) (the size times its chance) once in the check stage (its measured input's
 * output) and once per measured sample. Nothing for an output sent whole.
 */
export function wholeFetchMs(outputBytes: number | undefined): { checkMs: number; sampleMs: number } {
  if (outputBytes === undefined || !(outputBytes > OUTPUT_BYTES_BOUND)) return { checkMs: 0, sampleMs: 0 };
  const ms = (Math.min(outputBytes, WHOLE_CHECK_BYTES) * WHOLE_FETCH_NS_PER_BYTE) / 1e6;
  return { checkMs: ms, sampleMs: ms };
}

/** The chance a measured sample's large output of `length` doubles is checked whole. */
export function wholeCheckChance(length: number): number {
  return Math.min(1, WHOLE_CHECK_BYTES / (8 * Math.max(1, length)));
}

/** Whether this sample's large output of `length` doubles is checked whole: drawn now, from the CSPRNG. */
export function drawWholeCheck(length: number): boolean {
  const chance = wholeCheckChance(length);
  return chance >= 1 || randomInt(0, 2 ** 32) < chance * 2 ** 32;
}

/** The blocks of an output of `length` elements, in an order drawn from the CSPRNG (Fisher-Yates). */
export function blockOrder(length: number): OutputBlock[] {
  const blocks: OutputBlock[] = [];
  for (let from = 0; from < length; from += WHOLE_BLOCK_ELEMENTS) blocks.push({ from, count: Math.min(WHOLE_BLOCK_ELEMENTS, length - from) });
  for (let i = blocks.length - 1; i > 0; i--) {
    const j = randomInt(0, i + 1);
    [blocks[i], blocks[j]] = [blocks[j] as OutputBlock, blocks[i] as OutputBlock];
  }
  return blocks;
}

/**
 * The output of `length` elements, asked block by block (`ask`: the block and whether it is the last asked), into an
 * array of the judge's own; an element the runner did not send (a block shorter than asked) is NaN.
 */
export async function fetchWhole(length: number, ask: (block: OutputBlock, last: boolean) => Promise<ArrayLike<number>>): Promise<Float64Array> {
  const whole = new Float64Array(length).fill(Number.NaN);
  const blocks = blockOrder(length);
  for (const [k, block] of blocks.entries()) {
    const values = await ask(block, k === blocks.length - 1);
    const n = Math.min(block.count, values.length);
    if (values instanceof Float64Array) whole.set(values.subarray(0, n), block.from);
    else for (let i = 0; i < n; i++) whole[block.from + i] = Number(values[i]);
  }
  return whole;
}
