/**
 * The Slurm templates: valid bash, clean under shellcheck, and they really run a lab when Slurm's `srun` and
 * variables are stood in for (a test double `srun` on PATH that runs its command; no Slurm here).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from './support/temp-dir.ts';
import { tempRoot } from './support/temp-root.ts';

const SLURM_DIR = fileURLToPath(new URL('../slurm/', import.meta.url));
const HARNESS_SRC = fileURLToPath(new URL('../src/', import.meta.url));
const SCRIPTS = ['lab.sbatch', 'class-array.sbatch'].map((f) => path.join(SLURM_DIR, f));

test('the Slurm scripts pass bash -n', () => {
  for (const script of SCRIPTS) {
    const result = spawnSync('bash', ['-n', script], { encoding: 'utf8' });
    assert.equal(result.status, 0, `${script}: ${result.stderr}`);
  }
});

const hasShellcheck = spawnSync('shellcheck', ['--version']).status === 0;
test('the Slurm scripts pass shellcheck', { skip: hasShellcheck ? false : 'shellcheck is not installed (apt-get install shellcheck; .ci/run installs it)' }, () => {
  const result = spawnSync('shellcheck', ['--shell=bash', ...SCRIPTS], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stdout + result.stderr);
});

/** A course folder with the workflow fixture lab and a copy of the harness, plus a stand-in `srun`; removed when `t` ends. */
function fakeCluster(t: TestContext): { course: string; bin: string } {
  const course = tempRoot('workflow-root', 'harness-slurm-', t);
  cpSync(HARNESS_SRC, path.join(course, 'labs', 'harness', 'src'), { recursive: true });
  const bin = tempDir(t, 'harness-slurm-bin-');
  // Test double: real srun binds CPUs and launches the task; this one just runs the command.
  writeFileSync(path.join(bin, 'srun'), '#!/usr/bin/env bash\nwhile [[ "$1" == --* ]]; do shift; done\nexec "$@"\n');
  chmodSync(path.join(bin, 'srun'), 0o755);
  return { course, bin };
}

test('class-array.sbatch runs one learner\'s exercise per array task and keeps the results under their name', (t) => {
  const { course, bin } = fakeCluster(t);
  const alice = tempDir(t, 'harness-slurm-alice-');
  cpSync(path.join(course, 'solutions', 'sums'), alice, { recursive: true });
  const list = path.join(course, 'learners.txt');
  writeFileSync(list, `# name, exercise folder\n\nalice ${alice}\nbob /nonexistent\n`);
  const classOut = path.join(course, 'class-runs');
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, COURSE_DIR: course, CLASS_OUT: classOut, SLURM_JOB_ID: '77', TMPDIR: os.tmpdir() };
  const ok = spawnSync('bash', [path.join(SLURM_DIR, 'class-array.sbatch'), list, 'sums', '--quick'], { encoding: 'utf8', env: { ...env, SLURM_ARRAY_TASK_ID: '1' }, timeout: 60_000 });
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  assert.match(ok.stdout, /learner alice: lab sums exited with 0/);
  const runs = readdirSync(path.join(classOut, 'alice', 'sums'));
  assert.equal(runs.length, 1);
  assert.ok(existsSync(path.join(classOut, 'alice', 'sums', runs[0]!, 'results.json')));
  assert.equal(existsSync(path.join(os.tmpdir(), 'course-77-1')), false, 'scratch removed');

  const bad = spawnSync('bash', [path.join(SLURM_DIR, 'class-array.sbatch'), list, 'sums'], { encoding: 'utf8', env: { ...env, SLURM_ARRAY_TASK_ID: '2' } });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^error: learner bob: \/nonexistent is not a folder; it should be their exercises\/sums$/m);
  const beyond = spawnSync('bash', [path.join(SLURM_DIR, 'class-array.sbatch'), list, 'sums'], { encoding: 'utf8', env: { ...env, SLURM_ARRAY_TASK_ID: '3' } });
  assert.equal(beyond.status, 2);
  assert.match(beyond.stderr, /has no learner number 3: submit with --array=1-<number of learners>/);
});

test('lab.sbatch runs the doctor, then the lab, and records the Slurm variables', (t) => {
  const { course, bin } = fakeCluster(t);
  mkdirSync(path.join(course, 'out'));
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, COURSE_DIR: course, OUT_DIR: path.join(course, 'out'), SLURM_JOB_ID: '78', SLURM_CPUS_PER_TASK: '2' };
  const result = spawnSync('bash', [path.join(SLURM_DIR, 'lab.sbatch'), 'sums', 'solution', '--quick'], { encoding: 'utf8', env, timeout: 90_000 });
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /^ok {4}Node\.js/m);
  const [run] = readdirSync(path.join(course, 'out', 'sums'));
  const results = JSON.parse(readFileSync(path.join(course, 'out', 'sums', run!, 'results.json'), 'utf8'));
  assert.equal(results.environment.slurm.SLURM_JOB_ID, '78');
  assert.equal(results.environment.uvThreadpoolSize, '2');
});

test('lab.sbatch jobs from one course folder take turns (the addon is built inside it)', async (t) => {
  const { course, bin } = fakeCluster(t);
  mkdirSync(path.join(course, 'out'));
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, COURSE_DIR: course, OUT_DIR: path.join(course, 'out'), SLURM_JOB_ID: '79' };
  // Another job holds the folder's lock for a second.
  const holder = spawn('flock', [path.join(course, '.lab-sbatch.lock'), 'sleep', '1'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const started = Date.now();
  const result = spawnSync('bash', [path.join(SLURM_DIR, 'lab.sbatch'), 'sums', 'solution', '--quick'], { encoding: 'utf8', env, timeout: 90_000 });
  holder.kill();
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stderr, /another lab\.sbatch job is using .*; waiting for it to finish/);
  assert.ok(Date.now() - started >= 700, 'the job waited for the lock');
});
