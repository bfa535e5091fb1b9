/**
 * The cache behind `npm run lab -- --status`: checking every lab's exercise takes a minute (one supervised child per
 * lab), and a learner runs --status often, mostly with nothing changed. Each lab's check result is kept keyed by a
 * content hash of everything the check depends on, and is reused only while that hash is unchanged:
 *   - the learner's files (exercises/<lab>/) and the solution (solutions/<lab>/),
 *   - the lab's package (labs/<lab>/: its src, native sources and the built addon under build/; not node_modules
 *     or tests),
 *   - the src/ of the harness and of every other shared package under labs/, and the installed packages
 *     (package-lock.json),
 *   - the Node version, the platform and the CPUs the check plans for (the number of cases depends on P).
 * Any change among these reruns that lab's check; nothing is trusted from the cache's file beyond its own shape.
 * The file lives in results/ (git-ignored); a missing, unreadable or foreign cache file is simply a miss.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CorrectnessEntry } from '@parallel-course/core';

/** Bump when the cached entry's shape or meaning changes: old files then miss instead of misleading. */
const CACHE_FORMAT = 1;

/** Folders never hashed: installed packages, tests, and the compiler's intermediate objects (the .node files count). */
const SKIP_DIRS = new Set(['node_modules', 'test', 'obj.target', '.deps', '.git']);

/** What the check of one lab found, as --status needs it again. */
export interface CachedCheck {
  check: CorrectnessEntry[] | { error: string };
  /** Variants that fail as shipped on purpose and whose file still holds its TODO(learner) (labStatus). */
  designedFailures: { variant: string; lesson: string }[];
}

interface CacheFile {
  format: number;
  labs: Record<string, { key: string; value: CachedCheck }>;
}

/** Default place of the cache: beside the learner's runs, which git already ignores. */
export function statusCachePath(rootDir: string): string {
  return path.join(rootDir, 'results', '.status-cache.json');
}

function listFiles(dir: string, out: string[]): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) listFiles(full, out);
    } else if (entry.isFile()) {
      out.push(full);
    }
  }
}

/** The src/ of every package under labs/ that is not a lab (the harness, and any shared package beside it). */
function sharedPackages(rootDir: string): string[][] {
  const labsDir = path.join(rootDir, 'labs');
  if (!existsSync(labsDir)) return [];
  return readdirSync(labsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'node_modules' && !existsSync(path.join(labsDir, d.name, 'src', 'lab.ts')))
    .map((d) => ['labs', d.name, 'src']);
}

/**
 * The content hash of everything the check of `lab` depends on. `extra` carries what is not a file (the CPU count
 * the check plans for); the Node version and platform are always part of it.
 */
export function checkInputsKey(lab: string, rootDir: string, extra: Record<string, string | number> = {}): string {
  const files: string[] = [];
  for (const dir of [['exercises', lab], ['solutions', lab], ['labs', lab], ...sharedPackages(rootDir)]) {
    listFiles(path.join(rootDir, ...dir), files);
  }
  for (const file of ['package-lock.json', 'package.json']) {
    if (existsSync(path.join(rootDir, file))) files.push(path.join(rootDir, file));
  }
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ format: CACHE_FORMAT, node: process.version, platform: process.platform, arch: process.arch, extra }));
  for (const file of files.map((f) => path.relative(rootDir, f)).sort()) {
    // The name and the bytes, each length-prefixed, so a rename or a moved boundary changes the hash.
    const bytes = readFileSync(path.join(rootDir, file));
    hash.update(`\0${file.length}:${file}\0${bytes.length}:`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}

function readCache(file: string): CacheFile {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    if (parsed && parsed.format === CACHE_FORMAT && parsed.labs && typeof parsed.labs === 'object') return parsed;
  } catch {
    // missing or unreadable: every lab is checked again
  }
  return { format: CACHE_FORMAT, labs: {} };
}

function isCachedCheck(value: unknown): value is CachedCheck {
  const v = value as CachedCheck | null;
  return !!v && typeof v === 'object' && Array.isArray(v.designedFailures) &&
    (Array.isArray(v.check) || (!!v.check && typeof (v.check as { error: unknown }).error === 'string'));
}

/**
 * The check of `lab`: the cached one when its key still matches, else `compute()` (which is then stored). `reused`
 * says which, so the caller can print it. A check that could not run (an error) is not cached: it may be transient.
 */
export async function cachedCheck(options: {
  lab: string;
  rootDir: string;
  cacheFile: string;
  extra?: Record<string, string | number>;
  compute: () => Promise<CachedCheck>;
}): Promise<{ value: CachedCheck; reused: boolean }> {
  const key = checkInputsKey(options.lab, options.rootDir, options.extra);
  const hit = readCache(options.cacheFile).labs[options.lab];
  if (hit && hit.key === key && isCachedCheck(hit.value)) return { value: hit.value, reused: true };
  const value = await options.compute();
  if (Array.isArray(value.check)) {
    // Read again just before writing, so labs stored meanwhile (another --status) are kept.
    const cache = readCache(options.cacheFile);
    cache.labs[options.lab] = { key, value };
    mkdirSync(path.dirname(options.cacheFile), { recursive: true });
    const tmp = `${options.cacheFile}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(cache)}\n`);
    renameSync(tmp, options.cacheFile); // atomic: a reader never sees half a file
  }
  return { value, reused: false };
}
