/**
 * The worked example's step diffs (site/public/worked-example/steps/) apply, in order, to today's exercises: its README
 * tells a learner to `git apply` each, so an exercise edited since must not leave them failing at the first step
 * (seen: all three failed after the exercises' imports moved to the labs' entries).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const STEPS = path.join(REPO, 'site/public/worked-example/steps');

test("the worked example's step diffs apply in order to today's exercises", (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'worked-example-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(path.join(REPO, 'exercises'), path.join(dir, 'exercises'), { recursive: true });
  const steps = readdirSync(STEPS).filter((f) => f.endsWith('.diff')).sort();
  assert.deepEqual(steps, ['0-baseline.diff', '1-step-one.diff', '2-step-two.diff']);
  for (const step of steps) {
    // Outside any repository git apply patches the files under the current folder, as in a learner's clone.
    const applied = spawnSync('git', ['apply', path.join(STEPS, step)], { cwd: dir, encoding: 'utf8' });
    assert.equal(applied.status, 0, `${step} does not apply to today's exercises: ${applied.stderr}. Make the step again on them (its README says what each step changes) and write its diff`);
  }
});
