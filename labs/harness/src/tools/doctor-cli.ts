/**
 * `npm run doctor`: collects the probe for doctor.ts on this machine and prints the findings.
 * Exit codes (errors.ts): 0 the course can run (warnings allowed), 1 it cannot, 2 bad input, 3 internal error.
 * Each lab may add its own checks as `labs/<lab>/src/doctor-probe.ts` (native-kernel: the addon and its BLAS rung
 * built, load and multiply right): run in a child process like the other probes, its findings printed with the rest.
 * Every command (compilers, nvidia-smi, the ONNX Runtime probe) runs through probe.ts, all at once: a hung driver or
 * compiler costs at most its time limit plus two grace periods and one line of findings, and nothing it prints
 * reaches the terminal unsanitised.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseNvidiaSmi } from '../machine/environment.ts';
import { cpuAffinityList, readCgroupQuota, readSystemFile } from '../machine/cpus.ts';
import { EXIT_CHECK_FAILED, EXIT_OK, runCli } from '../errors.ts';
import { labNames, ROOT_DIR } from '../lab-registry.ts';
import { describeProbeFailure, oneLine, runProbe } from '../machine/probe.ts';
import { lookUpWebGpuAdapters, recordedWebGpuAdapters } from '../machine/webgpu-adapters.ts';
import { diagnose, doctorFailed, formatFindings, type DoctorProbe, type Finding } from './doctor.ts';
import type { OrtProbe } from './ort-probe.ts';
import { parseCommandLine } from '../cli/command-line.ts';

const ORT_PROBE = fileURLToPath(new URL('./ort-probe.ts', import.meta.url));
/** Packages the harness needs to run a lab and write its reports, and piscina, which the labs' pools use. */
const HARNESS_PACKAGES = ['zod', 'tinybench', 'chart.js', '@napi-rs/canvas', 'cli-progress', 'piscina'];
/** Time limits, in ms: `--version` and nvidia-smi answer within seconds when healthy; loading ONNX Runtime and creating two sessions takes a few. */
const COMMAND_TIMEOUT_MS = 10_000;
const ORT_PROBE_TIMEOUT_MS = 60_000;
const NVIDIA_SMI_QUERY = ['--query-gpu=name,memory.total', '--format=csv,noheader,nounits'];

/** The first line a command prints, or null when it is missing, fails or overruns. */
async function firstLine(command: string, args: string[]): Promise<string | null> {
  const result = await runProbe(command, args, { timeoutMs: COMMAND_TIMEOUT_MS });
  return result.ok ? oneLine(result.stdout.split('\n')[0] ?? '') || null : null;
}

/** The first C++ compiler that answers `--version`. */
async function findCompiler(): Promise<string | null> {
  for (const command of ['c++', 'g++', 'clang++']) {
    const line = await firstLine(command, ['--version']);
    if (line !== null) return line;
  }
  return null;
}

/** The GPUs nvidia-smi lists; null when it is not on PATH; a problem line when it fails, overruns or prints no GPU. */
async function probeGpus(): Promise<Pick<DoctorProbe, 'gpus' | 'gpuProblem'>> {
  const result = await runProbe('nvidia-smi', NVIDIA_SMI_QUERY, { timeoutMs: COMMAND_TIMEOUT_MS });
  if (result.error === 'ENOENT') return { gpus: null, gpuProblem: null };
  if (!result.ok) return { gpus: [], gpuProblem: describeProbeFailure('nvidia-smi', result) };
  const gpus = parseNvidiaSmi(result.stdout);
  const unreadable = gpus.length === 0 && result.stdout.trim() !== '';
  return { gpus, gpuProblem: unreadable ? `nvidia-smi answered with no GPU line that can be read: "${oneLine(result.stdout, 80)}"` : null };
}

/** Runs ort-probe.ts in a child process; its strings are made safe to print (they can quote native error text). */
async function probeOrt(rootDir: string): Promise<OrtProbe> {
  const result = await runProbe(process.execPath, [ORT_PROBE], { timeoutMs: ORT_PROBE_TIMEOUT_MS, cwd: rootDir });
  try {
    if (result.timedOut) throw new Error('timed out');
    const probe = JSON.parse(result.stdout.trim().split('\n').pop() ?? 'null') as OrtProbe;
    const safe = (text: string | null) => (text === null ? null : oneLine(text, 300));
    return {
      loaded: probe.loaded === true,
      error: safe(probe.error ?? null),
      backends: (probe.backends ?? []).map((b) => ({ name: oneLine(String(b.name), 40), bundled: b.bundled === true })),
      sessions: probe.sessions === null || probe.sessions === undefined
        ? null
        : Object.fromEntries(Object.entries(probe.sessions).map(([k, v]) => [oneLine(k, 40), { ok: v.ok === true, error: safe(v.error ?? null) }])),
    };
  } catch {
    const why = result.ok ? 'it printed no result' : describeProbeFailure('it', result);
    return { loaded: false, error: `the probe process failed: ${why}`, backends: [], sessions: null };
  }
}

/** A lab's own probe (labs/<lab>/src/doctor-probe.ts): its findings, made safe to print; a probe that fails is one warning. */
async function probeLab(lab: string, file: string, rootDir: string): Promise<Finding[]> {
  const result = await runProbe(process.execPath, [file], { timeoutMs: ORT_PROBE_TIMEOUT_MS, cwd: rootDir });
  try {
    if (!result.ok) throw new Error(describeProbeFailure('it', result) ?? 'it failed');
    const parsed = JSON.parse(result.stdout.trim().split('\n').pop() ?? 'null') as { findings?: unknown };
    if (!Array.isArray(parsed?.findings)) throw new Error('it printed no findings');
    return parsed.findings.map((f: Partial<Finding>) => ({
      check: oneLine(String(f.check ?? lab), 40),
      level: f.level === 'ok' || f.level === 'warn' ? f.level : 'warn', // a lab's probe never stops the course
      value: oneLine(String(f.value ?? ''), 300),
      advice: oneLine(String(f.advice ?? ''), 600),
    }));
  } catch (error) {
    return [{ check: lab, level: 'warn', value: 'its check did not finish', advice: `${path.relative(rootDir, file)}: ${(error as Error).message}` }];
  }
}

/** Every lab's own probe, all at once. */
async function probeLabs(rootDir: string): Promise<Finding[]> {
  const probes = labNames(rootDir)
    .map((lab) => ({ lab, file: path.join(rootDir, 'labs', lab, 'src', 'doctor-probe.ts') }))
    .filter((p) => existsSync(p.file));
  return (await Promise.all(probes.map((p) => probeLab(p.lab, p.file, rootDir)))).flat();
}

export async function probeMachine(rootDir = ROOT_DIR): Promise<DoctorProbe> {
  const require = createRequire(path.join(rootDir, 'labs', 'harness', 'package.json'));
  const packages: Record<string, string | null> = {};
  for (const name of HARNESS_PACKAGES) {
    try {
      require.resolve(name);
      packages[name] = null;
    } catch (error) {
      packages[name] = (error as NodeJS.ErrnoException).code ?? 'not found';
    }
  }
  const slurm = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => k.startsWith('SLURM_') && v !== undefined)) as Record<string, string>;
  // All at once: the doctor takes as long as the slowest probe, not their sum.
  const [ort, gpus, cxx, labFindings] = await Promise.all([probeOrt(rootDir), probeGpus(), findCompiler(), probeLabs(rootDir)]);
  return {
    nodeVersion: process.version,
    execPath: process.execPath,
    cxx,
    cpuCount: os.cpus().length,
    availableParallelism: os.availableParallelism(),
    cpuAffinity: cpuAffinityList(readSystemFile('/proc/self/status')),
    cgroupCpuQuota: readCgroupQuota(),
    uvThreadpoolSize: process.env.UV_THREADPOOL_SIZE ?? null,
    ...gpus,
    ort,
    webgpuAdapters: recordedWebGpuAdapters(),
    webgpuIgnored: lookUpWebGpuAdapters().ignored,
    packages,
    slurm,
    labFindings,
  };
}

export const HELP = `Usage: npm run doctor [-- --help]

Checks whether this machine can run the course, and what its numbers will mean: Node (the pinned 24), the packages,
a C++ compiler, the native addon and its BLAS rung (built, loaded, multiplying right), the CPUs this process may use,
the affinity mask, a container's CPU quota, UV_THREADPOOL_SIZE, GPUs (nvidia-smi) and the ONNX Runtime execution
providers that really run a session. Each line: ok, WARN or FAIL, then what to do.

Exit codes: 0 the course can run (warnings allowed), 1 it cannot (Node too old, packages missing), 2 bad input.`;

export async function main(argv: string[] = []): Promise<number> {
  const parsed = parseCommandLine(argv, {}, HELP);
  if (parsed === null) return EXIT_OK;
  const findings = diagnose(await probeMachine());
  process.stdout.write(`${formatFindings(findings)}\n`);
  return doctorFailed(findings) ? EXIT_CHECK_FAILED : EXIT_OK;
}

if (import.meta.main) runCli(() => main(process.argv.slice(2)));
