/** The warning for a Slurm step with fewer CPUs than the job's --cpus-per-task (srun without --cpus-per-task on Slurm 22.05 to 23.02). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slurmStepWarning } from '../src/machine/slurm-step.ts';

test('a step with fewer CPUs than the job asked for is named, with the fix', () => {
  const warning = slurmStepWarning(1, { SLURM_JOB_ID: '2', SLURM_CPUS_PER_TASK: '2' });
  assert.match(warning ?? '', /^Slurm job 2: the step got 1 of the job's 2 CPUs: srun needs --cpus-per-task /);
  assert.match(warning ?? '', /SRUN_CPUS_PER_TASK/);
  assert.match(warning ?? '', /This run measured 1 CPU\.$/);
  assert.match(slurmStepWarning(8, { SLURM_JOB_ID: '9', SLURM_CPUS_PER_TASK: '64' }) ?? '', /got 8 of the job's 64 CPUs.*measured 8 CPUs\.$/);
});

test('no warning when the step has the job\'s CPUs, or outside Slurm, or without --cpus-per-task', () => {
  assert.equal(slurmStepWarning(2, { SLURM_JOB_ID: '2', SLURM_CPUS_PER_TASK: '2' }), null);
  assert.equal(slurmStepWarning(4, { SLURM_JOB_ID: '2', SLURM_CPUS_PER_TASK: '2' }), null, 'more CPUs than asked (a whole node)');
  assert.equal(slurmStepWarning(1, { SLURM_CPUS_PER_TASK: '2' }), null, 'not a Slurm job');
  assert.equal(slurmStepWarning(1, { SLURM_JOB_ID: '2' }), null, 'no --cpus-per-task');
  assert.equal(slurmStepWarning(1, { SLURM_JOB_ID: '2', SLURM_CPUS_PER_TASK: 'x' }), null, 'not a number');
  assert.equal(slurmStepWarning(1, { SLURM_JOB_ID: '2', SLURM_CPUS_PER_TASK: '' }), null);
});
