/**
 * The event-loop lab: its pieces on known values, the solution's handlers against the reference bytes,
 * a real quick run of the solution through the harness (one sample per case), and the shipped exercise reported as
 * not implemented through the CLI.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runLab, runningProcesses } from '@parallel-course/harness/testing.ts';
import { tempDir } from '../../harness/test/support/temp-dir.ts';
import { fileURLToPath } from 'node:url';
import { parseAnalysisValuesJson, parseResultsJson } from '@parallel-course/core';
import { burstFor, requestsPerBurst, workerCounts } from '../src/lab.ts';
import { createLabServer } from '../src/server.ts';
import { deriveRingSync, formatBody, parseAccount, type RingHandler } from '../src/work.ts';
import * as solution from '../../../solutions/event-loop/handlers.ts';
import * as exercise from '../../../exercises/event-loop/handlers.ts';

const CLI = fileURLToPath(new URL('../../harness/src/cli.ts', import.meta.url));

test('the sweep follows P: every count to 4, powers of two, P, and 2P oversubscribed while 24 requests cover it', () => {
  assert.deepEqual(workerCounts(1), [1, 2]);
  assert.deepEqual(workerCounts(2), [1, 2, 4]);
  assert.deepEqual(workerCounts(8), [1, 2, 3, 4, 8, 16]);
  assert.deepEqual(workerCounts(12), [1, 2, 3, 4, 8, 12, 24]);
  assert.deepEqual(workerCounts(16), [1, 2, 3, 4, 8, 16]);
  assert.deepEqual(workerCounts(128), [1, 2, 3, 4, 8, 16, 32, 64, 128]);
  // The smallest multiple of the largest pool that is at least 24: whole requests for every pool from 4 up.
  assert.equal(requestsPerBurst(4), 24);
  assert.equal(requestsPerBurst(16), 32);
  assert.deepEqual([1, 2, 8, 12, 16, 64, 128].map(burstFor), [24, 24, 32, 24, 32, 64, 128]);
});

test('accounts are parsed strictly', () => {
  assert.equal(parseAccount('42'), 42);
  assert.equal(parseAccount('1000000000'), 1_000_000_000);
  for (const bad of [null, '', '-1', '1e3', '1000000001', '12345678901', ' 1', '0x10']) assert.equal(parseAccount(bad), null, String(bad));
});

test('a ring is the account line and 8 hex keys of 32 bytes', () => {
  const body = deriveRingSync(7);
  const lines = body.split('\n');
  assert.equal(lines[0], 'account 7');
  assert.equal(lines.length, 10); // header, 8 keys, and the empty string after the final newline
  assert.ok(lines.slice(1, 9).every((line) => /^[0-9a-f]{64}$/.test(line)));
  assert.equal(formatBody(1, ['ab', 'cd']), 'account 1\nab\ncd\n');
});

test("the solution's handlers return the reference bytes", async () => {
  const handlers: [string, RingHandler][] = [
    ['chunked', solution.createChunkedHandler()],
    ['threadpool', solution.createThreadpoolHandler()],
    ['pool', solution.createPoolHandler(2)],
  ];
  try {
    for (const [name, handler] of handlers) {
      for (const account of [0, 3, 1_000_000_000]) assert.equal(await handler.derive(account), deriveRingSync(account), `${name} ${account}`);
    }
  } finally {
    for (const [, handler] of handlers) await handler.close();
  }
});

test('the shipped exercise says what to write and where', async () => {
  await assert.rejects(exercise.createChunkedHandler().derive(1), /^NotImplementedError: not implemented: createChunkedHandler in exercises\/event-loop\/handlers\.ts/);
  await assert.rejects(exercise.createThreadpoolHandler().derive(1), /not implemented: createThreadpoolHandler/);
  assert.throws(() => exercise.createPoolHandler(2), /not implemented: createPoolHandler in exercises\/event-loop\/handlers\.ts/);
});

test('the server answers bad requests with a status, never a crash', async () => {
  const server = createLabServer({
    derive: async (account) => (account === 1 ? Promise.reject(new Error('not implemented: x')) : Promise.reject(new Error('boom'))),
    close: async () => {},
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const get = async (p: string, method = 'GET') => {
    const res = await fetch(`http://127.0.0.1:${port}${p}`, { method });
    return `${res.status} ${(await res.text()).trim()}`;
  };
  try {
    assert.equal(await get('/ping'), '200 pong');
    assert.equal(await get('/derive?account=-3'), '400 account must be an integer from 0 to 1000000000');
    assert.equal(await get('/derive?account=1'), '501 not implemented: x');
    assert.equal(await get('/derive?account=2'), '500 boom');
    assert.equal(await get('/nope'), '404 no route /nope');
    assert.equal(await get('/ping', 'POST'), '405 only GET');
  } finally {
    server.close();
  }
});

function serverProcesses(): string[] {
  return runningProcesses(fileURLToPath(new URL('../src/server-main.ts', import.meta.url)));
}

// One sample per case (TINY): every case still runs a real server under real load and passes its check first; the
// CLI around runLab is tested on the harness's fixture labs (cli.test.ts), so this file no longer spends its quick
// sampling (9 samples a case, about 35 CPU-seconds more) on it.
const TINY = { warmupSamples: 0, rounds: 1, samplesPerRound: 1 };

test('a quick run of the solution writes valid results and both reports, and leaves no server behind', { timeout: 240_000 }, async (t) => {
  const out = tempDir(t, 'event-loop-quick-');
  const outcome = await runLab({ lab: 'event-loop', impl: 'solution', quick: true, outDir: out, sampling: TINY, silent: true, cpus: 2 });
  assert.equal(outcome.exitCode, 0, outcome.summary);
  const runDir = outcome.runDir!;
  assert.equal(path.dirname(runDir), path.join(out, 'event-loop'));
  const results = parseResultsJson(readFileSync(path.join(runDir, 'results.json'), 'utf8'), 'results.json');
  assert.equal(results.impl, 'solution');
  assert.ok(results.correctness.every((e) => e.passed));
  assert.equal(results.headline?.variant, 'pool');
  assert.deepEqual(results.headline?.params, { workers: 2 });
  const inline = results.cases.find((c) => c.variant === 'inline')!;
  assert.ok(inline.observations['ping latency']!.samples.length > 0);
  assert.equal(inline.workPerSample.unit, 'requests');
  assert.ok(existsSync(path.join(runDir, 'report.html')));
  assert.match(readFileSync(path.join(runDir, 'report.md'), 'utf8'), /\.png\)/);
  assert.match(outcome.summary, /Report: {2}.*report\.html/);
  // The lab's analysis wrote its values and its table (analysis.ts), valid under the course's schema.
  const values = parseAnalysisValuesJson(readFileSync(path.join(runDir, 'analysis', 'values.json'), 'utf8'));
  assert.equal(values.values.cpus?.value, 2);
  assert.equal(values.values.poolAtPSpeedup?.value, results.headline?.speedup);
  assert.ok((values.values.inlinePingP99Ms?.value ?? 0) > 0);
  assert.equal(values.tables.cases?.rows.length, results.cases.length);
  assert.deepEqual(serverProcesses(), []);
});

test('the shipped exercise is reported as not implemented, exits 1 and writes nothing', { timeout: 120_000 }, (t) => {
  const out = tempDir(t, 'event-loop-exercise-');
  const run = spawnSync(process.execPath, [CLI, 'event-loop', '--quick', '--cpus', '2', '--out', out], { encoding: 'utf8', timeout: 110_000 });
  assert.equal(run.status, 1, run.stderr + run.stdout);
  assert.match(run.stdout, /TODO {2}chunked: not implemented: createChunkedHandler in exercises\/event-loop\/handlers\.ts/);
  assert.match(run.stdout, /TODO {2}pool \(workers=2\): not implemented: createPoolHandler/);
  assert.match(run.stdout, /ok {4}inline/);
  assert.match(run.stdout, /No results were written/);
  assert.equal(existsSync(path.join(out, 'event-loop')), false);
  assert.deepEqual(serverProcesses(), []);
});
