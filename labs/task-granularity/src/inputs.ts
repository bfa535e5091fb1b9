/**
 * The lab's inputs: a Monte Carlo run (a seed and a number of points) or a payload of seeded bytes.
 * Both are deterministic functions of the run's seed and the case's params.
 */
import type { MonteCarloSpec } from './monte-carlo.ts';

export type LabInput =
  | { kind: 'monte-carlo'; spec: MonteCarloSpec }
  | { kind: 'payload'; bytes: Uint8Array };
