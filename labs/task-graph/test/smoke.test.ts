/**
 * A tiny-sampling run of the whole lab through runLab, planned for 2 CPUs: the solution passes the check and writes
 * valid results whose graph observations are the graphs it built (the tree: 63 tasks, span 6; the chain: span =
 * work), its analysis writes the values the episode names; the shipped exercise fails kindly (the tree not
 * implemented, the worked chain passing) and exits 1.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../../harness/test/support/temp-dir.ts';
import { runLab } from '@parallel-course/harness/testing.ts';
import { parseResultsJson } from '@parallel-course/core';
import { parseAnalysisValuesJson } from '@parallel-course/core';
import { OBSERVATIONS } from '../src/cases.ts';
import { countFor } from '../src/lab.ts';

const WORKERS = 2;
const COUNT = countFor(WORKERS);
const TINY = { warmupSamples: 0, rounds: 1, samplesPerRound: 1 };

test('a tiny run of the solution passes the check; the bounds come from the graphs it built', { timeout: 120_000 }, async (t) => {
  const outDir = tempDir(t, 'task-graph-smoke-');
  const outcome = await runLab({ lab: 'task-graph', impl: 'solution', quick: true, outDir, sampling: TINY, silent: true, cpus: WORKERS });
  assert.equal(outcome.exitCode, 0, outcome.summary);
  const results = parseResultsJson(readFileSync(path.join(outcome.runDir!, 'results.json'), 'utf8'), 'results.json');
  assert.deepEqual(results.headline?.params, { count: COUNT, size: 80, workers: WORKERS });
  const observed = (variant: string, workers: number, name: string) =>
    results.cases.find((c) => c.variant === variant && c.params['workers'] === workers)!.observations[name]!.samples;
  for (const workers of [1, 2]) {
    assert.deepEqual(observed('tree', workers, OBSERVATIONS.tasks), [COUNT - 1]);
    assert.deepEqual(observed('tree', workers, OBSERVATIONS.spanTasks), [Math.ceil(Math.log2(COUNT))]);
    assert.deepEqual(observed('flat', workers, OBSERVATIONS.spanTasks), [COUNT - 1]);
    assert.deepEqual(observed('flat', workers, OBSERVATIONS.spanMs), observed('flat', workers, OBSERVATIONS.workMs));
  }
  const values = parseAnalysisValuesJson(readFileSync(path.join(outcome.runDir!, 'analysis', 'values.json'), 'utf8'));
  for (const key of ['treeSpeedupP', 'treeWorkMsP', 'treeSpanMsP', 'treeCeilingP', 'treeBrentP', 'flatCeilingP', 'treeSpeedupW1', 'treeOverChainP', 'treeOverChainW1', 'emptyTaskUs']) {
    assert.ok(values.values[key], `values.json has ${key}`);
  }
  assert.equal(values.values['flatCeilingP']!.value, 1, 'the chain: span = work, ceiling 1');
  assert.equal(values.values['treeSpanTasksP']!.value, Math.ceil(Math.log2(COUNT)));
  const overhead = values.tables['schedulerOverhead']!;
  assert.match(String(overhead.rows[0]![0]), /^this lab: piscina, 2 threads/);
  assert.ok(overhead.rows.some((row) => row[0] === 'Dask, threaded scheduler' && row[1] === '116 µs' && row[2] === 'measured elsewhere, same hour, this machine kind, 2026-12'));
  assert.deepEqual([...readFileSync(path.join(outcome.runDir!, 'analysis', 'bounds.png')).subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
});

test('a tiny run of the shipped exercise says what is missing and exits 1', { timeout: 120_000 }, async (t) => {
  const outDir = tempDir(t, 'task-graph-exercise-');
  const outcome = await runLab({ lab: 'task-graph', impl: 'exercise', quick: true, outDir, sampling: TINY, silent: true, cpus: WORKERS });
  assert.equal(outcome.exitCode, 1);
  for (const e of outcome.correctness.filter((c) => c.variant === 'tree')) {
    assert.match(e.reason ?? '', /^not implemented: treeProduct in exercises\/task-graph\/graph\.ts \(/);
  }
  assert.ok(outcome.correctness.filter((c) => c.variant !== 'tree').every((e) => e.passed), 'the worked chain, the serial product and the empty tasks pass');
});
