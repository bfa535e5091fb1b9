/**
 * The faults-root fixture's `faulty` lab with fresh inputs (measureAt, as event-loop's) that carry their number: input
 * k has xs[0] = k, each checked by checkSample. For tests of who draws the numbers and when they are revealed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { replaceOnce } from './replace-once.ts';

export function giveFaultyLabNumberedInputs(root: string): void {
  const lab = path.join(root, 'labs', 'faulty', 'src', 'lab.ts');
  let source = readFileSync(lab, 'utf8');
  source = replaceOnce(source, 'measure: make(2000, 3) };', 'measure: make(2000, 3), measureAt: (k: number) => { const xs = make(2000, 3); xs[0] = k; return xs; } };');
  source = replaceOnce(
    source,
    'comparator: withinTolerance(',
    'checkSample: (xs: Input, out: Output) => withinTolerance({ abs: 1e-9, rel: 1e-12 }).compare([sumSquares(xs)], out),\n  comparator: withinTolerance(',
  );
  writeFileSync(lab, source);
}
