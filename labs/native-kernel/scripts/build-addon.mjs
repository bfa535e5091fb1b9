#!/usr/bin/env node
// Builds the native rungs (binding.gyp) with node-gyp, and never fails the install: when the build cannot run
// (no C++ compiler, no make or python3, no Node headers) it records why in build/native-kernel-build.json, which
// the lab reads to report the native rungs as unavailable with the reason and the fix.
//
// Plain JavaScript (not TypeScript) on purpose: npm may run this install script under whichever `node` is first on
// PATH, which can be an older system Node that cannot run .ts files.
//
// Usage: node scripts/build-addon.mjs            (npm install / npm run build -w labs/native-kernel)
// Env:   NATIVE_KERNEL_SKIP_BUILD=1 records "skipped" without building; CXX/CC/PATH choose the compiler as usual;
//        NATIVE_KERNEL_BLAS=none skips looking for a BLAS (the native-blas rung is then unavailable, as on a machine
//        without one); NATIVE_KERNEL_BLAS=<dir> looks for libopenblas.so in <dir> only;
//        NATIVE_KERNEL_TARGETS=exercise_O3,exercise_blocked,... builds only those modules ("blas" for the BLAS rung)
//        and records the others as not built: for tests that need a few modules of a copy, not for a checkout;
//        COURSE_BUILD_IF_STALE=1 (lab.sbatch sets it) keeps a build that is current: every module built and there,
//        for this Node and this CPU (its model and flags: -march=native), and no source newer than a module. A
//        rebuild removes the modules before it links them again, so a job that rebuilt under running labs (or the
//        tests) pulled the rungs from under them.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = path.join(packageDir, 'build');
const statusFile = path.join(buildDir, 'native-kernel-build.json');
const require = createRequire(path.join(packageDir, 'package.json'));

/**
 * The modules, in groups each built by its own node-gyp run, so that one failing group (a learner's compile error)
 * cannot hide another's modules: per implementation, kernel.cc's rungs, and apart from them the optional blocked.cc's.
 * `what` names the group in a failure's reason; `file`, the learner's file a check on it (native/blocked-sizes-check.h)
 * blames when its own assertion fails.
 */
export const GROUPS = ['solution', 'exercise'].flatMap((impl) => [
  { what: `the ${impl} rungs`, targets: [`${impl}_O0`, `${impl}_O3`, `${impl}_march`] },
  { what: `the ${impl} blocked kernel (blocked.cc)`, targets: [`${impl}_blocked`], file: `${impl}s/native-kernel/blocked.cc` },
]);
/** The library rung: its own node-gyp build in blas/ (blas/binding.gyp), so a missing BLAS breaks nothing else. */
const BLAS_TARGET = 'blas';
const BLAS_DIR = path.join(packageDir, 'blas');
export const BLAS_FIX =
  'install OpenBLAS (Debian/Ubuntu: apt-get install -y libopenblas-dev; Fedora: dnf install openblas-devel), ' +
  'then run `npm run build -w labs/native-kernel`';
/** Where Debian, Ubuntu and Fedora put libopenblas.so when pkg-config (or its .pc file) is missing. */
const BLAS_LIBRARY_DIRS = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib', '/usr/local/lib', '/opt/homebrew/opt/openblas/lib'];

/**
 * The BLAS to link, as compiler and linker flags, or why there is none. pkg-config openblas first; else
 * libopenblas.so in the usual directories. NATIVE_KERNEL_BLAS=none skips the search (to test the path without one);
 * NATIVE_KERNEL_BLAS=<dir> searches only <dir>. Apple's Accelerate is a TODO: it has cblas_dgemm but not
 * openblas_set_num_threads or openblas_get_corename, which blas.cc calls. Exported for the tests.
 */
export function findBlas(env = process.env) {
  const choice = env.NATIVE_KERNEL_BLAS ?? '';
  if (choice === 'none') return { found: false, reason: 'BLAS detection was skipped (NATIVE_KERNEL_BLAS=none)' };
  if (choice === '') {
    const pc = spawnSync('pkg-config', ['--cflags', '--libs', 'openblas'], { encoding: 'utf8' });
    if (pc.status === 0 && /-lopenblas\b/.test(pc.stdout)) {
      const flags = pc.stdout.trim().split(/\s+/);
      return { found: true, via: 'pkg-config openblas', cflags: flags.filter((f) => f.startsWith('-I')).join(' '),
        libs: flags.filter((f) => !f.startsWith('-I')).join(' ') };
    }
  }
  const dirs = choice === '' ? BLAS_LIBRARY_DIRS : [choice];
  for (const dir of dirs) {
    for (const file of ['libopenblas.so', 'libopenblas.dylib']) {
      if (existsSync(path.join(dir, file))) return { found: true, via: path.join(dir, file), cflags: '', libs: `-L${dir} -lopenblas` };
    }
  }
  return { found: false, reason: `no BLAS found (pkg-config openblas failed; no libopenblas.so in ${dirs.join(', ')})` };
}

const FIX =
  'install a C++ toolchain (Debian/Ubuntu: apt-get install -y g++ make python3; macOS: xcode-select --install), ' +
  'then run `npm run build -w labs/native-kernel`';

/**
 * How long one node-gyp step may run, in ms: the six rungs built in about 40 s on this course's 2-vCPU VMs; a step
 * still running after 15 minutes is a hung compiler or make, and the install goes on without the native rungs.
 */
const BUILD_TIMEOUT_MS = 15 * 60_000;
/** Output kept from one step, in bytes: a long cascade of compiler errors must not fail the build script itself (ENOBUFS). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * A compiler's output made safe to store and print: terminal escape sequences (colours) and control characters
 * other than tab and newline removed. The harness's probe.ts does the same; this script cannot import TypeScript.
 */
function sanitise(text) {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~]?)/g, '')
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '');
}

/** Last lines of a process's output, for the status file: enough to see the compiler's first complaint. */
function tail(text, lines = 25) {
  return text.split('\n').filter((l) => l.trim() !== '').slice(-lines).join('\n');
}

/**
 * The one line of a failed build that says what went wrong (a compiler error, a missing program), ahead of
 * node-gyp's boilerplate ("gyp ERR! stack ..."); exported for the tests.
 */
export function failureHeadline(output) {
  const telling = /(error:|fatal error|FileNotFoundError|not found|No such file|command not found|cannot find|could not find)/i;
  const all = output.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const own = all.filter((l) => !/^gyp (ERR!|info|http)/.test(l));
  // A compiler's or a program's own complaint first; else node-gyp's summary ("gyp ERR! stack Error: ...").
  const found = own.find((l) => telling.test(l)) ?? all.map((l) => l.replace(/^gyp ERR! (stack )?/, '')).find((l) => telling.test(l));
  const headline = found ?? own[own.length - 1] ?? 'no output';
  // "../native/../../../exercises/native-kernel/kernel.cc:17:12" -> "exercises/native-kernel/kernel.cc:17:12"
  return headline.replace(/(?:\.\.\/)*native\/(?:\.\.\/)+(exercises|solutions)\//g, '$1/');
}

/**
 * What to do about a failure: fix the code for a compile error in a kernel, install the toolchain otherwise.
 * `checked`: the learner's file that native/blocked-sizes-check.h checks in this build (its block sizes), if any.
 */
export function fixFor(headline, checked) {
  const source = /((?:exercises|solutions)\/native-kernel\/[\w.-]+):\d+/.exec(headline)?.[1] ??
    (checked && /blocked-sizes-check\.h:\d+/.test(headline) ? checked : null);
  if (source && /error:/.test(headline)) {
    return `fix the compile error in ${source} (the first error is shown above), then run \`npm run build -w labs/native-kernel\``;
  }
  return FIX;
}

/**
 * Directory with include/node/node_api.h for node-gyp's --nodedir: the pinned runtime package first (its headers
 * match the Node the course runs on), else the running Node's own prefix. Without a nodedir, node-gyp downloads
 * headers, which fails offline.
 */
function findNodeDir() {
  const candidates = [];
  try {
    candidates.push(path.dirname(require.resolve(`node-${process.platform}-${process.arch}/package.json`)));
  } catch {
    // not installed: fall through to the running Node
  }
  candidates.push(path.resolve(process.execPath, '..', '..'));
  return candidates.find((dir) => existsSync(path.join(dir, 'include', 'node', 'node_api.h'))) ?? null;
}

/** What -march=native compiles for: the CPU's model and, on Linux, a hash of its flags (another node kind builds anew). */
export function cpuIdentity() {
  let flags = '';
  try {
    flags = readFileSync('/proc/cpuinfo', 'utf8').match(/^(?:flags|Features)\s*:\s*(.*)$/m)?.[1] ?? '';
  } catch {
    // not Linux: the model alone
  }
  const model = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${os.arch()} ${model}${flags ? ` flags ${createHash('sha256').update(flags).digest('hex').slice(0, 16)}` : ''}`;
}

/** The newest modification time (ms) of what a build compiles: the binding, the native sources, both learner folders, this script. */
function newestSourceMs() {
  const roots = [path.join(packageDir, 'binding.gyp'), path.join(BLAS_DIR, 'binding.gyp'), path.join(packageDir, 'native'),
    path.join(packageDir, '..', '..', 'exercises', 'native-kernel'), path.join(packageDir, '..', '..', 'solutions', 'native-kernel'),
    fileURLToPath(import.meta.url)];
  let newest = 0;
  const visit = (file) => {
    if (!existsSync(file)) return;
    const stat = statSync(file);
    if (stat.isDirectory()) for (const name of readdirSync(file)) visit(path.join(file, name));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const root of roots) visit(root);
  return newest;
}

/**
 * Whether a recorded build is the one this machine would make now (COURSE_BUILD_IF_STALE): the same Node and CPU, every
 * chosen module recorded (the BLAS rung's outcome, found or not, included) and each built one on disk and newer than
 * every source. Pure: `moduleMtimeMs(file)` gives a module's time, or null when it is missing. Exported for the tests.
 */
export function buildIsCurrent({ record, targets, node, cpu, newestSource, moduleMtimeMs }) {
  if (!record || record.node !== node || record.cpu !== cpu || !record.targets) return false;
  for (const target of targets) {
    const entry = record.targets[target];
    if (!entry || (!entry.available && target !== BLAS_TARGET)) return false;
    if (!entry.available) continue;
    const mtime = moduleMtimeMs(entry.file);
    if (mtime === null || mtime < newestSource) return false;
  }
  return true;
}

function readStatus() {
  try {
    return JSON.parse(readFileSync(statusFile, 'utf8'));
  } catch {
    return null;
  }
}

function writeStatus(status) {
  mkdirSync(buildDir, { recursive: true });
  const tmp = `${statusFile}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(status, null, 2)}\n`);
  renameSync(tmp, statusFile); // atomic: the lab never reads half a file
}

function run(args, cwd = packageDir, env = process.env) {
  const nodeGyp = require.resolve('node-gyp/bin/node-gyp.js');
  // SIGKILL on timeout: a hung step must not hang `npm install`. spawnSync then closes the pipes, so a compiler
  // that node-gyp started cannot keep it waiting either (that compiler may run on until it ends by itself).
  const result = spawnSync(process.execPath, [nodeGyp, ...args], {
    cwd,
    env,
    encoding: 'utf8',
    timeout: BUILD_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    maxBuffer: MAX_OUTPUT_BYTES,
  });
  const timedOut = result.error?.code === 'ETIMEDOUT';
  const why = timedOut
    ? `\nnode-gyp ${args[0]} did not finish within ${BUILD_TIMEOUT_MS / 60_000} minutes and was killed (a hung compiler?)`
    : result.error ? `\n${result.error.message}` : '';
  const output = sanitise(`${result.stdout ?? ''}\n${result.stderr ?? ''}${why}`);
  return { ok: result.status === 0, output };
}

/**
 * The modules to build: all of them, or those NATIVE_KERNEL_TARGETS names (comma-separated); an error naming the
 * unknown ones and the known ones. Exported for the tests.
 */
export function chosenTargets(env = process.env) {
  const known = [...GROUPS.flatMap((g) => g.targets), BLAS_TARGET];
  const value = env.NATIVE_KERNEL_TARGETS?.trim() ?? '';
  if (value === '') return { targets: known };
  const names = value.split(',').map((t) => t.trim()).filter((t) => t !== '');
  const unknown = names.filter((t) => !known.includes(t));
  if (unknown.length > 0 || names.length === 0) {
    return { error: `NATIVE_KERNEL_TARGETS names ${unknown.length > 0 ? `unknown modules: ${unknown.join(', ')}` : 'no module'}; ` +
      `the modules are ${known.join(', ')} (comma-separated), or unset it to build them all` };
  }
  return { targets: names };
}

function main() {
  const started = new Date().toISOString();
  const base = { schema: 1, builtAt: started, node: process.version, cpu: cpuIdentity(), fix: FIX };
  const chosen = chosenTargets();
  if (chosen.error) {
    console.error(`native-kernel: ${chosen.error}`);
    process.exitCode = 2;
    return;
  }
  const groups = GROUPS.map((g) => ({ ...g, targets: g.targets.filter((t) => chosen.targets.includes(t)) })).filter((g) => g.targets.length > 0);
  if (process.env.NATIVE_KERNEL_SKIP_BUILD === '1') {
    writeStatus({ ...base, targets: {}, reason: 'the build was skipped (NATIVE_KERNEL_SKIP_BUILD=1)' });
    console.log('native-kernel: build skipped (NATIVE_KERNEL_SKIP_BUILD=1); the native rungs will be unavailable');
    return;
  }
  if (process.env.COURSE_BUILD_IF_STALE === '1') {
    const record = readStatus();
    const moduleMtimeMs = (file) => {
      const absolute = path.resolve(packageDir, file);
      return existsSync(absolute) ? statSync(absolute).mtimeMs : null;
    };
    if (buildIsCurrent({ record, targets: chosen.targets, node: process.version, cpu: base.cpu, newestSource: newestSourceMs(), moduleMtimeMs })) {
      console.log(`native-kernel: the build of ${record.builtAt} is current for this Node and CPU; nothing rebuilt (COURSE_BUILD_IF_STALE=1)`);
      return;
    }
  }
  const nodeDir = findNodeDir();
  if (nodeDir === null) {
    writeStatus({ ...base, targets: {}, reason: `no Node headers (include/node/node_api.h) next to ${process.execPath}` });
    console.warn('native-kernel: no Node headers found; the native rungs will be unavailable');
    return;
  }
  const configure = run(['configure', `--nodedir=${nodeDir}`]);
  const targets = {};
  let reason = null;
  if (!configure.ok) {
    reason = `node-gyp configure failed: ${failureHeadline(configure.output)}\n${tail(configure.output)}`;
  } else {
    // Remove stale modules first so a failed rebuild cannot leave an old, different build looking current.
    for (const group of groups) for (const t of group.targets) rmModule(t);
    for (const { what, targets: group, file: checked } of groups) {
      const build = run(['build', '--jobs', 'max', ...group]);
      for (const t of group) {
        const file = path.join(buildDir, 'Release', `${t}.node`);
        targets[t] = existsSync(file)
          ? { available: true, file: path.relative(packageDir, file) }
          : { available: false, reason: `building ${what} failed: ${failureHeadline(build.output)}\n${tail(build.output)}`,
              fix: fixFor(failureHeadline(build.output), checked) };
      }
    }
  }
  if (configure.ok && chosen.targets.includes(BLAS_TARGET)) targets[BLAS_TARGET] = buildBlas(nodeDir);
  writeStatus({ ...base, nodeDir, targets, reason });
  const blas = targets[BLAS_TARGET];
  if (blas && !blas.available) console.warn(`native-kernel: native-blas unavailable: ${blas.reason.split('\n')[0]}; fix: ${blas.fix}`);
  const built = Object.entries(targets).filter(([name, t]) => t.available && name !== BLAS_TARGET).map(([name]) => name);
  const missing = groups.flatMap((g) => g.targets).filter((t) => !built.includes(t));
  if (missing.length === 0) {
    console.log(`native-kernel: built ${built.join(', ')}`);
  } else {
    const failedTarget = Object.values(targets).find((t) => !t.available);
    const why = reason ?? failedTarget?.reason ?? 'unknown';
    console.warn(`native-kernel: could not build ${missing.join(', ')} (every other rung, TypeScript ones included, still runs).`);
    console.warn(`  why: ${why.split('\n')[0]}`);
    console.warn(`  fix: ${failedTarget?.fix ?? FIX}`);
    console.warn(`  details: ${path.relative(process.cwd(), statusFile)}`);
  }
}

/** Builds blas/binding.gyp against the BLAS findBlas finds; the status entry of the native-blas rung. */
function buildBlas(nodeDir) {
  const file = path.join(BLAS_DIR, 'build', 'Release', `${BLAS_TARGET}.node`);
  rmSync(file, { force: true });
  const blas = findBlas();
  if (!blas.found) return { available: false, reason: blas.reason, fix: BLAS_FIX };
  const env = { ...process.env, NATIVE_KERNEL_BLAS_CFLAGS: blas.cflags, NATIVE_KERNEL_BLAS_LIBS: blas.libs };
  const configure = run(['configure', `--nodedir=${nodeDir}`], BLAS_DIR, env);
  const build = configure.ok ? run(['build', '--jobs', 'max'], BLAS_DIR, env) : configure;
  if (existsSync(file)) return { available: true, file: path.relative(packageDir, file), blas: blas.via };
  return { available: false, reason: `building the BLAS rung (${blas.via}) failed: ${failureHeadline(build.output)}\n${tail(build.output)}`, fix: BLAS_FIX };
}

function rmModule(target) {
  const file = path.join(buildDir, 'Release', `${target}.node`);
  rmSync(file, { force: true });
}

// Run only as a script, not when the tests import failureHeadline.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    // Anything unexpected still must not fail `npm install`: record it and carry on.
    try {
      writeStatus({ schema: 1, builtAt: new Date().toISOString(), node: process.version, fix: FIX, targets: {},
        reason: `the build script failed: ${error instanceof Error ? error.stack : String(error)}` });
    } catch {
      // even the status file could not be written; the lab then reports "not built yet"
    }
    console.warn(`native-kernel: build script failed (${error instanceof Error ? error.message : error}); the native rungs will be unavailable`);
  }
}
