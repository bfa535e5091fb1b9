/**
 * Predict, then measure: before a run the learner records the headline speedup they expect and why
 * (`npm run lab -- <lab> --predict 1.8 --why "..."`). It is kept in the run folder as prediction.json, with the
 * time it was recorded (before the run started), and the report sets it against the measurement.
 */
import path from 'node:path';
import { jsonErrorWithoutContent } from '@parallel-course/core';
import { z } from 'zod';
import { UnsafeFileError, UsageError } from '../errors.ts';
import type { SpeedupEntry } from '@parallel-course/core';
import { writeFileAtomic } from './results-writer.ts';
import { readTextFileSafely } from './safe-read.ts';

export const PREDICTION_FILE = 'prediction.json';

/** A prediction is a number, a sentence of at most 2000 characters and a time: 64 KiB is ample. */
export const MAX_PREDICTION_BYTES = 64 * 1024;

export const predictionSchema = z.object({
  /** The predicted headline speedup (unitless, > 0). */
  speedup: z.number().positive().refine(Number.isFinite, 'must be finite'),
  why: z.string().max(2000),
  /** ISO time at which the prediction was recorded: before the run's startedAt. */
  recordedAt: z.iso.datetime(),
});

export type Prediction = z.infer<typeof predictionSchema>;

/** Validates `--predict` and `--why`; throws UsageError naming the rule. */
export function parsePrediction(predict: string, why: string | undefined, now = new Date()): Prediction {
  const speedup = Number(predict);
  if (!Number.isFinite(speedup) || speedup <= 0) {
    throw new UsageError(`--predict must be the speedup you expect, a number > 0 such as 1.8, not '${predict}'`);
  }
  if (why === undefined || why.trim() === '') {
    throw new UsageError('--predict needs --why "...": one sentence on why you expect that speedup (what stays serial?)');
  }
  return { speedup, why: why.trim(), recordedAt: now.toISOString() };
}

/** Writes prediction.json into the run folder; never replaces one that is there. */
export function savePrediction(runDir: string, prediction: Prediction): string {
  const file = path.join(runDir, PREDICTION_FILE);
  writeFileAtomic(file, `${JSON.stringify(predictionSchema.parse(prediction), null, 2)}\n`);
  return file;
}

/** The run's prediction, null when there is none; a broken or refused file (safe-read.ts) is reported, not ignored. */
export function readPrediction(runDir: string): Prediction | null {
  const file = path.join(runDir, PREDICTION_FILE);
  let text: string;
  try {
    text = readTextFileSafely(file, { capBytes: MAX_PREDICTION_BYTES, what: 'prediction.json', fix: 'delete it, or record a prediction with npm run lab -- <lab> --predict 1.8 --why "..."' });
  } catch (error) {
    if (error instanceof UnsafeFileError && error.code === 'FILE_NOT_FOUND') return null;
    throw error;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not JSON (${jsonErrorWithoutContent(error)}): fix it or delete it`);
  }
  const parsed = predictionSchema.safeParse(data);
  if (!parsed.success) {
    throw new UsageError(`${file} is not a valid prediction: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

export type PredictionVerdict = 'inside the interval' | 'optimistic' | 'pessimistic';

/** Prediction against measurement: inside the 95% interval, above it (optimistic) or below it (pessimistic). */
export function judgePrediction(prediction: Prediction, measured: Pick<SpeedupEntry, 'speedup' | 'ci95'>): {
  verdict: PredictionVerdict;
  /** (predicted - measured) / measured: +0.25 means the prediction was 25% too high. */
  relativeError: number;
} {
  const [low, high] = measured.ci95;
  const verdict = prediction.speedup > high ? 'optimistic' : prediction.speedup < low ? 'pessimistic' : 'inside the interval';
  return { verdict, relativeError: (prediction.speedup - measured.speedup) / measured.speedup };
}
