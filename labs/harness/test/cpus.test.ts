/** P, the CPUs a job may use: the affinity mask and the cgroup quota read on known texts, and forcing. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cgroupQuotaFiles, countCpuList, cpuBudget, describeBudget, parseForcedCpus, quotaFromCfs, quotaFromCpuMax, readCgroupQuota } from '../src/machine/cpus.ts';

test('CPU lists count every CPU in every range', () => {
  assert.equal(countCpuList('0-3,8,10-11'), 7);
  assert.equal(countCpuList('5'), 1);
  assert.equal(countCpuList('0-127'), 128);
  assert.equal(countCpuList('3-1'), null);
  assert.equal(countCpuList('a'), null);
});

test('quotas: cgroup v2 cpu.max and v1 cfs files, "max" and -1 meaning none', () => {
  assert.equal(quotaFromCpuMax('50000 100000\n'), 0.5);
  assert.equal(quotaFromCpuMax('400000 100000'), 4);
  assert.equal(quotaFromCpuMax('max 100000'), null);
  assert.equal(quotaFromCfs('150000\n', '100000\n'), 1.5);
  assert.equal(quotaFromCfs('-1', '100000'), null);
});

test('the quota files of a process are its cgroup and every ancestor, v2 and v1', () => {
  assert.deepEqual(cgroupQuotaFiles('0::/slurm/job_42/step_0\n').v2, [
    '/sys/fs/cgroup/slurm/job_42/step_0', '/sys/fs/cgroup/slurm/job_42', '/sys/fs/cgroup/slurm', '/sys/fs/cgroup/',
  ]);
  const v1 = cgroupQuotaFiles('4:cpu,cpuacct:/docker/abc\n3:memory:/docker/abc\n').v1;
  assert.ok(v1.includes('/sys/fs/cgroup/cpu,cpuacct/docker/abc') && v1.includes('/sys/fs/cgroup/cpu/docker'));
  assert.deepEqual(cgroupQuotaFiles('3:memory:/x\n'), { v2: [], v1: [] });
});

/** A fake /proc and /sys: a process in a v1 cgroup with a 1.5-CPU quota, a parent with 3, and 4 CPUs in its mask. */
const files: Record<string, string> = {
  '/proc/self/cgroup': '1:cpu:/job/step\n',
  '/proc/self/status': 'Name:\tnode\nCpus_allowed_list:\t0-3\n',
  '/sys/fs/cgroup/cpu/job/step/cpu.cfs_quota_us': '150000',
  '/sys/fs/cgroup/cpu/job/step/cpu.cfs_period_us': '100000',
  '/sys/fs/cgroup/cpu/job/cpu.cfs_quota_us': '300000',
  '/sys/fs/cgroup/cpu/job/cpu.cfs_period_us': '100000',
};
const fake = (file: string) => files[file] ?? null;

test('the smallest quota on the way to the root applies, and P is rounded down from it', () => {
  assert.equal(readCgroupQuota(fake), 1.5);
  const b = cpuBudget(undefined, {}, fake);
  assert.deepEqual({ p: b.p, limit: b.limit, available: b.available, affinity: b.affinity, forced: b.forced }, { p: 1, limit: 'cgroup-quota', available: 1, affinity: 4, forced: false });
  assert.match(describeBudget(b), /^P = 1: the cgroup quota of 1\.50 CPUs/);
});

test('without a quota the affinity mask sets P', () => {
  const noQuota = (file: string) => (file.includes('cfs_quota') ? '-1' : fake(file));
  const b = cpuBudget(undefined, {}, noQuota);
  assert.deepEqual([b.p, b.limit, b.quota], [4, 'affinity', null]);
});

test('--cpus and COURSE_CPUS force P; the CPUs really available stay what oversubscription is judged by', () => {
  const forced = cpuBudget(64, {}, fake);
  assert.deepEqual([forced.p, forced.available, forced.forced], [64, 1, true]);
  assert.match(describeBudget(forced), /^P = 64, forced \(the job may use 1: .*\); cases with more than 1 workers are oversubscribed$/);
  assert.equal(cpuBudget(undefined, { COURSE_CPUS: '8' }, fake).p, 8);
  assert.equal(cpuBudget(2, { COURSE_CPUS: '8' }, fake).p, 2, '--cpus wins over the environment');
  assert.throws(() => cpuBudget(undefined, { COURSE_CPUS: 'many' }, fake), /^RangeError: COURSE_CPUS must be a whole number of CPUs from 1 to 1024, not 'many'$/);
  assert.throws(() => parseForcedCpus('0', '--cpus'), /--cpus must be a whole number of CPUs from 1 to 1024, not '0'/);
});
