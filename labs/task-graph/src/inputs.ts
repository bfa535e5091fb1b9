/** What one case runs on: a product of seeded matrices, or a number of empty tasks (the pool's own cost). */
import type { Matrix } from './matrix.ts';

export type LabInput = { kind: 'product'; matrices: Matrix[] } | { kind: 'empty'; tasks: number };

/** A product's matrix, or for the empty tasks [the sum of their numbers], so every task's answer counts. */
export type LabOutput = ArrayLike<number>;
