/**
 * A worker of expectedAt (lab.ts): counts the histograms of its share of a run's fresh inputs, serially, and posts
 * them back. Started and ended in the judge's process (judge-outputs.ts) before it measures: no learner module is
 * loaded there.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { histogramSync, type MonteCarloSpec } from './monte-carlo.ts';

const specs = (workerData as { specs: MonteCarloSpec[] }).specs;
parentPort?.postMessage(specs.map((spec) => histogramSync(spec)));
