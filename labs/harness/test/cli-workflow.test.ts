/** The learner's-loop options of `npm run lab`: --watch, --measure, --compare, --predict/--why, --status. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { helpText, parseCommand } from '../src/cli.ts';
import { UsageError } from '../src/errors.ts';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/results-event-loop.json', import.meta.url));

test('parseCommand: --watch, --measure, --compare, --predict and --status', () => {
  assert.deepEqual(parseCommand(['event-loop', '--watch']), { kind: 'watch', lab: 'event-loop', impl: 'exercise', quick: false });
  assert.deepEqual(parseCommand(['event-loop', '--watch', '--measure']), { kind: 'watch', lab: 'event-loop', impl: 'exercise', quick: false, measure: true });
  assert.deepEqual(parseCommand(['event-loop', '--compare', 'results/event-loop/x']), { kind: 'run', lab: 'event-loop', impl: 'exercise', quick: false, compare: 'results/event-loop/x' });
  assert.deepEqual(parseCommand(['--status']), { kind: 'status', impl: 'exercise', quick: false });
  const predicted = parseCommand(['event-loop', '--predict', '1.8', '--why', 'two cores, little serial work']);
  assert.equal(predicted.prediction?.speedup, 1.8);
  assert.equal(predicted.prediction?.why, 'two cores, little serial work');
  assert.match(predicted.prediction?.recordedAt ?? '', /^\d{4}-\d\d-\d\dT/);
});

test('parseCommand: misused learner options are UsageErrors that say how to use them', () => {
  assert.throws(() => parseCommand(['event-loop', '--measure']), new UsageError('--measure goes with --watch (a normal run always measures): npm run lab -- <lab> --watch --measure'));
  assert.throws(() => parseCommand(['event-loop', '--why', 'x']), new UsageError('--why goes with --predict: npm run lab -- <lab> --predict 1.8 --why "..."'));
  assert.throws(() => parseCommand(['event-loop', '--predict', 'fast', '--why', 'x']), new UsageError("--predict must be the speedup you expect, a number > 0 such as 1.8, not 'fast'"));
  assert.throws(() => parseCommand(['event-loop', '--predict', '1.8']), new UsageError('--predict needs --why "...": one sentence on why you expect that speedup (what stays serial?)'));
  assert.throws(() => parseCommand(['event-loop', '--status']), new UsageError('--status shows every lab: npm run lab -- --status (no lab name)'));
  assert.throws(() => parseCommand(['event-loop', '--watch', '--compare', 'x']), /--watch only checks your code/);
});

test('the help lists every option of the table', () => {
  for (const option of ['--watch', '--measure', '--compare', '--predict', '--why', '--status']) assert.ok(helpText().includes(option), option);
});

test('--compare with a missing folder or another lab\'s run exits 2 before anything runs', () => {
  const missing = spawnSync(process.execPath, [CLI, 'event-loop', '--compare', '/nonexistent/run'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /error: \/nonexistent\/run does not exist: give a run folder such as results\/<lab>\/<timestamp>\/ or its results\.json/);
  const otherLab = spawnSync(process.execPath, [CLI, 'native-kernel', '--compare', FIXTURE], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(otherLab.status, 2);
  assert.match(otherLab.stderr, /is a run of 'event-loop', not 'native-kernel': give a run folder under results\/native-kernel\//);
});
