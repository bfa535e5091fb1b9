/** The command line: bad input gets a clear message and exit code 2; --list and --help work. */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { helpText, OPTIONS, parseCommand } from '../src/cli.ts';
import { UsageError } from '../src/errors.ts';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

function runCli(...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('parseCommand: defaults to the learner\'s exercise, full run', () => {
  assert.deepEqual(parseCommand(['event-loop']), { kind: 'run', lab: 'event-loop', impl: 'exercise', quick: false });
  assert.deepEqual(parseCommand(['event-loop', '--impl', 'solution', '--quick', '--seed', '7']), {
    kind: 'run', lab: 'event-loop', impl: 'solution', quick: true, seed: 7,
  });
});

test('the option table\'s defaults are the ones parsing applies, and the help says each', () => {
  const defaults = Object.entries(OPTIONS).filter(([, o]) => 'default' in o);
  assert.deepEqual(defaults.map(([name]) => name), ['impl'], 'a boolean flag left out is false: only a value needs a default');
  assert.match(helpText(), /^ {2}--impl <value> +exercise \(your code\) or solution \(the course's\) \(default: exercise\)$/m);
  for (const [name, o] of defaults) {
    assert.ok(helpText().split('\n').some((line) => line.startsWith(`  --${name} `) && line.endsWith(`(default: ${String((o as { default: unknown }).default)})`)), name);
  }
  assert.equal(parseCommand(['event-loop', '--quick']).impl, OPTIONS.impl.default);
});

test('parseCommand: bad input is a UsageError that says what is wrong', () => {
  assert.throws(() => parseCommand(['event-loop', '--impl', 'mine']), new UsageError("--impl must be 'exercise' or 'solution', not 'mine'"));
  assert.throws(() => parseCommand(['event-loop', '--seed', 'x']), /--seed must be an integer, not 'x'/);
  assert.throws(() => parseCommand(['a', 'b']), /one lab at a time, got: a b/);
  assert.throws(() => parseCommand(['event-loop', '--fast']), /Unknown option '--fast'/);
  assert.throws(() => parseCommand([]), /which lab\? The labs are: .*event-loop/);
});

test('an unknown lab exits 2 and lists the labs', () => {
  const { code, stderr } = runCli('no-such-lab');
  assert.equal(code, 2);
  assert.match(stderr, /error: unknown lab 'no-such-lab'\. The labs are: .*event-loop.*List them with: npm run lab -- --list/);
});

test('a bad flag exits 2 with the help text', () => {
  const { code, stderr } = runCli('event-loop', '--workers', '3');
  assert.equal(code, 2);
  assert.match(stderr, /Unknown option '--workers'/);
  assert.match(stderr, /Usage: npm run lab -- <lab>/);
});

test('an unwritable results folder exits 2 before anything runs', () => {
  const { code, stderr } = runCli('event-loop', '--out', '/proc/no-results-here');
  assert.equal(code, 2);
  assert.match(stderr, /cannot write results under '\/proc\/no-results-here\/event-loop'.*--out DIR/);
});

test('--out /dev/null, --out a plain file and a read-only <out>/<lab> exit 2 at once, before anything is measured', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'harness-out-'));
  const plainFile = path.join(dir, 'a-file');
  writeFileSync(plainFile, 'not a folder');
  const readOnly = path.join(dir, 'ro');
  mkdirSync(path.join(readOnly, 'event-loop'), { recursive: true });
  // root ignores permission bits: make the folder immutable instead (ext4, xfs, btrfs); others get chmod 555.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chattr', ['+i', path.join(readOnly, 'event-loop')]);
  else chmodSync(path.join(readOnly, 'event-loop'), 0o555);
  t.after(() => {
    if (asRoot) execFileSync('chattr', ['-i', path.join(readOnly, 'event-loop')]);
    rmSync(dir, { recursive: true, force: true });
  });
  for (const [out, problem] of [['/dev/null', 'ENOTDIR'], [plainFile, 'ENOTDIR'], [readOnly, asRoot ? 'EPERM' : 'EACCES']] as const) {
    const started = performance.now();
    const { code, stderr, stdout } = runCli('event-loop', '--impl', 'solution', '--quick', '--out', out);
    assert.equal(code, 2, `--out ${out}: ${stderr}`);
    assert.equal(stderr, `error: cannot write results under '${path.join(out, 'event-loop')}': ${problem}. Nothing was measured. Choose a folder you can write to with --out DIR.\n`);
    assert.doesNotMatch(stdout, /checking/);
    assert.ok(performance.now() - started < 15_000);
  }
  assert.deepEqual(readdirSync(path.join(readOnly, 'event-loop')), []);
});

test('--list names every lab with its summary, --help shows the options', () => {
  const list = runCli('--list');
  assert.equal(list.code, 0);
  assert.match(list.stdout, /^event-loop\s+a CPU-bound HTTP endpoint/m);
  const help = runCli('--help');
  assert.equal(help.code, 0);
  for (const option of ['--impl', '--quick', '--out', '--seed', '--list']) assert.ok(help.stdout.includes(option), option);
});
