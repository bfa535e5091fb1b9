/**
 * Signals and a killed harness: the event-loop lab's servers (learner code in their own processes) never outlive
 * the harness, and a run stopped by a signal says so, exits 128 + the signal and writes nothing.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runningProcesses } from '../src/testing.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = path.join(REPO, 'labs/harness/src/cli.ts');
const SERVER_MAIN = path.join(REPO, 'labs/event-loop/src/server-main.ts');
const RUN_CHILD = path.join(REPO, 'labs/harness/src/measure/run-child.ts');

async function waitFor(what: string, condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) {
      const left = [...runningProcesses(SERVER_MAIN), ...runningProcesses(RUN_CHILD)].map((pid) => {
        try {
          return `${pid} (${readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2]}): ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 3).join(' ')}`;
        } catch {
          return pid;
        }
      });
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; still there: ${left.join('; ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts a quick event-loop run of the solution and waits until its servers are up. */
async function startRun(t: { after(fn: () => void): void }): Promise<{ child: ChildProcess; outDir: string; output: () => string }> {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'harness-signals-'));
  let output = '';
  // Its own temp folder: a SIGKILLed harness cannot remove its runner's (lab-run-*), so the test removes it.
  const tmpDir = mkdtempSync(path.join(os.tmpdir(), 'harness-signals-tmp-'));
  const child = spawn(process.execPath, [CLI, 'event-loop', '--impl', 'solution', '--quick', '--cpus', '2', '--out', outDir], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: tmpDir },
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  t.after(() => {
    child.kill('SIGKILL');
    for (const pid of [...runningProcesses(SERVER_MAIN), ...runningProcesses(RUN_CHILD)]) process.kill(Number(pid), 'SIGKILL');
    rmSync(outDir, { recursive: true, force: true });
    rmSync(tmpDir, { recursive: true, force: true });
  });
  await waitFor('the event-loop servers to start', () => runningProcesses(SERVER_MAIN).length > 0, 120_000);
  return { child, outDir, output: () => output };
}

test('a SIGKILLed harness leaves no server, no lab process and no run folder behind', async (t) => {
  const { child, outDir } = await startRun(t);
  // The run folder is made by the write stage alone: while the run measures, nothing of it is on disk to be left.
  assert.deepEqual(readdirSync(outDir), [], 'no folder under --out while the run measures');
  child.kill('SIGKILL');
  // The runner's watchdog thread polls its parent every 250 ms; its servers follow when their IPC channel closes.
  await waitFor('every lab process to end', () => runningProcesses(SERVER_MAIN).length === 0 && runningProcesses(RUN_CHILD).length === 0, 15_000);
  assert.deepEqual(readdirSync(outDir), [], 'no half-made run folder left');
});

for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
  test(`${signal} tears down every server, writes nothing and exits ${code}`, async (t) => {
    const { child, outDir, output } = await startRun(t);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    child.kill(signal);
    assert.equal(await exited, code);
    assert.match(output(), new RegExp(`Interrupted \\(${signal}\\): the lab's processes were stopped and no results were written for this run; earlier runs under .* are untouched\\. Rerun with: npm run lab -- event-loop`));
    // A generous bound: on a loaded machine (the whole suite, other jobs) the kernel may take a while to reap them.
    await waitFor('every lab process to end', () => runningProcesses(SERVER_MAIN).length === 0 && runningProcesses(RUN_CHILD).length === 0, 15_000);
    const labDir = path.join(outDir, 'event-loop');
    assert.deepEqual(existsSync(labDir) ? readdirSync(labDir) : [], [], 'no run folder is left');
  });
}

// A Slurm --time limit can deliver SIGTERM more than once (the step's own time-limit kill, then the job's terminate;
// seen in CI: "srun: error: task 0: Terminated", no word from the harness). Once a run is interrupted it stays so: a
// repeated signal, even after the runners have ended, neither kills the harness before it has said so nor leaves a
// run folder. (One arriving while Node itself shuts down, after the line, still ends it by the signal: a shell reports
// 143 either way.)
test('SIGTERM again and again: one interruption, said once, nothing written', async (t) => {
  const { child, outDir, output } = await startRun(t);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const again = setInterval(() => {
    if (!/Interrupted \(SIGTERM\)/.test(output())) child.kill('SIGTERM');
  }, 1);
  t.after(() => clearInterval(again));
  const end = await exited;
  clearInterval(again);
  assert.equal(output().match(/Interrupted \(SIGTERM\): the lab's processes were stopped and no results were written/g)?.length, 1, `${JSON.stringify(end)}\n${output()}`);
  assert.ok(end.code === 143 || end.signal === 'SIGTERM', JSON.stringify(end));
  await waitFor('every lab process to end', () => runningProcesses(SERVER_MAIN).length === 0 && runningProcesses(RUN_CHILD).length === 0, 15_000);
  const labDir = path.join(outDir, 'event-loop');
  assert.deepEqual(existsSync(labDir) ? readdirSync(labDir) : [], [], 'no run folder is left');
});

// After the measuring the supervisor's handlers are gone; a signal in the last stages (here: the lab's own analysis,
// the write stage's last step, held by the toy fixture) once killed the run with no word, then removed the whole run
// folder although its results and reports were written: now the written run is kept and the line says where.
test('SIGTERM during the lab\'s analysis, after the results were written, keeps the run\'s folder, says where and exits 143', { timeout: 120_000 }, async (t) => {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'harness-signals-write-'));
  const marker = path.join(outDir, 'analysing');
  t.after(() => rmSync(outDir, { recursive: true, force: true }));
  const runLab = new URL('../src/run/run-lab.ts', import.meta.url).href;
  const root = fileURLToPath(new URL('./fixtures/root/', import.meta.url));
  const script =
    `import { runLab } from ${JSON.stringify(runLab)};\n` +
    `await runLab({ lab: 'toy', impl: 'solution', quick: true, outDir: ${JSON.stringify(path.join(outDir, 'results'))}, rootDir: ${JSON.stringify(root)}, ` +
    `sampling: { warmupSamples: 1, rounds: 2, samplesPerRound: 2 } });\nconsole.log('not interrupted');`;
  let output = '';
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, COURSE_TEST_TOY_SLOW_ANALYSIS: marker } });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  t.after(() => child.kill('SIGKILL'));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  await waitFor('the write stage (the toy lab\'s analysis)', () => existsSync(marker), 90_000);
  assert.ok(existsSync(path.join(outDir, 'results', 'toy')), 'the run folder was there while the run was written');
  child.kill('SIGTERM');
  assert.equal(await exited, 143, output);
  assert.match(output, /Interrupted \(SIGTERM\) after the results were written: they are kept in \S+; the lab's analysis may be missing \(make it with: npm run analyse -- \S+\)\./);
  assert.doesNotMatch(output, /not interrupted/);
  // The whole run stays (a signal here used to remove a complete run folder with its results and reports).
  const [run] = readdirSync(path.join(outDir, 'results', 'toy'));
  const files = readdirSync(path.join(outDir, 'results', 'toy', run!));
  for (const file of ['results.json', 'report.md', 'report.html']) assert.ok(files.includes(file), `${file} kept: ${files.join(', ')}`);
});
