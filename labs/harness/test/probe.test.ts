/**
 * runProbe: every external command ends within timeoutMs + 2 x graceMs, whatever it does (ignores SIGTERM, leaves a
 * child holding the pipe, floods the output, prints escape sequences), and its output is safe to print.
 * The misbehaving commands are `sh -c` one-liners: no files to clean up.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { describeProbeFailure, oneLine, resolveProbeOptions, runProbe, runProbeSync, type ProbeResult } from '../src/machine/probe.ts';
import { terminalText } from '@parallel-course/core';

/** Ignores SIGTERM (and so does the `sleep` it starts, which holds stdout open), prints the sleep's pid, waits. */
const STUBBORN = ['-c', "trap '' TERM; sleep 30 & echo $!; wait; sleep 30"];
const TIMEOUT_MS = 400;
const GRACE_MS = 300;
/** Worst case is timeout + 2 x grace; the rest is slack for a busy 2-CPU machine. */
const BOUND_MS = TIMEOUT_MS + 2 * GRACE_MS + 1500;

/** True while a process runs (a zombie waiting to be reaped does not count). */
function alive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (existsSync('/proc/self/stat')) {
    if (!existsSync(stat)) return false;
    try {
      return readFileSync(stat, 'utf8').split(') ')[1]?.[0] !== 'Z';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}

test('a command that answers: ok, its output, status 0', async () => {
  const r = await runProbe(process.execPath, ['-e', 'process.stdout.write("hello\\n"); process.stderr.write("note\\n")']);
  assert.equal(r.ok, true);
  assert.equal(r.stdout, 'hello\n');
  assert.equal(r.stderr, 'note\n');
  assert.equal(r.code, 0);
  assert.equal(r.timedOut, false);
  assert.equal(describeProbeFailure('node', r), null);
});

test('a missing command resolves with ENOENT and a one-line reason', async () => {
  const r = await runProbe('no-such-command-for-this-course', [], { env: { PATH: '/nonexistent' } });
  assert.equal(r.ok, false);
  assert.equal(r.error, 'ENOENT');
  assert.equal(describeProbeFailure('no-such-command-for-this-course', r), 'no-such-command-for-this-course not found');
});

test('a failing command: its status and the first line it printed on stderr', async () => {
  const r = await runProbe('sh', ['-c', 'echo "driver not loaded" >&2; echo more >&2; exit 9']);
  assert.equal(r.ok, false);
  assert.equal(r.code, 9);
  assert.equal(describeProbeFailure('nvidia-smi', r), 'nvidia-smi exited with status 9: driver not loaded');
});

test('a command that ignores SIGTERM, with a child holding the pipe: the group is killed and the probe ends in time', async () => {
  const started = performance.now();
  const r = await runProbe('sh', STUBBORN, { timeoutMs: TIMEOUT_MS, graceMs: GRACE_MS });
  const elapsed = performance.now() - started;
  assert.ok(elapsed < BOUND_MS, `took ${elapsed.toFixed(0)} ms, bound ${BOUND_MS} ms`);
  assert.ok(elapsed >= TIMEOUT_MS, `took ${elapsed.toFixed(0)} ms, before the timeout`);
  assert.equal(r.timedOut, true);
  assert.equal(r.ok, false);
  assert.equal(r.signal, 'SIGKILL', 'SIGTERM was ignored, so SIGKILL ended it');
  assert.equal(describeProbeFailure('nvidia-smi', r), 'nvidia-smi did not finish within 0.4 s and was killed');
  const sleeper = Number(r.stdout.trim());
  assert.ok(Number.isInteger(sleeper) && sleeper > 0, `the script printed its child's pid: ${JSON.stringify(r.stdout)}`);
  assert.ok(await gone(sleeper), `the grandchild ${sleeper} (sleep 30) was killed with its group`);
});

test('a command that stops on SIGTERM is not waited for a grace period', async () => {
  const r = await runProbe('sh', ['-c', 'sleep 30'], { timeoutMs: TIMEOUT_MS, graceMs: 5000 });
  assert.equal(r.timedOut, true);
  assert.equal(r.signal, 'SIGTERM');
  assert.ok(r.elapsedMs < TIMEOUT_MS + 2000, `took ${r.elapsedMs.toFixed(0)} ms`);
});

test('a command that exits but leaves a child holding the pipe: its answer, after one grace period', async () => {
  const r = await runProbe('sh', ['-c', 'sleep 30 & echo $!; echo answer; exit 0'], { timeoutMs: 10_000, graceMs: GRACE_MS });
  assert.equal(r.ok, true);
  assert.equal(r.timedOut, false);
  assert.ok(r.elapsedMs < GRACE_MS + 1500, `took ${r.elapsedMs.toFixed(0)} ms`);
  const [pid, answer] = r.stdout.trim().split('\n');
  assert.equal(answer, 'answer');
  assert.ok(await gone(Number(pid)), 'the leftover child was killed with the group');
});

test('output is capped at maxBytes per stream; the command is still read to the end', async () => {
  const r = await runProbe(process.execPath, ['-e', 'process.stdout.write("x".repeat(1 << 20)); process.stderr.write("y".repeat(5000))'], { maxBytes: 1000 });
  assert.equal(r.ok, true);
  assert.equal(r.stdout, 'x'.repeat(1000));
  assert.equal(r.stderr, 'y'.repeat(1000));
  assert.equal(r.truncated, true);
});

test('escape sequences and control characters never come back', async () => {
  const garbage = String.raw`printf '\033]0;pwned\007\033[2J\033[31mTesla T4\033[0m, 15360\r\n\033P1$r\033\\bell\007\010\033c end\n'`;
  const r = await runProbe('sh', ['-c', garbage]);
  assert.equal(r.stdout, 'Tesla T4, 15360\nbell end\n');
});

test('sanitiseText: hand-written cases', () => {
  assert.equal(terminalText('\x1b[1;31mred\x1b[0m'), 'red');
  assert.equal(terminalText('a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b'), 'alinkb');
  assert.equal(terminalText('over\rwrite', { multiline: true }), 'over\nwrite');
  assert.equal(terminalText('tab\tand\nnewline kept', { multiline: true }), 'tab\tand\nnewline kept');
  assert.equal(terminalText('nul\x00 del\x7f c1\x9b31m bidi\u202eevil', { multiline: true, controls: 'drop' }), 'nul del c131m bidievil');
  assert.equal(terminalText('ünïcødé ✓'), 'ünïcødé ✓');
  assert.equal(oneLine('  two\n lines\x1b[2J  '), 'two lines');
  assert.equal(oneLine('x'.repeat(300), 10), `${'x'.repeat(9)}…`);
});

test('bad options name the option and the rule', () => {
  assert.throws(() => resolveProbeOptions({ timeoutMs: 0 }), { name: 'RangeError', message: 'options.timeoutMs must be a finite number >= 1, got 0' });
  assert.throws(() => resolveProbeOptions({ graceMs: Number.NaN }), { name: 'RangeError', message: 'options.graceMs must be a finite number >= 0, got NaN' });
  assert.throws(() => resolveProbeOptions({ maxBytes: 1.5 }), { name: 'RangeError', message: 'options.maxBytes must be a whole number of bytes, got 1.5' });
  assert.deepEqual({ ...resolveProbeOptions(), env: null }, { timeoutMs: 10_000, graceMs: 1_000, env: null, cwd: undefined, maxBytes: 65_536 });
});

test('runProbeSync keeps the same bound for a command that ignores SIGTERM', () => {
  const started = performance.now();
  const r: ProbeResult = runProbeSync('sh', STUBBORN, { timeoutMs: TIMEOUT_MS, graceMs: GRACE_MS });
  const elapsed = performance.now() - started;
  assert.ok(elapsed < BOUND_MS + 1000, `took ${elapsed.toFixed(0)} ms`);
  assert.equal(r.timedOut, true);
  assert.equal(describeProbeFailure('nvidia-smi', r), 'nvidia-smi did not finish within 0.4 s and was killed');
  const ok = runProbeSync(process.execPath, ['-e', 'console.log(42)']);
  assert.equal(ok.ok, true);
  assert.equal(ok.stdout, '42\n');
});
