/**
 * The operating system's walls around the runner (issue 42): on Linux, where bubblewrap can start, the runner and
 * so every process learner code starts (its workers, its native addons, any child, Node or not) run inside
 * `bwrap`, which gives them
 * - no network (a namespace of their own with only a loopback: the event-loop lab's servers still listen on it);
 * - a PID namespace of their own: they see only each other in /proc (no /proc/<ppid>/environ of the harness, no
 *   /proc/self/root onto the whole disk), and when the runner ends, everything it started ends with it (a double-
 *   forked `setsid sleep` included: the kernel ends a PID namespace whose first process is gone);
 * - a read-only view of what the run needs (the system's programs and libraries, the repository folders the
 *   permission model grants, the pinned node) and nothing else of the disk (no /home, /root, /etc/shadow), with
 *   the run's temp folder and the lab's declared folders writable;
 * - a session of their own (no terminal to inject input into), no capabilities, and limits set by `prlimit` inside:
 *   CPU seconds, processes (threads count), the size of a file written; memory is watched from outside
 *   (supervisor.ts: RLIMIT_AS and RLIMIT_DATA count V8's reservations, about 0.5 GiB per isolate, so neither bounds
 *   what a run touches); output is capped where the supervisor passes it through.
 * Why bubblewrap: it needs no daemon and no setuid helper of ours, is one Debian/Ubuntu/Fedora package, and works as
 * root and, where unprivileged user namespaces are allowed (the default on current Debian, Ubuntu and Fedora), as any
 * user. Where it cannot start (macOS, HPC nodes with user namespaces off), practice runs go on under the permission
 * model alone and `--grade` refuses (supervisor.ts), unless the instructor passes --trusted-code.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { formatGiB } from '@parallel-course/core';
import type { SandboxGrants, SandboxNeeds } from './sandbox.ts';

/** Environment variable: the bwrap to use, or `none` to run as if bubblewrap were not installed (tests, a check). */
export const BWRAP_ENV = 'COURSE_BWRAP';

/** The limits a sandboxed run gets (os-sandbox.ts and supervisor.ts enforce them). */
export interface SandboxLimits {
  /** Anonymous resident memory of all the run's processes together, in bytes (polled every MEMORY_POLL_MS). */
  memoryBytes: number;
  /** CPU seconds of one process (RLIMIT_CPU: SIGXCPU, then SIGKILL 10 s later). */
  cpuSeconds: number;
  /** Processes and threads of the run (RLIMIT_NPROC, counted in the sandbox's own user namespace). */
  processes: number;
  /** The largest file a run's process may write, in bytes (RLIMIT_FSIZE). */
  fileBytes: number;
  /** Bytes of the runner's stdout and of its stderr passed through to the terminal; the rest is cut with a note. */
  outputBytes: number;
}

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/**
 * The limits for a run planned for P CPUs: 4 GiB of anonymous memory plus 256 MiB per CPU (the labs set up a pool or
 * a device process per worker count of the sweep at once, about 2P processes of 30-150 MiB each), or what the lab
 * says it needs when that is more (LabDefinition.memoryBytes), 3,600 +
 * 600 x P CPU seconds per process (a full run is planned for 5 min of P busy CPUs), 1,024 + 64 x P processes and
 * threads, files up to 4 GiB, 1 MiB of output per stream. The wall time of every call is bounded apart (supervisor.ts).
 */
export function sandboxLimits(p: number, labMemoryBytes: number | null): SandboxLimits {
  const cpus = Math.max(1, Math.floor(p));
  return {
    memoryBytes: Math.max(4 * GIB + cpus * 256 * MIB, labMemoryBytes ?? 0),
    cpuSeconds: 3600 + 600 * cpus,
    processes: 1024 + 64 * cpus,
    fileBytes: 4 * GIB,
    outputBytes: MIB,
  };
}

export type OsSandboxProbe = { available: true; bwrap: string; prlimit: string } | { available: false; reason: string };

/**
 * How the runner is walled in: bubblewrap (os-sandbox.ts) or the permission model alone, and why. The limits are each
 * runner's own (each has its own sandbox, and the supervisor polls each one's memory apart): a graded run has `runners`
 * = 1 + 2F, the learner's and F forks each of its graded cases' and the solution's (supervisor.ts, run-cases.ts
 * GRADE_FORKS), so together they may hold that many times the memory limit, and the note says so.
 */
export function osSandboxNote(probe: OsSandboxProbe, limits: SandboxLimits, runners = 1): string {
  const forks = Math.floor((runners - 1) / 2);
  const whose = forks > 1 ? `the learner's, and ${forks} forks each of its graded cases' and the solution's` : "the learner's, its graded cases' and the solution's";
  const together = runners > 1 ? ` These limits are each runner's: this graded run has ${runners} (${whose}), so at most ${formatGiB(runners * limits.memoryBytes)} of memory together.` : '';
  return probe.available
    ? `Sandbox: bubblewrap (no network, its own PID namespace, a read-only view of the course, a private temp folder; at most ${formatGiB(limits.memoryBytes)} of memory, ` +
        `${limits.cpuSeconds} CPU s per process, ${limits.processes} processes and threads, ${limits.outputBytes / 2 ** 20} MiB of output per stream) and Node's permission model.${together}`
    : `Sandbox: Node's permission model only, no OS sandbox (${probe.reason}); at most ${formatGiB(limits.memoryBytes)} of memory. A practice run; a grade needs the sandbox.${together}`;
}

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin']) if (existsSync(path.join(dir, name))) return path.join(dir, name);
  return null;
}

const probes = new Map<string, OsSandboxProbe>();

/** Whether bubblewrap can sandbox a run here: a `bwrap ... prlimit ... true` started once per process (about 10 ms). */
export function probeOsSandbox(): OsSandboxProbe {
  const wanted = process.env[BWRAP_ENV] ?? '';
  const cached = probes.get(wanted);
  if (cached) return cached;
  const probe = runProbe(wanted);
  probes.set(wanted, probe);
  return probe;
}

function runProbe(wanted: string): OsSandboxProbe {
  if (process.platform !== 'linux') return { available: false, reason: `bubblewrap is Linux only (this is ${process.platform})` };
  if (wanted === 'none') return { available: false, reason: `${BWRAP_ENV}=none` };
  const bwrap = wanted || onPath('bwrap');
  if (!bwrap || !existsSync(bwrap)) return { available: false, reason: `bubblewrap is not installed (${wanted ? `${BWRAP_ENV}=${wanted} does not exist` : 'no bwrap on PATH'}; Debian/Ubuntu: apt install bubblewrap)` };
  const prlimit = onPath('prlimit');
  if (!prlimit) return { available: false, reason: 'prlimit (util-linux) is not installed' };
  const result = spawnSync(bwrap, [...systemBinds(), '--proc', '/proc', '--dev', '/dev', '--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--', prlimit, '--nproc=64', '--', 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (result.status === 0) return { available: true, bwrap, prlimit };
  const why = (result.stderr ?? '').trim().split('\n')[0] || (result.error ? result.error.message : `exit code ${result.status}`);
  return { available: false, reason: `bwrap could not start a sandbox here (${why}; unprivileged user namespaces may be off: sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone, or Ubuntu's kernel.apparmor_restrict_unprivileged_userns)` };
}

/** The system's programs and libraries, read-only; merged-/usr links (/lib -> usr/lib) kept as links. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

function systemBinds(): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    if (lstatSync(dir).isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  // The dynamic loader's cache, Debian's alternatives (libblas.so.3 -> OpenBLAS), the user and group names (no
  // passwords: those are in /etc/shadow, which is not there).
  for (const file of ['/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/alternatives', '/etc/passwd', '/etc/group', '/etc/nsswitch.conf', '/etc/localtime']) {
    args.push('--ro-bind-try', file, file);
  }
  return args;
}

export interface BwrapOptions {
  probe: Extract<OsSandboxProbe, { available: true }>;
  grants: SandboxGrants;
  needs: SandboxNeeds;
  limits: SandboxLimits;
  /** The runner's working directory (the lab root). */
  cwd: string;
}

/** The command line that runs `command` (the node binary and its arguments) in the sandbox. */
export function bwrapCommand(options: BwrapOptions, command: string[]): { file: string; args: string[] } {
  const { probe, grants, needs, limits } = options;
  const args = [...systemBinds(), '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp'];
  // A GPU lab's devices (no other device nodes are there: --dev makes a minimal /dev).
  if (needs.addons) {
    args.push('--dev-bind-try', '/dev/dri', '/dev/dri');
    if (existsSync('/dev')) for (const name of readdirSync('/dev')) if (name.startsWith('nvidia')) args.push('--dev-bind-try', `/dev/${name}`, `/dev/${name}`);
  }
  const node = realpathSync(process.execPath);
  // /proc is the sandbox's own; the system folders are there already (a lab's `reads` may name /usr/lib).
  const inSystem = (p: string) => p === '/proc' || p.startsWith('/proc/') || SYSTEM_DIRS.some((d) => p === d || p.startsWith(`${d}/`));
  const reads = [...new Set([...grants.reads, node])].filter((p) => !inSystem(p));
  // Parents before children, so a narrower bind lands on top of a wider one; the writable ones last.
  const depth = (p: string) => p.split('/').length;
  // A link (a test root's node_modules, npm's workspace links) stays a link, so `..` past it resolves as outside;
  // the grants list its target too, which is bound.
  const isLink = (p: string) => {
    try {
      return lstatSync(p).isSymbolicLink();
    } catch {
      return false;
    }
  };
  const sorted = reads.sort((a, b) => depth(a) - depth(b));
  for (const p of sorted) if (!isLink(p)) args.push('--ro-bind-try', p, p);
  for (const p of [...grants.writes].sort((a, b) => depth(a) - depth(b))) if (!isLink(p)) args.push('--bind', p, p);
  for (const p of sorted) if (isLink(p)) args.push('--symlink', readlinkSync(p), p);
  args.push('--chdir', options.cwd, '--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--');
  args.push(
    probe.prlimit,
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 10}`,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileBytes}`,
    '--core=0',
    '--',
    ...command,
  );
  return { file: probe.bwrap, args };
}

/**
 * The environment a sandboxed runner gets: the variables labs and Node read (locale, time zone, the thread pool,
 * BLAS and GPU selection (CUDA, ROCm, Vulkan and its XDG search paths), the course's own COURSE_*, Slurm's), not the rest of the harness's (tokens, keys).
 */
export function sandboxEnv(env: NodeJS.ProcessEnv, tmpDir: string): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = {};
  const keep = /^(PATH|LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM|NO_COLOR|FORCE_COLOR|UV_THREADPOOL_SIZE|OPENBLAS_[A-Z_]+|OMP_[A-Z_]+|GOTO_[A-Z_]+|CUDA_[A-Z_]+|ORT_[A-Z_]+|VK_[A-Z_]+|XDG_[A-Z_]+|MESA_[A-Z_]+|HIP_[A-Z_]+|ROCR_[A-Z_]+|NVIDIA_[A-Z_]+|INIT_CWD|COURSE_[A-Z_0-9]+|SLURM_[A-Z_0-9]+|NODE_V8_COVERAGE|NATIVE_KERNEL_[A-Z_]+|GPU_BATCHING_[A-Z_]+)$/;
  for (const [k, v] of Object.entries(env)) if (keep.test(k) && v !== undefined) kept[k] = v;
  return { ...kept, HOME: tmpDir, TMPDIR: tmpDir };
}
