/**
 * Reading a V8 CPU profile (the `.cpuprofile` JSON that `node --cpu-prof` writes) without a browser: self and total
 * (inclusive) time per function. Pure: no file system, no printing; `profile-cli.ts` does those.
 *
 * The format (Chrome DevTools protocol, `Profiler.Profile`): `nodes` is the call tree, each node a call frame
 * {functionName, url, lineNumber (0-based), columnNumber} with the ids of its `children`; `samples[i]` is the id of
 * the node on top of the stack at sample i; `timeDeltas[i]` is the time in microseconds since the previous sample
 * (since `startTime` for i = 0); `startTime`/`endTime` are in microseconds.
 *
 * Which time belongs to a sample: the stack seen at sample i is charged the interval until the next sample,
 * `timeDeltas[i + 1]`, and the last sample the interval until `endTime` (speedscope's Chrome importer charges the
 * same interval, and 0 to the last sample). The interval before the first sample (profiler start-up) goes to no one.
 */
import { z } from 'zod';
import { ProfileFormatError } from '../errors.ts';

export { ProfileFormatError };

/** The parts of a `.cpuprofile` this module reads; other fields (hitCount, positionTicks, scriptId) are ignored. */
const cpuProfileSchema = z.object({
  nodes: z
    .array(
      z.object({
        id: z.number().int(),
        callFrame: z.object({
          functionName: z.string(),
          url: z.string(),
          lineNumber: z.number().int(),
          columnNumber: z.number().int(),
        }),
        children: z.array(z.number().int()).optional(),
      }),
    )
    .min(1),
  startTime: z.number(),
  endTime: z.number(),
  samples: z.array(z.number().int()),
  timeDeltas: z.array(z.number()),
});

export type CpuProfile = z.infer<typeof cpuProfileSchema>;
export type CpuProfileNode = CpuProfile['nodes'][number];

const RECORD_FIX = 'record one with: node --cpu-prof --cpu-prof-dir=<dir> <script>';

/**
 * Checks that `json` is a CPU profile: the shape (zod), every child and sample id names a node, and it has samples.
 * @throws ProfileFormatError naming the first problem and how to get a usable profile.
 */
export function parseCpuProfile(json: unknown): CpuProfile {
  const parsed = cpuProfileSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new ProfileFormatError(`not a CPU profile (${issues.join('; ')})`, `${RECORD_FIX} (it writes a .cpuprofile JSON file into <dir>)`);
  }
  const profile = parsed.data;
  const ids = new Set(profile.nodes.map((n) => n.id));
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) {
      if (!ids.has(child)) throw new ProfileFormatError(`node ${node.id} lists child ${child}, which is not in nodes (a truncated or edited file?)`, RECORD_FIX);
    }
  }
  if (profile.samples.length === 0) {
    throw new ProfileFormatError(
      'the profile has no samples (the program ended before the profiler first sampled it)',
      'profile a run that lasts longer, or sample more often with --cpu-prof-interval 100 (microseconds; the default is 1000)',
    );
  }
  if (profile.timeDeltas.length !== profile.samples.length) {
    throw new ProfileFormatError(`samples has ${profile.samples.length} entries but timeDeltas has ${profile.timeDeltas.length}; they must match`, RECORD_FIX);
  }
  const unknown = profile.samples.find((id) => !ids.has(id));
  if (unknown !== undefined) throw new ProfileFormatError(`a sample names node ${unknown}, which is not in nodes`, RECORD_FIX);
  return profile;
}

/**
 * The time in microseconds charged to each sample: `timeDeltas[i + 1]` for every sample but the last, and
 * `endTime - (time of the last sample)` for the last. Negative intervals (clock adjustments) count as 0.
 */
export function sampleWeightsUs(profile: CpuProfile): number[] {
  const { samples, timeDeltas } = profile;
  let lastSampleTime = profile.startTime;
  for (const delta of timeDeltas) lastSampleTime += delta;
  return samples.map((_, i) => Math.max(0, i + 1 < samples.length ? (timeDeltas[i + 1] as number) : profile.endTime - lastSampleTime));
}

/** Self time in microseconds per node id: the sum of the weights of the samples that had the node on top. */
export function selfTimePerNodeUs(profile: CpuProfile): Map<number, number> {
  const weights = sampleWeightsUs(profile);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (weights[i] as number)));
  return self;
}

/** A function as the tables show it: frames with the same name, url and line (0-based) are one function. */
function functionKey(frame: CpuProfileNode['callFrame']): string {
  return `${frame.functionName}\u0000${frame.url}\u0000${frame.lineNumber}`;
}

/** One function's times, summed over every node (call path) it appears in. */
export interface FunctionTime {
  functionName: string;
  url: string;
  /** 1-based line of the function's start, or null for frames with no source ((program), native code). */
  line: number | null;
  /** Time with this function on top of the stack, in ms. */
  selfMs: number;
  /** Time with this function anywhere on the stack, in ms; a recursive function counts once per stack. */
  totalMs: number;
}

export interface ProfileSummary {
  /** Every function with time, in no particular order; `(root)`, the tree's artificial top, is left out. */
  functions: FunctionTime[];
  /** All time charged to samples, in ms: the 100 % of the percentages. */
  sampledMs: number;
  sampleCount: number;
  /** Time in `(idle)` (the thread waited for I/O or timers), in ms; part of sampledMs. */
  idleMs: number;
}

/**
 * Self and total time per function. Total (inclusive) time: every node with self time adds it to each distinct
 * function on its path to the root, so a function that appears twice on one stack (recursion) is counted once.
 * Cost: O(nodes x depth).
 */
export function summarizeProfile(profile: CpuProfile): ProfileSummary {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Sums in whole microseconds (as the file stores them), converted to ms once at the end.
  const times = new Map<string, { frame: CpuProfileNode['callFrame']; selfUs: number; totalUs: number }>();
  const entry = (node: CpuProfileNode) => {
    const key = functionKey(node.callFrame);
    let time = times.get(key);
    if (time === undefined) {
      time = { frame: node.callFrame, selfUs: 0, totalUs: 0 };
      times.set(key, time);
    }
    return time;
  };

  let sampledUs = 0;
  let idleUs = 0;
  for (const [id, selfUs] of selfTimePerNodeUs(profile)) {
    const leaf = byId.get(id) as CpuProfileNode;
    sampledUs += selfUs;
    if (leaf.callFrame.functionName === '(idle)') idleUs += selfUs;
    entry(leaf).selfUs += selfUs;
    const counted = new Set<string>();
    // Walk to the root; `visited` guards against a malformed file whose parent links form a cycle.
    const visited = new Set<number>();
    for (let node: CpuProfileNode | undefined = leaf; node !== undefined && !visited.has(node.id); node = byId.get(parent.get(node.id) ?? NaN)) {
      visited.add(node.id);
      const key = functionKey(node.callFrame);
      if (!counted.has(key)) {
        counted.add(key);
        entry(node).totalUs += selfUs;
      }
    }
  }
  const functions: FunctionTime[] = [];
  for (const { frame, selfUs, totalUs } of times.values()) {
    if (frame.functionName === '(root)' && frame.url === '') continue;
    const line = frame.lineNumber >= 0 ? frame.lineNumber + 1 : null;
    functions.push({ functionName: frame.functionName, url: frame.url, line, selfMs: selfUs / 1000, totalMs: totalUs / 1000 });
  }
  return { functions, sampledMs: sampledUs / 1000, sampleCount: profile.samples.length, idleMs: idleUs / 1000 };
}

/** The `n` functions with the most self time (ties: more total time first, then by name). */
export function topBySelf(summary: ProfileSummary, n: number): FunctionTime[] {
  return [...summary.functions]
    .filter((f) => f.selfMs > 0)
    .sort((a, b) => b.selfMs - a.selfMs || b.totalMs - a.totalMs || a.functionName.localeCompare(b.functionName))
    .slice(0, n);
}

/** The `n` functions with the most total time (ties: more self time first, then by name). */
export function topByTotal(summary: ProfileSummary, n: number): FunctionTime[] {
  return [...summary.functions]
    .filter((f) => f.totalMs > 0)
    .sort((a, b) => b.totalMs - a.totalMs || b.selfMs - a.selfMs || a.functionName.localeCompare(b.functionName))
    .slice(0, n);
}
