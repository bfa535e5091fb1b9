/** parseCommandLine: the one flag parser of the harness's commands (command-line.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine } from '../src/command-line.ts';
import { UsageError } from '../src/errors.ts';

const HELP = 'Usage: npm run demo -- [--out DIR] <run>';

test('flags and positionals come back typed by the option table', () => {
  const parsed = parseCommandLine(['--out', 'x', 'run1'], { out: { type: 'string' } }, HELP, true);
  assert.equal(parsed?.values.out, 'x');
  assert.deepEqual(parsed?.positionals, ['run1']);
});

test('an unknown flag or a stray positional is a UsageError: the parser\'s message, a blank line, the help', () => {
  assert.throws(
    () => parseCommandLine(['--outt', 'x'], { out: { type: 'string' } }, HELP, true),
    (error: unknown) => error instanceof UsageError && /^Unknown option '--outt'/.test(error.message) && error.message.endsWith(`\n\n${HELP}`),
  );
  assert.throws(() => parseCommandLine(['run1'], { out: { type: 'string' } }, HELP), (error: unknown) => error instanceof UsageError && /positional/.test(error.message));
});

test('--help and -h print the help and return null', (t) => {
  const written: string[] = [];
  t.mock.method(process.stdout, 'write', (chunk: string) => {
    written.push(chunk);
    return true;
  });
  assert.equal(parseCommandLine(['--help'], {}, HELP), null);
  assert.equal(parseCommandLine(['-h'], { out: { type: 'string' } }, HELP, true), null);
  t.mock.restoreAll();
  assert.deepEqual(written, [`${HELP}\n`, `${HELP}\n`]);
});
