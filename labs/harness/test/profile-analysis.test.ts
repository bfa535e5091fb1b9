/**
 * Reading a CPU profile: sample weights, self time, total time with recursion counted once, aggregation by function,
 * and the messages for files that are not usable profiles. All on one small hand-made profile.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ProfileFormatError,
  parseCpuProfile,
  sampleWeightsUs,
  selfTimePerNodeUs,
  summarizeProfile,
  topBySelf,
  topByTotal,
  type CpuProfile,
} from '../src/tools/profile-analysis.ts';

const frame = (functionName: string, url: string, lineNumber: number) => ({ functionName, url, lineNumber, columnNumber: 0 });
const APP = 'file:///app/app.js';

/**
 * The call tree (node id: function):
 *   1 (root) -> 2 main -> 4 hot
 *                      -> 5 walk -> 7 walk -> 8 hot      (walk is recursive; hot is reached on two paths)
 *            -> 3 (garbage collector)
 *            -> 6 (idle)
 * Samples (top node) and timeDeltas (µs since the previous sample), startTime 1000, endTime 2500:
 *   sample     0    1    2    3    4    5    6    7
 *   node       2    4    4    7    8    3    6    5
 *   delta     50  100  200  100  300  100  250  100
 *   time    1050 1150 1350 1450 1750 1850 2100 2200
 * Weight of sample i = delta[i + 1]; the last = 2500 - 2200 = 300:
 *   weight   100  200  100  300  100  250  100  300      (sum 1450 = 2500 - 1050)
 */
const HAND_MADE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', '', -1), children: [2, 3, 6] },
    { id: 2, callFrame: frame('main', APP, 0), children: [4, 5] },
    { id: 3, callFrame: frame('(garbage collector)', '', -1) },
    { id: 4, callFrame: frame('hot', APP, 9) },
    { id: 5, callFrame: frame('walk', APP, 19), children: [7] },
    { id: 6, callFrame: frame('(idle)', '', -1) },
    { id: 7, callFrame: frame('walk', APP, 19), children: [8] },
    { id: 8, callFrame: frame('hot', APP, 9), children: [] },
  ],
  startTime: 1000,
  endTime: 2500,
  samples: [2, 4, 4, 7, 8, 3, 6, 5],
  timeDeltas: [50, 100, 200, 100, 300, 100, 250, 100],
};

test('each sample is charged the interval to the next sample, the last one the interval to endTime', () => {
  assert.deepEqual(sampleWeightsUs(HAND_MADE), [100, 200, 100, 300, 100, 250, 100, 300]);
});

test('a negative interval (a clock step) counts as 0, not as negative time', () => {
  assert.deepEqual(sampleWeightsUs({ ...HAND_MADE, samples: [2, 4], timeDeltas: [10, -5], endTime: 1100 }), [0, 95]);
});

test('self time per node sums the weights of the samples with that node on top', () => {
  // node 4: samples 1 and 2 = 200 + 100; every other node has one sample.
  assert.deepEqual(
    [...selfTimePerNodeUs(HAND_MADE)].sort(([a], [b]) => a - b),
    [[2, 100], [3, 250], [4, 300], [5, 300], [6, 100], [7, 300], [8, 100]],
  );
});

test('functions: self and total time in ms, merged over call paths, a recursive function counted once per stack', () => {
  const summary = summarizeProfile(HAND_MADE);
  assert.equal(summary.sampledMs, 1.45);
  assert.equal(summary.sampleCount, 8);
  assert.equal(summary.idleMs, 0.1);
  const byName = Object.fromEntries(summary.functions.map((f) => [f.functionName, f]));
  assert.deepEqual(Object.keys(byName).sort(), ['(garbage collector)', '(idle)', 'hot', 'main', 'walk'], '(root) is left out');
  // hot: nodes 4 and 8 (same name, url and line) are one function: 300 + 100 µs.
  assert.deepEqual(byName.hot, { functionName: 'hot', url: APP, line: 10, selfMs: 0.4, totalMs: 0.4 });
  // walk: self = node 7 + node 5 = 300 + 300. Total = node 7's 300 + node 8's 100 + node 5's 300 = 700; counting
  // every frame would count node 7's and node 8's time twice (once for each walk on their stacks): 1100.
  assert.deepEqual(byName.walk, { functionName: 'walk', url: APP, line: 20, selfMs: 0.6, totalMs: 0.7 });
  // main: everything under it, 100 + 300 + 300 + 100 + 300 = 1100 µs; GC and idle sit beside it under (root).
  assert.deepEqual(byName.main, { functionName: 'main', url: APP, line: 1, selfMs: 0.1, totalMs: 1.1 });
  assert.deepEqual(byName['(garbage collector)'], { functionName: '(garbage collector)', url: '', line: null, selfMs: 0.25, totalMs: 0.25 });
});

test('top tables: by self time and by total time, ties broken by the other time', () => {
  const summary = summarizeProfile(HAND_MADE);
  // main and (idle) both have 0.1 ms of self time; main has more total time, so it comes first.
  assert.deepEqual(topBySelf(summary, 10).map((f) => f.functionName), ['walk', 'hot', '(garbage collector)', 'main', '(idle)']);
  assert.deepEqual(topByTotal(summary, 10).map((f) => f.functionName), ['main', 'walk', 'hot', '(garbage collector)', '(idle)']);
  assert.deepEqual(topBySelf(summary, 2).map((f) => f.functionName), ['walk', 'hot']);
});

test('frames with the same name on different lines are different functions', () => {
  const profile: CpuProfile = {
    ...HAND_MADE,
    nodes: HAND_MADE.nodes.map((n) => (n.id === 8 ? { ...n, callFrame: frame('hot', APP, 49) } : n)),
  };
  const hots = summarizeProfile(profile).functions.filter((f) => f.functionName === 'hot');
  assert.deepEqual(hots.map((f) => [f.line, f.selfMs]).sort(), [[10, 0.3], [50, 0.1]]);
});

function formatError(json: unknown): ProfileFormatError {
  try {
    parseCpuProfile(json);
  } catch (error) {
    assert.ok(error instanceof ProfileFormatError, String(error));
    return error;
  }
  assert.fail('parseCpuProfile accepted a bad profile');
}

test('parseCpuProfile accepts the hand-made profile as it is', () => {
  assert.deepEqual(parseCpuProfile(JSON.parse(JSON.stringify(HAND_MADE))), HAND_MADE);
});

test('messages name the problem and how to get a usable profile', () => {
  assert.equal(
    formatError({ name: 'not a profile' }).message,
    'not a CPU profile (nodes: Invalid input: expected array, received undefined; startTime: Invalid input: expected number, received undefined; ' +
      'endTime: Invalid input: expected number, received undefined); record one with: node --cpu-prof --cpu-prof-dir=<dir> <script> ' +
      '(it writes a .cpuprofile JSON file into <dir>)',
  );
  assert.equal(
    formatError({ ...HAND_MADE, samples: [], timeDeltas: [] }).message,
    'the profile has no samples (the program ended before the profiler first sampled it); profile a run that lasts longer, ' +
      'or sample more often with --cpu-prof-interval 100 (microseconds; the default is 1000)',
  );
  assert.equal(
    formatError({ ...HAND_MADE, timeDeltas: [1, 2] }).problem,
    'samples has 8 entries but timeDeltas has 2; they must match',
  );
  assert.equal(formatError({ ...HAND_MADE, samples: [2, 99, 4, 4, 4, 4, 4, 4] }).problem, 'a sample names node 99, which is not in nodes');
  const broken = { ...HAND_MADE, nodes: HAND_MADE.nodes.map((n) => (n.id === 2 ? { ...n, children: [4, 42] } : n)) };
  assert.equal(formatError(broken).problem, 'node 2 lists child 42, which is not in nodes (a truncated or edited file?)');
  assert.match(formatError({ ...HAND_MADE, nodes: [] }).problem, /^not a CPU profile \(nodes: Too small/);
});
