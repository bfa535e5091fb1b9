/** parseCommandLine / readCommandLine: the one flag parser of the harness's commands (command-line.ts). */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseCommandLine, readCommandLine } from '../src/cli/command-line.ts';
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

test('readCommandLine leaves --help to its caller: values.help, nothing printed', (t) => {
  const written: string[] = [];
  t.mock.method(process.stdout, 'write', (chunk: string) => {
    written.push(chunk);
    return true;
  });
  const parsed = readCommandLine(['-h', 'lab'], { out: { type: 'string' } }, HELP, true);
  t.mock.restoreAll();
  assert.equal(parsed.values.help, true);
  assert.deepEqual(parsed.positionals, ['lab']);
  assert.deepEqual(written, []);
  assert.throws(() => readCommandLine(['--outt'], { out: { type: 'string' } }, HELP), (error: unknown) => error instanceof UsageError && error.message.endsWith(`\n\n${HELP}`));
});

test("no module of the harness calls node:util's parseArgs but cli/command-line.ts", () => {
  const src = fileURLToPath(new URL('../src/', import.meta.url));
  const files = readdirSync(src, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.ts'));
  assert.ok(files.length > 50, 'the harness was read');
  const callers = files
    // An import of it, or a call (util.parseArgs(...)); a comment that names it is no caller.
    .filter((e) => /import\s*\{[^}]*\bparseArgs\b[^}]*\}\s*from\s*['"](node:)?util['"]|\bparseArgs\s*[(<]/.test(readFileSync(path.join(e.parentPath, e.name), 'utf8')))
    .map((e) => path.relative(src, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
  assert.deepEqual(callers, ['cli/command-line.ts'], 'read flags with parseCommandLine or readCommandLine (cli/command-line.ts)');
});
