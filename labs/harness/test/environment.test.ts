/** The environment probes' parsers, on the formats the kernel and nvidia-smi print. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectEnvironment, parseCgroupQuota, parseCpuAffinity, parseNvidiaSmi } from '../src/environment.ts';
import { environmentSchema } from '../src/results-schema.ts';

test('cgroup CPU quota: v2 cpu.max and v1 files', () => {
  assert.equal(parseCgroupQuota('max 100000\n', null, null), null);
  assert.equal(parseCgroupQuota('150000 100000\n', null, null), 1.5);
  assert.equal(parseCgroupQuota(null, '200000', '100000'), 2);
  assert.equal(parseCgroupQuota(null, '-1', '100000'), null);
  assert.equal(parseCgroupQuota(null, null, null), null);
});

test('CPU affinity from /proc/self/status', () => {
  assert.equal(parseCpuAffinity('Name:\tnode\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed:\t1\n'), '0-1');
  assert.equal(parseCpuAffinity('Name:\tnode\n'), null);
  assert.equal(parseCpuAffinity(null), null);
});

test('GPUs from nvidia-smi csv output', () => {
  assert.deepEqual(parseNvidiaSmi('NVIDIA A100-SXM4-40GB, 40960\nNVIDIA A100-SXM4-40GB, 40960\n'), [
    { name: 'NVIDIA A100-SXM4-40GB', memoryMiB: 40960 },
    { name: 'NVIDIA A100-SXM4-40GB', memoryMiB: 40960 },
  ]);
  assert.deepEqual(parseNvidiaSmi('Tesla T4, [N/A]'), [{ name: 'Tesla T4', memoryMiB: null }]);
  assert.deepEqual(parseNvidiaSmi(null), []);
});

test('the manifest of this machine fits the schema and picks up Slurm variables', () => {
  process.env.SLURM_JOB_ID = '4242';
  try {
    const env = environmentSchema.parse(collectEnvironment(process.cwd()));
    assert.equal(env.slurm.SLURM_JOB_ID, '4242');
    assert.ok(env.availableParallelism >= 1);
    assert.equal(env.node, process.versions.node);
  } finally {
    delete process.env.SLURM_JOB_ID;
  }
});
