/** One genuine run of the workflow fixture lab (solution, all cases pass), made once per test file. */
import path from 'node:path';
import type { TestContext } from 'node:test';
import { runLab } from '../../src/run/run-lab.ts';
import type { Results } from '@parallel-course/core';
import { tempRoot, TINY_SAMPLING } from './temp-root.ts';

/** The run lives in a temp copy of the fixture root (`root`): removed when `t` ends, else the caller removes it. */
export async function genuineRun(t?: Pick<TestContext, 'after'>): Promise<{ root: string; runDir: string; results: Results }> {
  const root = tempRoot('workflow-root', 'harness-genuine-', t ?? null);
  const outcome = await runLab({ lab: 'sums', impl: 'solution', quick: true, rootDir: root, outDir: path.join(root, 'results'), sampling: TINY_SAMPLING, silent: true });
  if (outcome.exitCode !== 0 || outcome.runDir === null || outcome.results === null) throw new Error(`the fixture run failed:\n${outcome.summary}`);
  return { root, runDir: outcome.runDir, results: outcome.results };
}
