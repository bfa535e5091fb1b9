/**
 * `@parallel-course/harness/testing.ts`: the tests' helpers. Beside its own (the processes a test file started, a
 * throw-away repository root), the judge's stages a lab's test drives: a whole run (`runLab`, `checkLab`), one case's
 * check (`checkCase`), the measure stage (`measureCases`) and the runner's fresh inputs (`drawFreshIndices`,
 * `sampleInputs`). Why an entry of its own: it loads the whole judge, and marks the process as a test file's
 * (TEST_OWNER_VARIABLE) when imported; the labs' API (`.`) must do neither.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProbeSync } from './machine/probe.ts';

/**
 * The environment variable that marks every process a test file starts. `npm test` runs several test files at once
 * (support/suite.ts), so another file's lab servers or runner children may be running beside this file's: a "no
 * process is left behind" check, or a clean-up that kills what is left, must see only its own. The first import of
 * this module in a test file's process sets it to that process's id; children inherit the environment (the harness,
 * its runner child, the labs' servers and device processes all start with process.env), and a process's
 * /proc/<pid>/environ keeps it even after its parent has died and it was re-parented.
 */
export const TEST_OWNER_VARIABLE = 'COURSE_TEST_OWNER';
process.env[TEST_OWNER_VARIABLE] ??= String(process.pid);

/** True when the NUL-separated environment (the text of /proc/<pid>/environ) carries `owner` as its test owner. */
export function ownedBy(environ: string, owner: string): boolean {
  return environ.split('\0').includes(`${TEST_OWNER_VARIABLE}=${owner}`);
}

/**
 * PIDs of the processes whose command line names this script file (an absolute path) and that this test file started
 * (TEST_OWNER_VARIABLE), for "no process is left behind" checks. The absolute path keeps another checkout's runs on
 * the same machine out of the answer, the owner another test file's runs in the same suite.
 * Reads /proc on Linux and `ps` elsewhere (there without the owner filter: run such a check alone there); when
 * neither can be read it throws, so a "nothing is left" test can never pass because the tool that looks was missing.
 */
export function runningProcesses(scriptFile: string): string[] {
  const owner = process.env[TEST_OWNER_VARIABLE]!;
  if (existsSync('/proc/self/cmdline')) {
    const pids: string[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry) || entry === String(process.pid)) continue;
      let cmdline: string;
      try {
        cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      } catch {
        continue; // ended while we looked
      }
      if (!cmdline.split('\0').includes(scriptFile)) continue;
      let environ: string;
      try {
        environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
      } catch {
        continue; // ended while we looked, or another user's process (not ours to count)
      }
      if (ownedBy(environ, owner)) pids.push(entry);
    }
    return pids;
  }
  // No /proc (macOS): ask ps, bounded like every child the harness starts outside the supervisor (probe.ts).
  const ps = runProbeSync('ps', ['-axo', 'pid=,command='], { maxBytes: 16 * 1024 * 1024 });
  if (!ps.ok) throw new Error(`runningProcesses: cannot list processes (no /proc, and 'ps' failed: ${ps.error ?? (ps.stderr.trim() || `exit ${ps.code}`)})`);
  return ps.stdout
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null && m[1] !== String(process.pid) && m[2]!.split(/\s+/).includes(scriptFile))
    .map((m) => m[1]!);
}

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * A throw-away repository root for planting faults in a real lab's learner code: `labs`, `node_modules` and
 * `package.json` are links to this checkout's, `exercises/<lab>` is a copy of `solutions/<lab>` (a passing
 * exercise) that the test may edit, and `solutions/<lab>` a copy of the solution. Remove it with `rmSync(root, { recursive: true, force: true })`.
 */
export function labCopyRoot(lab: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), `${lab}-faults-`));
  for (const name of ['labs', 'node_modules', 'package.json']) symlinkSync(path.join(REPO_ROOT, name), path.join(root, name));
  mkdirSync(path.join(root, 'exercises'));
  cpSync(path.join(REPO_ROOT, 'solutions', lab), path.join(root, 'exercises', lab), { recursive: true });
  // The solution stays as shipped, for --grade runs that measure it beside the exercise.
  cpSync(path.join(REPO_ROOT, 'solutions', lab), path.join(root, 'solutions', lab), { recursive: true });
  return root;
}

/** The measure stage (stage 2) alone, for a lab's test that drives one case as the runner does (native-kernel's cached-answer test). */
export { measureCases } from './measure/measure.ts';
export { checkLab, runLab, type CheckLabOptions, type CheckLabOutcome, type RunLabOptions, type RunLabOutcome } from './run/run-lab.ts';
export { checkCase } from './measure/check.ts';
export { drawFreshIndices, sampleInputs } from './measure/runner.ts';
