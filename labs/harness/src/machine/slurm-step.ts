/**
 * Does this Slurm step have the CPUs its job asked for? Since Slurm 22.05, `srun` inside a batch job no longer
 * inherits `--cpus-per-task` from `sbatch`: `srun --cpu-bind=cores` alone binds the lab to one CPU of a job that
 * holds many (tried on Slurm 22.05.8: nproc 1 in a `--cpus-per-task=2` job). Every sweep then plans for P = 1 while
 * the job log says 2, so the run is measured on the wrong machine. The templates pass the option; this notices when
 * a script does not.
 */

/**
 * The warning for a Slurm step that got fewer CPUs than the job's `--cpus-per-task`, or null (not under Slurm, no
 * --cpus-per-task, or the step has them all). `available` is the CPUs this process may use (cpus.ts: the smaller of
 * the affinity mask and the cgroup quota), whatever P was forced to.
 */
export function slurmStepWarning(available: number, env: NodeJS.ProcessEnv): string | null {
  if (!env.SLURM_JOB_ID) return null;
  const text = env.SLURM_CPUS_PER_TASK ?? '';
  if (!/^\d+$/.test(text)) return null;
  const perTask = Number(text);
  if (perTask < 1 || available >= perTask) return null;
  return (
    `Slurm job ${env.SLURM_JOB_ID}: the step got ${available} of the job's ${perTask} CPUs: srun needs --cpus-per-task ` +
    `(srun --cpus-per-task="$SLURM_CPUS_PER_TASK" ..., which holds on every Slurm; Slurm 22.05 to 23.02 do not pass it on ` +
    `from sbatch, and there export SRUN_CPUS_PER_TASK="$SLURM_CPUS_PER_TASK" does too: labs/harness/slurm/lab.sbatch explains). This run measured ${available} CPU${available === 1 ? '' : 's'}.`
  );
}
