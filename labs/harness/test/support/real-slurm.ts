/**
 * A real Slurm for test/slurm-real.test.ts: is one reachable, submit through sbatch, read a job's state, and find
 * processes a job left behind. CI starts a one-node cluster with labs/harness/slurm/ci/start-slurm.sh (.ci/run).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The first line of the slurm.conf that labs/harness/slurm/ci/start-slurm.sh writes (and stop-slurm.sh removes). */
export const CI_CONF_MARKER = '# written by labs/harness/slurm/ci/start-slurm.sh';

/**
 * Must a Slurm answer here? Yes where start-slurm.sh has written this machine's slurm.conf (CI), or with
 * COURSE_REQUIRE_SLURM=1: then an unreachable Slurm is a failure, not a skip.
 */
export function realSlurmRequired(env: NodeJS.ProcessEnv = process.env, conf = '/etc/slurm/slurm.conf'): boolean {
  if (env.COURSE_REQUIRE_SLURM === '1') return true;
  try {
    return readFileSync(conf, 'utf8').startsWith(CI_CONF_MARKER);
  } catch {
    return false;
  }
}

/** The CPUs per task the tests ask for: the lab in the job must plan for exactly this many. */
export const JOB_CPUS = 2;

/**
 * Why the real-Slurm tests cannot run here, in one line, or null when they can: Slurm answers and has a node with
 * JOB_CPUS CPUs that is up.
 */
export function realSlurmUnavailable(env: NodeJS.ProcessEnv = process.env): string | null {
  const version = spawnSync('sinfo', ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (version.error) {
    return `no Slurm here (sinfo is not on PATH); as root, labs/harness/slurm/ci/start-slurm.sh installs and starts a one-node Slurm (.ci/run does)`;
  }
  const nodes = spawnSync('sinfo', ['-h', '-N', '-o', '%T %c'], { encoding: 'utf8', timeout: 10_000 });
  if (nodes.status !== 0) {
    const why = (nodes.stderr || nodes.error?.message || '').trim().split('\n')[0]?.replace(/^sinfo: /, '');
    return `Slurm does not answer (sinfo: ${why || `exit ${nodes.status}`}); are slurmctld and slurmd running? (labs/harness/slurm/ci/start-slurm.sh as root)`;
  }
  const usable = nodes.stdout.split('\n').some((line) => {
    const [state, cpus] = line.trim().split(/\s+/);
    return state !== undefined && /^(idle|mixed|allocated)/.test(state) && Number(cpus) >= JOB_CPUS;
  });
  if (!usable) return `Slurm answers but has no node that is up with ${JOB_CPUS} CPUs (sinfo: ${nodes.stdout.trim().replace(/\n/g, '; ')})`;
  return null;
}

/** The Slurm version, e.g. "slurm-wlm 22.05.8". */
export function slurmVersion(): string {
  return spawnSync('sinfo', ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/** The environment the jobs get (sbatch exports ours): nothing that would force P or look like a test runner. */
export function jobEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.COURSE_CPUS;
  delete env.NODE_TEST_CONTEXT;
  for (const key of Object.keys(env)) if (key.startsWith('SLURM_') || key.startsWith('SBATCH_') || key.startsWith('SRUN_')) delete env[key];
  return env;
}

/** `sbatch --parsable <args>`: the job id. */
export function submit(args: string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const result = spawnSync('sbatch', ['--parsable', ...args], { cwd, env, encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) throw new Error(`sbatch ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return result.stdout.trim().split(';')[0]!;
}

export interface JobRecord {
  jobId: string;
  arrayTaskId: string | null;
  state: string;
  exitCode: string;
  runTime: string;
}

/** Every record `scontrol show job <id>` has for a job (one per array task), while slurmctld keeps it (MinJobAge). */
export function jobRecords(id: string): JobRecord[] {
  const text = spawnSync('scontrol', ['show', 'job', '--oneliner', id], { encoding: 'utf8', timeout: 10_000 }).stdout;
  return text
    .split('\n')
    .filter((line) => line.includes('JobId='))
    .map((line) => {
      const field = (name: string) => new RegExp(`(?:^|\\s)${name}=(\\S+)`).exec(line)?.[1] ?? '';
      return { jobId: field('JobId'), arrayTaskId: field('ArrayTaskId') || null, state: field('JobState'), exitCode: field('ExitCode'), runTime: field('RunTime') };
    })
    .sort((a, b) => Number(a.arrayTaskId ?? 0) - Number(b.arrayTaskId ?? 0));
}

/** One line per record for the test log: "job 4: CANCELLED, exit 143:0, ran 00:00:12". */
export function describeJob(id: string): string {
  return jobRecords(id)
    .map((r) => `job ${r.jobId}${r.arrayTaskId ? ` (array task ${r.arrayTaskId})` : ''}: ${r.state}, exit ${r.exitCode}, ran ${r.runTime}`)
    .join('; ');
}

/** Waits until squeue no longer lists the job (at most `ms`); true when it has gone. */
export async function waitUntilGone(id: string, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const q = spawnSync('squeue', ['-h', '-j', id, '-o', '%i'], { encoding: 'utf8', timeout: 10_000 });
    if (q.status === 0 && q.stdout.trim() === '') return true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

/**
 * Submits, waits (at most `ms`) until the job (every task of an array) has ended, and returns its exit status: the
 * highest of its records' (ExitCode "1:0" -> 1), or null when it did not end in time. Polled every half second:
 * `sbatch --wait` polls with growing pauses and added most of a minute per job here.
 */
export async function runJob(args: string[], cwd: string, env: NodeJS.ProcessEnv, ms: number): Promise<{ id: string; status: number | null }> {
  const id = submit(args, cwd, env);
  if (!(await waitUntilGone(id, ms))) return { id, status: null };
  const codes = jobRecords(id).map((r) => Number(r.exitCode.split(':')[0]));
  return { id, status: codes.length > 0 ? Math.max(...codes) : null };
}

/** Waits until `read()` returns text that matches (at most `ms`); the last text read either way. */
export async function waitForText(read: () => string, pattern: RegExp, ms: number): Promise<string> {
  const until = Date.now() + ms;
  let text = read();
  while (!pattern.test(text) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    text = read();
  }
  return text;
}

/**
 * Processes still running with SLURM_JOB_ID=<id> (or SLURM_ARRAY_JOB_ID=<id>, an array's tasks) in their environment:
 * what a job left behind (none expected).
 */
export function processesOfJob(id: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1');
      const vars = env.split('\0');
      if (vars.includes(`SLURM_JOB_ID=${id}`) || vars.includes(`SLURM_ARRAY_JOB_ID=${id}`)) found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ').trim()}`);
    } catch {
      // gone meanwhile, or another user's process: not this job's
    }
  }
  return found;
}
