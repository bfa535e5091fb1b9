/**
 * The environment probes' parsers, on the formats the kernel and nvidia-smi print; the manifest of this machine; and
 * the manifest with a stand-in nvidia-smi that hangs or prints garbage (in a child process: a regression would hang).
 */
// npm test starts this file early: it waits out a hung stand-in nvidia-smi's probe deadline (about 6 s, mostly idle).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { collectEnvironment, parseGitStatus, parseNvidiaSmi } from '../src/machine/environment.ts';
import { cpuAffinityList, quotaFromCfs, quotaFromCpuMax } from '../src/machine/cpus.ts';
import { environmentSchema } from '@parallel-course/core';
import { fakeNvidiaSmi, garbage, HUNG } from './support/fake-nvidia-smi.ts';

const ENVIRONMENT = fileURLToPath(new URL('../src/machine/environment.ts', import.meta.url));

/** collectEnvironment in a child Node: what it returned, the lines it reported, and how long it took (ms). */
function collectInChild(env: NodeJS.ProcessEnv, timeout: number) {
  const code = `const m = await import(${JSON.stringify(ENVIRONMENT)}); const lines = []; const t = performance.now();
    const e = await m.collectEnvironment(process.cwd(), (l) => lines.push(l));
    console.log(JSON.stringify({ gpus: e.gpus, lines, ms: performance.now() - t }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env, timeout });
  assert.equal(run.signal, null, `collectEnvironment hung and was killed: ${run.stderr}`);
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as { gpus: unknown[]; lines: string[]; ms: number };
}

test('cgroup CPU quota: v2 cpu.max and v1 files (the one reader, cpus.ts)', () => {
  assert.equal(quotaFromCpuMax('max 100000\n'), null);
  assert.equal(quotaFromCpuMax('150000 100000\n'), 1.5);
  assert.equal(quotaFromCfs('200000', '100000'), 2);
  assert.equal(quotaFromCfs('-1', '100000'), null);
});

test('CPU affinity from /proc/self/status (the one parser, cpus.ts)', () => {
  assert.equal(cpuAffinityList('Name:\tnode\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed:\t1\n'), '0-1');
  assert.equal(cpuAffinityList('Name:\tnode\n'), null);
  assert.equal(cpuAffinityList(null), null);
});

test('results.json records the cgroup quota once, in cpus.quota', () => {
  assert.equal('cgroupCpuQuota' in environmentSchema.shape, false);
});

test('GPUs from nvidia-smi csv output', () => {
  assert.deepEqual(parseNvidiaSmi('NVIDIA A100-SXM4-40GB, 40960\nNVIDIA A100-SXM4-40GB, 40960\n'), [
    { name: 'NVIDIA A100-SXM4-40GB', memoryMiB: 40960 },
    { name: 'NVIDIA A100-SXM4-40GB', memoryMiB: 40960 },
  ]);
  assert.deepEqual(parseNvidiaSmi('Tesla T4, [N/A]'), [{ name: 'Tesla T4', memoryMiB: null }]);
  assert.deepEqual(parseNvidiaSmi(null), []);
  // Lines that are not "name, MiB" are not GPUs.
  assert.deepEqual(parseNvidiaSmi('No devices were found\nTesla T4, lots\n, 1024\nA10, 24576'), [{ name: 'A10', memoryMiB: 24576 }]);
  assert.equal(parseNvidiaSmi('GPU, 1\n'.repeat(100)).length, 64);
});

test('the commit and a dirty tree from one git status --porcelain=v2 --branch', () => {
  const oid = '9d235b986413e0ed65e3e03a4706f57b235f9d10';
  const clean = `# branch.oid ${oid}\n# branch.head main\n`;
  assert.deepEqual(parseGitStatus(clean), { commit: oid, dirty: false });
  assert.deepEqual(parseGitStatus(`${clean}# branch.upstream origin/main\n1 .M N... 100644 100644 100644 ${oid} ${oid} labs/x.ts\n`), { commit: oid, dirty: true });
  assert.deepEqual(parseGitStatus('# branch.oid (initial)\n# branch.head main\n1 A. N... 000000 100644 100644 0 0 a.ts\n'), { commit: null, dirty: null }, 'no commit yet');
  assert.deepEqual(parseGitStatus(null), { commit: null, dirty: null }, 'git failed: not a repository, or no git');
  assert.deepEqual(parseGitStatus('# branch.oid \x1b[31mnot-a-hash\n'), { commit: null, dirty: null }, 'never a garbled commit');
});

test('the manifest of this machine fits the schema and picks up Slurm variables', async () => {
  process.env.SLURM_JOB_ID = '4242';
  try {
    const env = environmentSchema.parse(await collectEnvironment(process.cwd()));
    assert.equal(env.slurm.SLURM_JOB_ID, '4242');
    assert.ok(env.availableParallelism >= 1);
    assert.equal(env.node, process.versions.node);
    // The same commit git itself names (where this checkout is a git repository with a commit).
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' });
    if (head.status === 0) assert.equal(env.git.commit, head.stdout.trim());
  } finally {
    delete process.env.SLURM_JOB_ID;
  }
});

test('a hung nvidia-smi delays the manifest by at most 5 s + 2 grace periods, and says so in one line', (t) => {
  const { env } = fakeNvidiaSmi(t, HUNG);
  const result = collectInChild(env, 30_000);
  assert.deepEqual(result.gpus, []);
  assert.deepEqual(result.lines, ['note: nvidia-smi did not finish within 5 s and was killed; the results record it as unknown']);
  assert.ok(result.ms < 5000 + 2000 + 3000, `took ${result.ms.toFixed(0)} ms`);
});

test('garbage from nvidia-smi is recorded without escape sequences', (t) => {
  const { env } = fakeNvidiaSmi(t, garbage('Evil GPU, 1024'));
  const result = collectInChild(env, 30_000);
  assert.deepEqual(result.gpus, [{ name: 'Evil GPU', memoryMiB: 1024 }]);
  assert.deepEqual(result.lines, []);
});
