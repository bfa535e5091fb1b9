/**
 * Episode 06 in the browser, in three parts (the select above the buttons):
 *   sweep:   one job of points split into tasks of 2^8..2^16 points over a pool of P workers (per-message cost
 *            against work per task), against the whole job on the main thread;
 *   handoff: 1, 8 and 64 MiB handed to a worker by structured clone, by transfer, and through a SharedArrayBuffer
 *            (only when the page is cross-origin isolated);
 *   race:    P workers increment one shared counter: plainly (shown losing updates, never timed), with Atomics.add per
 *            increment, and counting locally with one Atomics.add each (needs isolation too);
 *   graph:   the task-graph lab's product of matrices as a chain and a tree of futures (task-graph-part.ts).
 */
import { pageParallelism } from '../environment.ts';
import { checksum, fillPattern, sumPoints } from '../granularity.ts';
import type { BrowserCase, BrowserLab, CaseHandle, CheckVerdict } from '../lab-types.ts';
import { WorkerPool } from '../pool.ts';
import { RECORDER_HARNESS } from '../graph-recorder.ts';
import { COUNT, graphLab } from './task-graph-part.ts';

/**
 * The part "task graphs"' exercise (the page's code editor): the learner's treeProduct, tried in a worker through the
 * graph recorder, then run as `your-graph`.
 */
export const EXERCISE = { key: 'tree-product', language: 'javascript', fnName: 'treeProduct', args: [COUNT], harness: RECORDER_HARNESS, variant: 'your-graph', part: 'graph' } as const;

type Reply = number | { sum: number; data?: Uint8Array };
/**
 * One job: 2^23 points (about 8 ms on one laptop core), as many as the Node lab's headline, in chunks from 2^10 (8,192
 * tasks of about 1 us: the messages cost more than the work) to 2^20 (8 tasks of about 1 ms: the pool wins). With 2^19
 * points and chunks up to 2^16 every chunk lost to the main thread (0.02x to 0.56x on a 2-CPU machine, issue 44): the
 * sweep showed only the left arm of the U, never the gain.
 */
const POINTS = 1 << 23;
const CHUNKS = [1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20];
/** The headline's chunk: 2^20 points per task, the Node lab's headline chunk too. */
const HEADLINE_CHUNK = 1 << 20;
/** Hand-off sizes: the full run's 1-64 MiB; the quick run's two (a 64 MiB clone is slow on a small machine). */
const SIZES_MIB = [1, 4, 16, 64];
const QUICK_SIZES_MIB = [1, 16];
const INCREMENTS = 200_000;

const newPool = (size: number): WorkerPool<Record<string, unknown>, Reply> =>
  new WorkerPool(size, () => new Worker(new URL('../workers/granularity-worker.ts', import.meta.url), { type: 'module' }));

function exact(expected: number, actual: number, what: string): CheckVerdict {
  if (actual === expected) return { passed: true, reason: null, firstMismatch: null, maxAbsError: null, maxRelError: null };
  return { passed: false, reason: `${what} ${String(actual)}, expected ${expected}`, firstMismatch: { index: 'total', expected: String(expected), actual: String(actual) }, maxAbsError: typeof actual === 'number' ? Math.abs(actual - expected) : null, maxRelError: null };
}

const isolationOff = (what: string): string | null =>
  globalThis.crossOriginIsolated === true ? null : `${what} needs SharedArrayBuffer, which needs a cross-origin isolated page (COOP/COEP headers: npm start sends them; this host does not)`;

function sweepLab(p: number): BrowserLab<number> {
  let expectedTotal: number | null = null;
  const cases: BrowserCase<number>[] = [
    { variant: 'main', params: {}, unavailable: null, async setup() {
      return { run: async (reps) => { let s = 0; for (let r = 0; r < reps; r++) s += sumPoints(0, POINTS); return s; }, teardown() {} };
    } },
    ...CHUNKS.map((chunk): BrowserCase<number> => ({
      variant: 'pool', params: { chunk, workers: p }, workers: p, unavailable: typeof Worker === 'undefined' ? 'this browser has no Web Workers' : null,
      async setup(): Promise<CaseHandle<number>> {
        const pool = newPool(p);
        return {
          async run(reps) {
            const tasks: Promise<Reply>[] = [];
            for (let r = 0; r < reps; r++) for (let from = 0, k = 0; from < POINTS; from += chunk, k++) tasks.push(pool.request(k, { kind: 'points', from, to: Math.min(POINTS, from + chunk) }));
            return (await Promise.all(tasks)).reduce<number>((a, b) => a + (b as number), 0);
          },
          teardown: () => pool.terminate(),
        };
      },
    })),
  ];
  return {
    lab: 'task-granularity', title: 'Task granularity in the browser: chunk-size sweep over a worker pool', baseline: 'main', sweeps: [{ param: 'chunk', variants: ['pool'], over: 'baseline', title: 'Worker pool: speedup over the main thread by chunk size' }], headline: { variant: 'pool', params: { chunk: HEADLINE_CHUNK, workers: p } },
    workUnit: `jobs of ${POINTS} points`, comparator: 'exact integer sum (the main thread\'s sum is the expected one)',
    // Samples of at least 50 ms (about 6 jobs) and 8 quick rounds: at one 8 ms job per sample a busy machine's
    // scheduling was most of each sample, and no chunk's speedup resolved in 5 quick runs (issue 44).
    floorMs: 50,
    rounds: { quick: 8, full: 15 },
    expected: (reps) => (expectedTotal ??= sumPoints(0, POINTS)) * reps,
    check: (e, a) => exact(e, a, 'the tasks summed to'),
    cases, notes: [`One job is ${POINTS} points in tasks of chunk points each, posted round-robin to P = ${p} workers; smaller chunks mean more messages for the same work.`],
  };
}

function handoffLab(quick: boolean): BrowserLab<number> {
  const patterns = new Map<number, number>();
  const expectedSum = (mib: number): number => {
    if (!patterns.has(mib)) {
      const bytes = new Uint8Array(mib << 20);
      fillPattern(bytes);
      patterns.set(mib, checksum(bytes));
    }
    return patterns.get(mib)!;
  };
  const handoff = (variant: 'clone' | 'transfer' | 'sab', mib: number): BrowserCase<number> => ({
    variant, params: { mib }, sizeGroup: String(mib),
    unavailable: variant === 'sab' ? isolationOff('the SharedArrayBuffer hand-off') : null,
    async setup(): Promise<CaseHandle<number>> {
      const pool = newPool(1);
      let bytes: Uint8Array = variant === 'sab' ? new Uint8Array(new SharedArrayBuffer(mib << 20)) : new Uint8Array(mib << 20);
      fillPattern(bytes);
      if (variant === 'sab') await pool.request(0, { kind: 'attach', sab: bytes.buffer });
      return {
        async run(reps) {
          let sum = 0;
          for (let r = 0; r < reps; r++) {
            if (variant === 'transfer') {
              const reply = (await pool.request(0, { kind: 'transfer', data: bytes }, [bytes.buffer])) as { sum: number; data: Uint8Array };
              bytes = reply.data;
              sum = reply.sum;
            } else {
              sum = ((await pool.request(0, variant === 'clone' ? { kind: 'clone', data: bytes } : { kind: 'sab' })) as { sum: number }).sum;
            }
          }
          return sum;
        },
        teardown: () => pool.terminate(),
      };
    },
  });
  return {
    lab: 'task-granularity', title: 'Task granularity in the browser: clone, transfer and SharedArrayBuffer hand-offs', baseline: 'clone', headline: { variant: 'transfer', params: { mib: quick ? 16 : 64 } },
    workUnit: 'hand-offs', comparator: 'exact checksum of one byte per cache line of what the worker received',
    expected: (_reps, params) => expectedSum(Number(params['mib'])),
    check: (e, a) => exact(e, a, 'the worker\'s checksum was'),
    cases: (quick ? QUICK_SIZES_MIB : SIZES_MIB).flatMap((mib) => [handoff('clone', mib), handoff('transfer', mib), handoff('sab', mib)]),
    notes: ['clone copies the buffer into the worker; transfer moves it (the page\'s copy becomes unusable until it comes back); the SharedArrayBuffer is shared once and each hand-off is a small message.'],
  };
}

/** Increments per worker in one try of the racy demonstration: a few ms of plain adds, so two workers overlap. */
const RACE_INCREMENTS = 4_000_000;

/** Tries of the racy demonstration before it says why the race did not show. */
export const RACE_ATTEMPTS = 5;

/** Why the racy counter lost no update, in words: there is always a reason, and the race is there all the same. */
export function raceMissed(p: number, attempts: number): string {
  if (p < 2) return 'no update was lost: this browser reports 1 CPU, so the page ran 1 worker, and one worker cannot race with itself; the race needs two threads at the same moment';
  return (
    `no update was lost in ${attempts} tries of ${p} workers started together: they did not run at the same moment here ` +
    '(the machine was busy, or the browser gave its workers one CPU at a time). A race that did not show is still there: ' +
    'on another machine, or another try, the plain counter loses updates, while the Atomics cases are right whatever the timing'
  );
}

function raceLab(p: number): BrowserLab<number> {
  let attempts = 0;
  const counter = (how: 'racy' | 'atomic' | 'local'): BrowserCase<number> => ({
    variant: how === 'racy' ? 'racy' : how === 'atomic' ? 'atomics-each' : 'local-then-add',
    // The demonstration counts longer (RACE_INCREMENTS, a few ms), so its workers overlap even on a busy machine.
    params: how === 'racy' ? { workers: p, increments: RACE_INCREMENTS } : { workers: p },
    workers: p,
    unavailable: isolationOff('the shared counter'),
    ...(how === 'racy' ? { demonstration: `racy (${p} workers, counter[0] = counter[0] + 1 on shared memory)` } : {}),
    ...(how === 'racy' ? { demonstrationMissed: () => raceMissed(p, attempts) } : {}),
    async setup(): Promise<CaseHandle<number>> {
      const pool = newPool(p);
      // counter[0] is the count; counter[1] the racy demonstration's start line (granularity-worker.ts).
      const sab = new SharedArrayBuffer(8);
      const view = new Int32Array(sab);
      const increments = how === 'racy' ? RACE_INCREMENTS : INCREMENTS;
      const once = async (reps: number, parties?: number): Promise<number> => {
        view[0] = 0;
        view[1] = 0;
        await Promise.all(Array.from({ length: p }, (_, i) => pool.request(i, { kind: 'count', sab, count: increments * reps, how, ...(parties !== undefined ? { parties } : {}) })));
        return Atomics.load(view, 0);
      };
      return {
        async run(reps) {
          if (how !== 'racy') return once(reps);
          // The demonstration: the workers start together (a spin barrier), and again up to RACE_ATTEMPTS times until
          // an update is lost, so the race shows whenever two of them run at the same moment.
          let count = 0;
          for (attempts = 1; attempts <= RACE_ATTEMPTS; attempts++) {
            count = await once(reps, p);
            if (count < p * increments * reps) break;
          }
          attempts = Math.min(attempts, RACE_ATTEMPTS);
          return count;
        },
        teardown: () => pool.terminate(),
      };
    },
  });
  return {
    lab: 'task-granularity', title: 'Task granularity in the browser: the shared counter and its fixes with Atomics', baseline: 'atomics-each', headline: { variant: 'local-then-add', params: { workers: p } },
    workUnit: `rounds of ${INCREMENTS} increments per worker`, comparator: 'exact count: workers x increments',
    expected: (reps, params) => p * Number(params['increments'] ?? INCREMENTS) * reps,
    check: (e, a) => exact(e, a, `lost ${Math.max(0, e - a)} updates: the counter read`),
    cases: [counter('racy'), counter('atomic'), counter('local')],
    notes: [],
  };
}

export function createLab(root: HTMLElement, quick = false): BrowserLab<number> {
  const part = root.querySelector<HTMLSelectElement>('[data-bl-part]')?.value ?? 'sweep';
  const p = pageParallelism();
  if (part === 'graph') {
    const code = root.querySelector<HTMLTextAreaElement>('[data-bl-code]')?.value ?? '';
    return graphLab(p, code.trim() !== '' ? code : null);
  }
  return part === 'handoff' ? handoffLab(quick) : part === 'race' ? raceLab(p) : sweepLab(p);
}
