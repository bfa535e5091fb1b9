/**
 * The program episode 04 ("Measure first") profiles: it summarises a synthetic web-server access log (how many
 * distinct users, the 95th-percentile response time per route). It is deliberately written the first way that
 * comes to mind, with one slow part, so that a profile has something to find.
 *
 *   node --cpu-prof --cpu-prof-dir=profiles labs/harness/examples/log-summary.ts [--set]
 *   npm run profile -- profiles/<the file it wrote>.cpuprofile
 *
 * The log is generated, not read, so every learner profiles the same work: same seed, same lines.
 */

export interface LogRecord {
  user: string;
  route: string;
  /** Response time in ms. */
  ms: number;
}

export interface LogSummary {
  lines: number;
  distinctUsers: number;
  /** 95th percentile (nearest rank) of the response time per route, in ms. */
  p95ByRoute: Map<string, number>;
}

/** Lines in the walk-through's log, and the users they are drawn from: sized for about a second of work. */
export const WALKTHROUGH_LINES = 100_000;
export const WALKTHROUGH_USERS = 5_000;

const ROUTES = ['/api/items', '/api/items/:id', '/api/cart', '/api/checkout', '/login', '/static/app.js'];

/** A small deterministic generator (32-bit LCG, Numerical Recipes constants) returning numbers in [0, 1). */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** `count` access-log lines such as `2026-12-02T10:00:07Z user=u417 GET /api/cart 200 12.625ms`. */
export function makeLog(count: number, users: number, seed: number): string[] {
  const random = lcg(seed);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const second = String(i % 60).padStart(2, '0');
    const user = `u${Math.floor(random() * users)}`;
    const route = ROUTES[Math.floor(random() * ROUTES.length)] as string;
    // Mostly fast responses with a long tail, as real services have; in 1/8 ms steps.
    const ms = Math.round((2 + 40 * random() ** 4) * 8) / 8;
    lines.push(`2026-12-02T10:00:${second}Z user=${user} GET ${route} 200 ${ms}ms`);
  }
  return lines;
}

const LINE_PATTERN = /^\S+ user=(\S+) [A-Z]+ (\S+) \d{3} ([\d.]+)ms$/;

/** One line as a record; throws on a line that is not in the log's format. */
export function parseLine(line: string): LogRecord {
  const match = LINE_PATTERN.exec(line);
  if (match === null) throw new Error(`not an access-log line: ${line}`);
  return { user: match[1] as string, route: match[2] as string, ms: Number(match[3]) };
}

/** The number of distinct users, by scanning the users seen so far: O(records x distinct users). */
export function countDistinctUsers(records: readonly LogRecord[]): number {
  const seen: string[] = [];
  for (const record of records) {
    if (!seen.includes(record.user)) seen.push(record.user);
  }
  return seen.length;
}

/** The same count with a Set: O(records), the fix a profile of countDistinctUsers points to. */
export function countDistinctUsersWithSet(records: readonly LogRecord[]): number {
  return new Set(records.map((r) => r.user)).size;
}

/** Nearest-rank percentile `p` (0 < p <= 100) of `values`, which it sorts in place. */
export function percentile(values: number[], p: number): number {
  values.sort((a, b) => a - b);
  return values[Math.max(0, Math.ceil((p / 100) * values.length) - 1)] as number;
}

/** The 95th-percentile response time per route, in ms. */
export function p95ByRoute(records: readonly LogRecord[]): Map<string, number> {
  const byRoute = new Map<string, number[]>();
  for (const record of records) {
    const times = byRoute.get(record.route) ?? [];
    times.push(record.ms);
    byRoute.set(record.route, times);
  }
  const result = new Map<string, number>();
  for (const [route, times] of byRoute) result.set(route, percentile(times, 95));
  return result;
}

/** The whole summary; `useSet` picks the Set-based distinct count instead of the scan. */
export function summarizeLog(lines: readonly string[], useSet = false): LogSummary {
  const records = lines.map(parseLine);
  const distinctUsers = useSet ? countDistinctUsersWithSet(records) : countDistinctUsers(records);
  return { lines: records.length, distinctUsers, p95ByRoute: p95ByRoute(records) };
}

if (import.meta.main) {
  // --set: count distinct users with a Set (the challenge's fix), to check a prediction against a new profile.
  const useSet = process.argv.includes('--set');
  const started = performance.now();
  const lines = makeLog(WALKTHROUGH_LINES, WALKTHROUGH_USERS, 42);
  const summary = summarizeLog(lines, useSet);
  const elapsedMs = performance.now() - started;
  // Printing the result keeps the work observable: nothing here can be optimised away unseen.
  console.log(`${summary.lines} lines, ${summary.distinctUsers} distinct users`);
  for (const [route, p95] of [...summary.p95ByRoute].sort()) console.log(`p95 ${route.padEnd(16)} ${p95} ms`);
  console.log(`${useSet ? 'Set' : 'scan'}: ${elapsedMs.toFixed(0)} ms from makeLog to the summary (performance.now)`);
}
