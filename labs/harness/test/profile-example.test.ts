/**
 * The program episode 04 profiles (labs/harness/examples/log-summary.ts) gives right answers, and its slow and fast
 * distinct-user counts agree: check correctness before timing anything.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  countDistinctUsers,
  countDistinctUsersWithSet,
  makeLog,
  p95ByRoute,
  parseLine,
  percentile,
  summarizeLog,
  type LogRecord,
} from '../examples/log-summary.ts';

const record = (user: string, route: string, ms: number): LogRecord => ({ user, route, ms });

test('parseLine reads user, route and ms, and rejects a line in another format', () => {
  assert.deepEqual(parseLine('2026-12-02T10:00:07Z user=u417 GET /api/cart 200 12.625ms'), record('u417', '/api/cart', 12.625));
  assert.throws(() => parseLine('hello'), { message: 'not an access-log line: hello' });
});

test('distinct users: the scan and the Set agree on a hand-counted list', () => {
  // a, b, a, c, b: three distinct users.
  const records = ['a', 'b', 'a', 'c', 'b'].map((u) => record(u, '/', 1));
  assert.equal(countDistinctUsers(records), 3);
  assert.equal(countDistinctUsersWithSet(records), 3);
  assert.equal(countDistinctUsers([]), 0);
});

test('nearest-rank percentiles', () => {
  // Reference: rank = ceil(p / 100 * n); the value at that rank (1-based) of the sorted list.
  assert.equal(percentile([5, 1, 4, 2, 3], 95), 5); // ceil(4.75) = 5
  assert.equal(percentile(Array.from({ length: 20 }, (_, i) => 20 - i), 95), 19); // ceil(19) = 19
  assert.equal(percentile([4, 3, 2, 1], 50), 2); // ceil(2) = 2
  assert.equal(percentile([7], 95), 7);
});

test('p95 per route', () => {
  // /a: [10, 30, 20] -> rank ceil(2.85) = 3 -> 30; /b: [7] -> 7.
  const result = p95ByRoute([record('x', '/a', 10), record('y', '/b', 7), record('x', '/a', 30), record('z', '/a', 20)]);
  assert.deepEqual([...result].sort(), [['/a', 30], ['/b', 7]]);
});

test('the generated log is the same for the same seed, parses, and both counts agree on it', () => {
  const lines = makeLog(2000, 300, 42);
  assert.deepEqual(makeLog(2000, 300, 42), lines);
  assert.notDeepEqual(makeLog(2000, 300, 43), lines);
  const slow = summarizeLog(lines, false);
  const fast = summarizeLog(lines, true);
  assert.deepEqual(fast, slow);
  assert.equal(slow.lines, 2000);
  // 2000 draws from 300 users leave almost none unseen (expected unseen: 300 * (299/300)^2000, about 0.4).
  assert.ok(slow.distinctUsers > 290 && slow.distinctUsers <= 300, String(slow.distinctUsers));
  assert.equal(slow.p95ByRoute.size, 6, 'every route appears');
});
