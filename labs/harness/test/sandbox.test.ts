/**
 * Learner code cannot reach what it does not own (sandbox.ts): a learner module that tries to rewrite the reference
 * solution, write into reference/ and another run's folder, read /etc/passwd and leave a detached process behind
 * changes nothing; each attempt is refused by the permission model. Before the sandbox, every one succeeded.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { runLab } from '../src/run/run-lab.ts';
import { readSandboxNeeds, sandboxExecArgv } from '../src/supervise/sandbox.ts';
import { tempRoot } from './support/temp-root.ts';

const SAMPLING = { warmupSamples: 1, rounds: 2, samplesPerRound: 3 };
/** A marker no other process on the machine has in its command line. */
const MARKER = `sleep ${37 + Math.random()}`;

const HOSTILE = `import * as fs from 'node:fs';
import * as cp from 'node:child_process';
const root = new URL('../../', import.meta.url).pathname;
const tries: [string, () => unknown][] = [
  ['solution', () => fs.writeFileSync(root + 'solutions/faulty/faulty.ts', 'export function sumSquares() { return 0; }')],
  ['reference', () => fs.writeFileSync(root + 'reference/planted.json', '{}')],
  ['other run', () => fs.rmSync(root + 'results/earlier-run', { recursive: true, force: true })],
  ['lab', () => fs.appendFileSync(root + 'labs/faulty/src/lab.ts', '// planted')],
  ['passwd', () => fs.readFileSync('/etc/passwd', 'utf8')],
  ['process', () => cp.spawn('/bin/sh', ['-c', 'exec ${MARKER}'], { detached: true, stdio: 'ignore' }).unref()],
];
for (const [, attempt] of tries) { try { attempt(); } catch {} }
export function sumSquares(xs: Float64Array): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;
  return s;
}
`;

/** PIDs of processes whose command line is MARKER. */
function markedProcesses(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim() === MARKER) pids.push(Number(name));
    } catch {
      // gone already
    }
  }
  return pids;
}

test('a hostile learner module writes nothing outside its temp folder and leaves no process behind', async (t) => {
  const root = tempRoot('faults-root', 'harness-sandbox-', t);
  const solution = readFileSync(path.join(root, 'solutions', 'faulty', 'faulty.ts'), 'utf8');
  const lab = readFileSync(path.join(root, 'labs', 'faulty', 'src', 'lab.ts'), 'utf8');
  mkdirSync(path.join(root, 'reference'));
  mkdirSync(path.join(root, 'results', 'earlier-run'), { recursive: true });
  writeFileSync(path.join(root, 'results', 'earlier-run', 'results.json'), '{}');
  writeFileSync(path.join(root, 'exercises', 'faulty', 'faulty.ts'), HOSTILE);
  t.after(() => {
    for (const pid of markedProcesses()) process.kill(pid, 'SIGKILL'); // only the one this test's learner started
  });

  const outcome = await runLab({ lab: 'faulty', impl: 'exercise', quick: true, outDir: path.join(root, 'results'), sampling: SAMPLING, silent: true, rootDir: root, grade: true, forks: 2 });
  assert.ok(outcome.runDir, 'the run was written');
  assert.equal(readFileSync(path.join(root, 'solutions', 'faulty', 'faulty.ts'), 'utf8'), solution, 'the solution is unchanged');
  assert.equal(readFileSync(path.join(root, 'labs', 'faulty', 'src', 'lab.ts'), 'utf8'), lab, 'the lab is unchanged');
  assert.deepEqual(readdirSync(path.join(root, 'reference')), [], 'nothing written into reference/');
  assert.ok(existsSync(path.join(root, 'results', 'earlier-run', 'results.json')), 'the earlier run is still there');
  assert.deepEqual(markedProcesses(), [], 'no process left behind');
});

test('the flags grant reading the code under test and writing only the temp folder and declared lab folders', () => {
  const argv = sandboxExecArgv({ rootDir: '/course', lab: 'demo', impl: 'exercise', grade: false, tmpDir: '/tmp/run-1', needs: { childProcess: false, addons: false, writes: ['models'], reads: [] } });
  assert.ok(argv.includes('--permission'));
  assert.ok(argv.includes('--allow-fs-read=/course/exercises/demo'));
  assert.ok(!argv.some((a) => a.includes('/course/solutions')), 'a plain exercise run does not read solutions/');
  assert.deepEqual(argv.filter((a) => a.startsWith('--allow-fs-write=')).sort(), ['--allow-fs-write=/course/labs/demo/models', '--allow-fs-write=/tmp/run-1']);
  assert.ok(!argv.includes('--allow-child-process') && !argv.includes('--allow-addons'));
  const graded = sandboxExecArgv({ rootDir: '/course', lab: 'demo', impl: 'exercise', grade: true, tmpDir: '/tmp/run-1', needs: { childProcess: true, addons: true, writes: [], reads: ['/proc'] } });
  assert.ok(graded.includes('--allow-fs-read=/course/solutions/demo'), 'grading reads the solution');
  assert.ok(graded.includes('--allow-child-process') && graded.includes('--allow-addons'));
  assert.ok(graded.includes('--allow-fs-read=/proc'), 'a declared system folder (task-granularity reads its children\'s memory in /proc)');
});

test('inside the sandbox, native-kernel sees the CPU topology it sees outside (its triad is sized from it)', () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const script = `import { currentTopology } from ${JSON.stringify(pathToFileURL(path.join(root, 'labs/harness/src/machine/topology.ts')).href)}; console.log(JSON.stringify(currentTopology()));`;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'harness-topology-'));
  try {
    const file = path.join(tmp, 'topology.mjs');
    writeFileSync(file, script);
    const argv = sandboxExecArgv({ rootDir: root, lab: 'native-kernel', impl: 'solution', grade: false, tmpDir: tmp, needs: readSandboxNeeds(root, 'native-kernel') });
    const inside = spawnSync(process.execPath, [...argv, file], { encoding: 'utf8' });
    const outside = spawnSync(process.execPath, [file], { encoding: 'utf8' });
    assert.equal(inside.status, 0, inside.stderr);
    assert.deepEqual(JSON.parse(inside.stdout), JSON.parse(outside.stdout));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
