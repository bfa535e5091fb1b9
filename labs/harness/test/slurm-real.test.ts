/**
 * The course's two Slurm templates on a real Slurm (slurmctld + slurmd; CI starts a one-node cluster with
 * labs/harness/slurm/ci/start-slurm.sh). Everything goes through sbatch as an instructor would submit it:
 * - lab.sbatch: the lab inside the job plans for P = --cpus-per-task, and its results land where the template says;
 * - the template's old srun line (no --cpus-per-task) gives the lab 1 CPU: the same P check fails, and the run warns;
 * - class-array.sbatch over three learners (correct, wrong, hangs): their runs, the class page and gradebook.csv;
 * - a job ended by scancel and one past its time limit: no results, no process left, and the log says how to rerun.
 * Where no Slurm answers, one test skips with the reason; where start-slurm.sh configured one (CI) or with
 * COURSE_REQUIRE_SLURM=1, that is a failure instead.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Results } from '@parallel-course/core';
import { describeJob, JOB_CPUS, jobEnv, jobRecords, processesOfJob, realSlurmRequired, realSlurmUnavailable, slurmVersion, runJob, submit, waitForText, waitUntilGone } from './support/real-slurm.ts';
import { tempDir } from './support/temp-dir.ts';
import { tempRoot } from './support/temp-root.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const SLURM_DIR = path.join(REPO, 'labs', 'harness', 'slurm');
const HARNESS_SRC = path.join(REPO, 'labs', 'harness', 'src');
/** The smallest real lab with a worker sweep (about 30 s --quick on 2 CPUs). */
const LAB = 'task-granularity';
/** The template's srun line, and the one it had before (which gave the lab 1 CPU on Slurm 22.05+). */
const SRUN_LINE = /^srun --cpus-per-task="\$\{SLURM_CPUS_PER_TASK:-1\}" --cpu-bind=cores /m;
const OLD_SRUN_LINE = 'srun --cpu-bind=cores ';

/** The P test: the lab in a job with `cpusPerTask` CPUs per task planned for and was bound to exactly that many. */
function assertStepHadJobCpus(results: Results, cpusPerTask: number): void {
  assert.equal(results.cpus.p, cpusPerTask, `P = ${results.cpus.p} in a job with --cpus-per-task=${cpusPerTask} (${results.notes[0]})`);
  assert.equal(results.cpus.affinity, cpusPerTask, 'the step is bound to the job\'s CPUs');
  assert.ok(!results.notes.some((n) => n.includes('the step got')), 'no warning about the step\'s CPUs');
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The run folders `<out>/<lab>/<time>/` that hold a results.json. */
function finishedRuns(out: string, lab: string): string[] {
  const dir = path.join(out, lab);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((run) => existsSync(path.join(dir, run, 'results.json'))).map((run) => path.join(dir, run));
}

function readResults(runDir: string): Results {
  return JSON.parse(readFileSync(path.join(runDir, 'results.json'), 'utf8')) as Results;
}

/** Every file under `dir`, relative: to show that nothing half-made was left. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** Cancels the job if the test ends before it does (a failed assertion must not leave it running). */
function cancelAfter(t: TestContext, id: string): void {
  t.after(() => {
    spawnSync('scancel', [id], { timeout: 10_000 });
  });
}

const unavailable = realSlurmUnavailable();
if (unavailable !== null) {
  if (realSlurmRequired()) {
    test('a real Slurm answers (start-slurm.sh configured one here, or COURSE_REQUIRE_SLURM=1)', () => assert.fail(unavailable));
  } else {
    test('the Slurm templates on a real Slurm', { skip: unavailable }, () => {});
  }
} else {
  describe(`the Slurm templates on a real Slurm (${slurmVersion()})`, () => {
    test(`lab.sbatch: the lab in the job plans for P = --cpus-per-task (${JOB_CPUS}), its run in $OUT_DIR/<lab>/<time>/`, { timeout: 300_000 }, async (t) => {
      const dir = tempDir(t, 'harness-slurm-real-lab-');
      const out = path.join(dir, 'results');
      const log = path.join(dir, 'lab-%j.out');
      const job = await runJob([`--cpus-per-task=${JOB_CPUS}`, '--time=4', `--output=${log}`, path.join(SLURM_DIR, 'lab.sbatch'), LAB, 'solution', '--quick'], REPO, jobEnv({ OUT_DIR: out }), 250_000);
      cancelAfter(t, job.id);
      t.diagnostic(describeJob(job.id));
      const text = readText(log.replace('%j', job.id));
      assert.equal(job.status, 0, text);
      assert.equal(jobRecords(job.id)[0]?.state, 'COMPLETED');
      const runs = finishedRuns(out, LAB);
      assert.equal(runs.length, 1, `one run under ${path.join(out, LAB)}`);
      const results = readResults(runs[0]!);
      assertStepHadJobCpus(results, JOB_CPUS);
      assert.equal(results.environment.slurm.SLURM_JOB_ID, job.id);
      assert.equal(results.environment.uvThreadpoolSize, String(JOB_CPUS), 'UV_THREADPOOL_SIZE set to the job\'s CPUs');
      assert.ok(existsSync(path.join(runs[0]!, 'report.html')));
      assert.match(text, new RegExp(`P = ${JOB_CPUS}: the affinity mask of ${JOB_CPUS} CPUs`));
      assert.match(text, new RegExp(`Slurm +job ${job.id}, ${JOB_CPUS} CPUs per task`), 'the doctor ran in the job');
      assert.deepEqual(processesOfJob(job.id), []);
    });

    test('the old srun line (--cpu-bind=cores alone) gives the lab 1 CPU: the P check fails and the run warns', { timeout: 220_000 }, async (t) => {
      // The small workflow lab (seconds): only P matters here.
      const course = tempRoot('workflow-root', 'harness-slurm-real-old-', t);
      cpSync(HARNESS_SRC, path.join(course, 'labs', 'harness', 'src'), { recursive: true });
      const template = readFileSync(path.join(SLURM_DIR, 'lab.sbatch'), 'utf8');
      assert.match(template, SRUN_LINE);
      const oldTemplate = path.join(course, 'old-lab.sbatch');
      writeFileSync(oldTemplate, template.replace(SRUN_LINE, OLD_SRUN_LINE).replace(/^export SRUN_CPUS_PER_TASK=.*$/m, ''));
      assert.doesNotMatch(readFileSync(oldTemplate, 'utf8'), /^[^#]*(SRUN_CPUS_PER_TASK|srun --cpus-per-task)/m, 'no line outside comments gives srun the CPUs');
      const out = path.join(course, 'out');
      const log = path.join(course, 'old-%j.out');
      const job = await runJob([`--cpus-per-task=${JOB_CPUS}`, '--time=3', `--output=${log}`, oldTemplate, 'sums', 'solution', '--quick'], course, jobEnv({ OUT_DIR: out }), 190_000);
      cancelAfter(t, job.id);
      t.diagnostic(describeJob(job.id));
      const text = readText(log.replace('%j', job.id));
      assert.equal(job.status, 0, text);
      const runs = finishedRuns(out, 'sums');
      assert.equal(runs.length, 1, text);
      const results = readResults(runs[0]!);
      assert.equal(results.cpus.p, 1, 'the step got 1 CPU');
      assert.throws(() => assertStepHadJobCpus(results, JOB_CPUS), /P = 1 in a job with --cpus-per-task=2/);
      const warning = `Slurm job ${job.id}: the step got 1 of the job's ${JOB_CPUS} CPUs: srun needs --cpus-per-task`;
      assert.ok(results.notes.some((n) => n.startsWith(warning)), `results.json notes: ${results.notes.join(' | ')}`);
      assert.ok(text.includes(`warning: ${warning}`), 'the warning in the job log');
      assert.ok(readFileSync(path.join(runs[0]!, 'report.md'), 'utf8').includes("the step got 1 of the job's"), 'and in the report');
    });

    test('scancel mid-run: the harness ends its children, keeps nothing half-made, the log says how to rerun', { timeout: 220_000 }, async (t) => {
      const dir = tempDir(t, 'harness-slurm-real-cancel-');
      const out = path.join(dir, 'results');
      const log = path.join(dir, 'cancel-%j.out');
      // A full run: minutes of work, ended while it checks.
      const id = submit([`--cpus-per-task=${JOB_CPUS}`, '--time=10', `--output=${log}`, path.join(SLURM_DIR, 'lab.sbatch'), LAB, 'solution'], REPO, jobEnv({ OUT_DIR: out }));
      cancelAfter(t, id);
      const file = log.replace('%j', id);
      const before = await waitForText(() => readText(file), /Checking \d+ cases/, 120_000);
      assert.match(before, /Checking \d+ cases/, 'the lab started');
      assert.equal(spawnSync('scancel', [id]).status, 0);
      assert.ok(await waitUntilGone(id, 60_000), 'the job ended within 60 s of scancel');
      t.diagnostic(describeJob(id));
      const text = readText(file);
      assert.equal(jobRecords(id)[0]?.state, 'CANCELLED');
      assert.match(text, new RegExp(`\\*\\*\\* JOB ${id} ON \\S+ CANCELLED AT`), 'Slurm says it was cancelled');
      assert.match(text, /Interrupted \(SIGTERM\): the lab's processes were stopped and no results were written for this run/);
      assert.match(text, new RegExp(`lab\\.sbatch: job ${id} was ended \\(scancel, or its --time limit.*submit it again.*sbatch --cpus-per-task=${JOB_CPUS} --time=\\S+ labs/harness/slurm/lab\\.sbatch ${LAB} solution`));
      assert.deepEqual(filesUnder(out), [], 'no results, no half-made run folder');
      assert.deepEqual(processesOfJob(id), [], 'no process of the job is left');
    });

    test('a job past its --time: ended by Slurm, nothing half-made kept, the log says what happened and how to rerun', { timeout: 260_000 }, async (t) => {
      const dir = tempDir(t, 'harness-slurm-real-timeout-');
      const out = path.join(dir, 'results');
      const log = path.join(dir, 'timeout-%j.out');
      // One minute, Slurm's smallest limit, for a full run of minutes. Slurm checks limits about every 30 s, so it ends
      // between 60 and 90 s (then SIGTERM, SIGKILL KillWait seconds later). native-kernel's full run takes about 3 min
      // (its sample counts follow a time budget, not the machine's speed), so it is still measuring then (a signal while
      // a run is written says "Interrupted" too, run/interrupt.ts, but a shorter lab could finish inside the minute).
      const job = await runJob([`--cpus-per-task=${JOB_CPUS}`, '--time=1', `--output=${log}`, path.join(SLURM_DIR, 'lab.sbatch'), 'native-kernel', 'solution'], REPO, jobEnv({ OUT_DIR: out }), 200_000);
      cancelAfter(t, job.id);
      t.diagnostic(describeJob(job.id));
      const text = readText(log.replace('%j', job.id));
      assert.notEqual(job.status, 0, text);
      assert.equal(jobRecords(job.id)[0]?.state, 'TIMEOUT', text);
      assert.match(text, /CANCELLED AT \S+ DUE TO TIME LIMIT/, 'Slurm says why');
      assert.match(text, /Interrupted \(SIGTERM\)/);
      assert.match(text, /lab\.sbatch: job \d+ was ended .*with a longer --time if it ran out/);
      assert.deepEqual(filesUnder(out), [], 'no results, no half-made run folder');
      assert.deepEqual(processesOfJob(job.id), [], 'no process of the job is left');
    });

    test('class-array.sbatch over three learners (correct, wrong, hangs): their runs, the class page and gradebook.csv', { timeout: 480_000 }, async (t) => {
      const dir = tempDir(t, 'harness-slurm-real-class-');
      const solution = path.join(REPO, 'solutions', LAB);
      for (const name of ['ok', 'wrong', 'hang']) cpSync(solution, path.join(dir, name), { recursive: true });
      // wrong: the scheduler drops the first task's points and no longer checks the total, so pool and process answer wrong.
      const schedule = path.join(dir, 'wrong', 'schedule.ts');
      const code = readFileSync(schedule, 'utf8');
      const merge = "if (outcome.status === 'fulfilled') mergeInto(histogram, outcome.value);";
      const total = 'if (counted !== spec.points) {';
      assert.ok(code.includes(merge) && code.includes(total), `${schedule} changed: update this test's wrong learner`);
      writeFileSync(schedule, code.replace(merge, "if (outcome.status === 'fulfilled') { if (i > 0) mergeInto(histogram, outcome.value); }").replace(total, 'if (counted > spec.points) {'));
      // hang: the shared-histogram worker never returns, so the tally case never finishes.
      writeFileSync(path.join(dir, 'hang', 'tally-worker.ts'), 'export default function tallyShared(): number {\n  for (;;) {}\n}\n');
      const list = path.join(dir, 'learners.txt');
      writeFileSync(list, ['# name, exercise folder', ...['ok', 'wrong', 'hang'].map((n) => `${n} ${path.join(dir, n)}`)].join('\n') + '\n');
      const classOut = path.join(dir, 'class-runs');
      // One CPU per learner and --oversubscribe (over the template's --exclusive): two learners at a time on this
      // 2-CPU node, to keep CI short; P is lab.sbatch's test.
      const job = await runJob(
        ['--array=1-3', '--cpus-per-task=1', '--oversubscribe', '--time=6', `--output=${path.join(dir, 'task-%A_%a.out')}`, path.join(SLURM_DIR, 'class-array.sbatch'), list, LAB, '--quick'],
        REPO,
        jobEnv({ CLASS_OUT: classOut }),
        420_000,
      );
      cancelAfter(t, job.id);
      t.diagnostic(describeJob(job.id));
      const logs = [1, 2, 3].map((task) => readText(path.join(dir, `task-${job.id}_${task}.out`)));
      assert.deepEqual(jobRecords(job.id).map((r) => [r.arrayTaskId, r.state, r.exitCode]), [['1', 'COMPLETED', '0:0'], ['2', 'FAILED', '1:0'], ['3', 'FAILED', '1:0']], logs.join('\n-----\n'));
      assert.equal(job.status, 1, 'the array\'s highest exit: a learner whose check failed');
      assert.match(logs[0]!, /learner ok: lab task-granularity exited with 0/);
      assert.match(logs[1]!, /learner wrong: lab task-granularity exited with 1/);
      assert.match(logs[2]!, /learner hang: lab task-granularity exited with 1/);
      assert.match(logs[2]!, /tally \(points=\d+\): .*did not finish within 60 s/, 'the hang is named');

      const byName = Object.fromEntries(['ok', 'wrong', 'hang'].map((name) => {
        const runs = finishedRuns(path.join(classOut, name), LAB);
        assert.equal(runs.length, 1, `${name}: one run under ${path.join(classOut, name, LAB)}`);
        return [name, readResults(runs[0]!)];
      }));
      assert.ok(byName.ok!.correctness.every((e) => e.passed));
      const failed = (name: string) => byName[name]!.correctness.filter((e) => !e.passed).map((e) => e.variant);
      assert.deepEqual([...new Set(failed('wrong'))].sort(), ['pool', 'process']);
      assert.deepEqual(failed('hang'), ['tally']);
      const scratch = readdirSync(process.env.TMPDIR ?? '/tmp').filter((f) => f.startsWith(`course-`) && /^course-\d+-\d+$/.test(f));
      assert.deepEqual(scratch, [], 'each task removed its scratch copy');

      const page = spawnSync(process.execPath, [path.join(HARNESS_SRC, 'tools', 'class-cli.ts'), classOut, '--out', path.join(dir, 'page')], { cwd: REPO, encoding: 'utf8', env: jobEnv(), timeout: 60_000 });
      assert.equal(page.status, 0, page.stdout + page.stderr);
      assert.match(page.stdout, /^1 valid, 2 invalid submissions$/m, 'a run with a failed check is listed, not graded');
      const html = readFileSync(/Class page: (.*)$/m.exec(page.stdout)![1]!, 'utf8');
      for (const name of ['ok', 'wrong', 'hang']) assert.ok(html.includes(`${name}/${LAB}/`), `${name} on the class page`);
      const csv = readFileSync(/Gradebook: +(.*)$/m.exec(page.stdout)![1]!, 'utf8').trim().split('\n');
      assert.equal(csv.length, 4, csv.join('\n'));
      const rows = csv.slice(1).map((line) => [line.split('/')[0], line.split(',')[2]]);
      assert.deepEqual(rows, [['hang', 'check-failed'], ['ok', 'ok'], ['wrong', 'check-failed']]);
      assert.deepEqual(processesOfJob(job.id), []);
    });
  });
}
