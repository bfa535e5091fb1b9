/**
 * Native code is never loaded in the supervisor (issue 42): a lab's notes() may load the learner's build
 * (native-kernel's peak note asks exercise_march.node for its vector width), so only the runner calls it and sends
 * the notes. Before, the supervisor called notes() too: a learner's static initializer ran with the harness's full
 * privileges, and one that crashed took the harness (and `npm run lab -- --status`) down with it. Both tests failed
 * on the code before (checked: the notes() planted below threw in the supervisor, and exercise_march.node was mapped
 * in this process after a --status check of native-kernel).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkLab, runLab } from '../src/run/run-lab.ts';
import { tempRoot } from './support/temp-root.ts';
import { replaceOnce } from './support/replace-once.ts';
import { rungStatus } from '../../native-kernel/src/addon.ts';

const SAMPLING = { warmupSamples: 1, rounds: 2, samplesPerRound: 3 };

test("a lab's notes() runs only in the runner, for a run and for a --status check", async (t) => {
  const root = tempRoot('faults-root', 'harness-notes-', t);
  const file = path.join(root, 'labs', 'faulty', 'src', 'lab.ts');
  // Stands in for a native initializer: it fails loudly in the supervisor's process, and says where it ran.
  const notes = `notes() {
    if (process.env.HARNESS_SUPERVISOR_PID === String(process.pid)) throw new Error('notes() ran in the supervisor');
    return ['notes from the lab process'];
  },
  inputParams: [],`;
  writeFileSync(file, replaceOnce(readFileSync(file, 'utf8'), 'inputParams: [],', notes));
  process.env.HARNESS_SUPERVISOR_PID = String(process.pid);
  t.after(() => delete process.env.HARNESS_SUPERVISOR_PID);
  const outcome = await runLab({ lab: 'faulty', impl: 'solution', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root });
  assert.ok(outcome.results?.notes.includes('notes from the lab process'), "the runner's notes reach the results");
  const status = await checkLab({ lab: 'faulty', impl: 'solution', rootDir: root });
  assert.equal(status.exitCode, 0, status.report);
});

const march = rungStatus('exercise', 'march');
test('a --status check of native-kernel leaves no learner .node mapped in the harness process', { skip: march.available ? false : 'exercise_march.node is not built here' }, async () => {
  const stop = new AbortController();
  stop.abort();
  await checkLab({ lab: 'native-kernel', impl: 'exercise', stop: stop.signal });
  const mapped = readFileSync('/proc/self/maps', 'utf8').split('\n').filter((line) => /native-kernel\/build\/.*\.node$/.test(line));
  assert.deepEqual(mapped, []);
});
