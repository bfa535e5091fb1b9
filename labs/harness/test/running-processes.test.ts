/**
 * runningProcesses (src/testing.ts), which the "no process is left behind" checks use: it finds the processes this
 * test file started that run a given script, and not another test file's running the same script beside it (npm test
 * runs several files at once, support/suite.ts).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ownedBy, runningProcesses, TEST_OWNER_VARIABLE } from '../src/testing.ts';
import { tempDir } from './support/temp-dir.ts';

test('ownedBy reads the owner from a NUL-separated environment, whole entries only', () => {
  assert.equal(ownedBy(`PATH=/bin\0${TEST_OWNER_VARIABLE}=42\0HOME=/root`, '42'), true);
  assert.equal(ownedBy(`${TEST_OWNER_VARIABLE}=420\0`, '42'), false);
  assert.equal(ownedBy(`X_${TEST_OWNER_VARIABLE}=42\0`, '42'), false);
  assert.equal(ownedBy('PATH=/bin\0', '42'), false);
});

test('runningProcesses: this file\'s process running the script, not another owner\'s running the same script', { skip: process.platform !== 'linux' ? 'the owner filter reads /proc (Linux)' : false }, async (t) => {
  const dir = tempDir(t, 'running-processes-');
  const script = path.join(dir, 'sleeper.mjs');
  writeFileSync(script, "process.stdout.write('up\\n'); setTimeout(() => {}, 60_000);\n");
  const children: ChildProcess[] = [];
  t.after(() => {
    for (const child of children) child.kill('SIGKILL');
  });
  const start = async (env: NodeJS.ProcessEnv): Promise<ChildProcess> => {
    const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(child);
    await new Promise((up) => child.stdout!.once('data', up));
    return child;
  };
  assert.equal(process.env[TEST_OWNER_VARIABLE], String(process.pid), 'importing testing.ts marks this file\'s process as the owner');
  const mine = await start(process.env);
  const others = await start({ ...process.env, [TEST_OWNER_VARIABLE]: 'another-test-file' });
  assert.deepEqual(runningProcesses(script), [String(mine.pid)]);
  const ended = new Promise((done) => mine.once('exit', done));
  mine.kill('SIGKILL');
  await ended;
  assert.deepEqual(runningProcesses(script), [], 'the other owner\'s process is still running, and not counted');
  assert.equal(others.exitCode, null);
});
