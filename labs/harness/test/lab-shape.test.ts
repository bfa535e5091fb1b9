/**
 * Every lab has the same shape, so knowing one means knowing all: the same files, an exercise and a solution
 * with the same files, an episode that names the lab, and a definition the harness can load (support/lab-shape.ts).
 */
import { test } from 'node:test';
import { labNames, ROOT_DIR } from '../src/lab-registry.ts';
import { checkLabShape } from './support/lab-shape.ts';

for (const name of labNames()) {
  test(`lab ${name} has the common shape`, () => checkLabShape(name, ROOT_DIR));
}
