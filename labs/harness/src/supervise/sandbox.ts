/**
 * What the runner process (the one that loads learner code) may touch, as Node 24 permission-model flags.
 *
 * Granted: reading the lab's code and the dependencies (labs/, node_modules, the root package.json), the code under
 * test (exercises/<lab> or solutions/<lab>) and, when grading, solutions/<lab> (the solution is measured in the same
 * process); writing only the run's own temp folder (TMPDIR) and what the lab's package.json declares. Not granted:
 * reference/, results/, other runs, other labs' exercises and solutions, the rest of the disk, the network inspector.
 * --allow-worker always (the runner's own parent watchdog is a thread; in Node 24 a worker keeps the process's file
 * permissions); --allow-child-process and --allow-addons only for labs whose package.json asks for them.
 *
 * The built-ins the timing path calls (Array.prototype.push, Math, Promise...) are frozen by seal.ts, not by
 * --frozen-intrinsics: that flag freezes every intrinsic, and the event-loop lab's autocannon (hdr-histogram-js)
 * assigns the `Object.hasOwn` polyfill at import, which then throws.
 *
 * Limits (Node's own documentation calls the model a "seat belt", not a defence against malicious code): a lab that
 * may start child processes may also start a non-Node program, which the model does not follow (Node children get
 * the same flags); a native addon runs outside the model. Labs that need either say so in package.json; the OS
 * boundary around all of it is bubblewrap (os-sandbox.ts), which binds exactly the paths granted here.
 */
import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Impl } from '../lab-definition.ts';

/** The repository this harness is in: the runner's own code and the dependencies it resolves (a test's lab root may be elsewhere). */
const HARNESS_REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** What a lab's runner needs beyond the default, from `"sandbox"` in labs/<lab>/package.json. */
export interface SandboxNeeds {
  /** The lab forks processes (servers, process pools, devices). */
  childProcess: boolean;
  /** The lab loads a native addon (a compiled kernel, onnxruntime-node). */
  addons: boolean;
  /** Folders the lab writes while it runs, relative to labs/<lab> (a generated model file). */
  writes: string[];
  /**
   * System folders the lab reads, absolute, from SYSTEM_READS only: /proc and /sys (its children's resident memory,
   * the CPU topology) and the system's libraries and Vulkan driver lists (gpu-batching looks for a WebGPU adapter).
   * None of them holds a user's or another learner's files. A granted folder that does not exist is left out.
   */
  reads: string[];
}

/** The system folders a lab may declare it reads (sandbox.reads): public system data, nothing of a user's. */
const SYSTEM_READS = /^\/(proc|sys|usr\/lib|usr\/lib64|usr\/local\/lib|lib|lib64|usr\/share\/vulkan|usr\/local\/share\/vulkan|etc\/vulkan|etc\/xdg\/vulkan)(\/|$)/;

const NO_NEEDS: SandboxNeeds = { childProcess: false, addons: false, writes: [], reads: [] };

/** Reads `"sandbox": { "childProcess": true, "addons": true, "writes": ["models"] }` from labs/<lab>/package.json. */
export function readSandboxNeeds(rootDir: string, lab: string): SandboxNeeds {
  const file = path.join(rootDir, 'labs', lab, 'package.json');
  if (!existsSync(file)) return NO_NEEDS;
  const declared = (JSON.parse(readFileSync(file, 'utf8')) as { sandbox?: Partial<SandboxNeeds> }).sandbox ?? {};
  const writes = Array.isArray(declared.writes) ? declared.writes.filter((w): w is string => typeof w === 'string') : [];
  for (const w of writes) {
    if (path.isAbsolute(w) || w.split(/[\\/]/).includes('..')) throw new Error(`labs/${lab}/package.json: sandbox.writes must name folders inside labs/${lab} (got '${w}')`);
  }
  const reads = Array.isArray(declared.reads) ? declared.reads.filter((r): r is string => typeof r === 'string') : [];
  for (const r of reads) {
    if (!SYSTEM_READS.test(r) || r.split('/').includes('..')) throw new Error(`labs/${lab}/package.json: sandbox.reads may name only system folders (/proc, /sys, the library folders, the Vulkan driver lists; got '${r}')`);
  }
  return { childProcess: declared.childProcess === true, addons: declared.addons === true, writes, reads: reads.filter((r) => existsSync(r)) };
}

export interface SandboxOptions {
  rootDir: string;
  lab: string;
  impl: Impl;
  grade: boolean;
  /** The run's own temp folder (the runner's TMPDIR): the one place besides `needs.writes` it may write. */
  tmpDir: string;
  needs: SandboxNeeds;
}

/** A path and, when it is a link (a test root's node_modules, npm's workspace links), where it leads. */
function withRealPath(p: string): string[] {
  if (!existsSync(p)) return [p];
  // Every hop of a chain of links (a class task's copy -> the course's node_modules -> the repository's): Node checks
  // the path it resolves at each step, not only the last.
  const paths = [p];
  let current = p;
  for (let hop = 0; hop < 8 && lstatSync(current).isSymbolicLink(); hop++) {
    current = path.resolve(path.dirname(current), readlinkSync(current));
    paths.push(current);
  }
  const real = realpathSync(p);
  if (!paths.includes(real)) paths.push(real);
  return paths;
}

/** The workspace packages node_modules links to (@parallel-course/* -> labs/*), resolved, so imports through them load. */
function workspaceTargets(rootDir: string): string[] {
  const scope = path.join(rootDir, 'node_modules', '@parallel-course');
  if (!existsSync(scope)) return [];
  return [path.join(realpathSync(path.join(rootDir, 'node_modules')), '..', 'labs')].filter(existsSync).map((p) => realpathSync(p));
}

/** What the runner may read and write (sandboxExecArgv's flags; os-sandbox.ts binds the same paths). */
export interface SandboxGrants {
  reads: string[];
  writes: string[];
}

/** The paths the runner may read and write, links followed (see the module comment). */
export function sandboxGrants(options: SandboxOptions): SandboxGrants {
  const { rootDir, lab, impl, grade, tmpDir, needs } = options;
  const reads = new Set<string>([
    ...withRealPath(path.join(rootDir, 'labs')),
    ...withRealPath(path.join(rootDir, 'node_modules')),
    ...workspaceTargets(rootDir),
    path.join(rootDir, 'package.json'),
    ...withRealPath(path.join(HARNESS_REPO, 'labs', 'harness')),
    // The browser-safe core the harness and every lab import (statistics, schema, formatting).
    ...withRealPath(path.join(HARNESS_REPO, 'labs', 'core')),
    ...withRealPath(path.join(HARNESS_REPO, 'node_modules')),
    path.join(HARNESS_REPO, 'package.json'),
    ...withRealPath(path.join(rootDir, impl === 'exercise' ? 'exercises' : 'solutions', lab)),
    ...(grade ? withRealPath(path.join(rootDir, 'solutions', lab)) : []),
    ...withRealPath(tmpDir),
    ...needs.reads,
  ]);
  const writes = new Set<string>([...withRealPath(tmpDir), ...needs.writes.map((w) => path.join(rootDir, 'labs', lab, w))]);
  for (const w of writes) reads.add(w);
  return { reads: [...reads], writes: [...writes] };
}

/** The node flags for the runner: the permission model. */
export function sandboxExecArgv(options: SandboxOptions): string[] {
  const { reads, writes } = sandboxGrants(options);
  const { needs } = options;
  return [
    '--permission',
    ...reads.map((p) => `--allow-fs-read=${p}`),
    ...writes.map((p) => `--allow-fs-write=${p}`),
    '--allow-worker',
    ...(needs.childProcess ? ['--allow-child-process'] : []),
    ...(needs.addons ? ['--allow-addons'] : []),
    // The permission model's warnings (--allow-worker "with extreme caution") are expected; they would bury the learner's output.
    '--no-warnings',
  ];
}
