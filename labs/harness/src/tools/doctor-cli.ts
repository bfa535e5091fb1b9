/**
 * `npm run doctor`: collects the probe for doctor.ts on this machine and prints the findings.
 * Exit codes (errors.ts): 0 the course can run (warnings allowed), 1 it cannot, 3 internal error.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCgroupQuota, parseCpuAffinity, parseNvidiaSmi } from '../environment.ts';
import { EXIT_CHECK_FAILED, EXIT_OK, runCli } from '../errors.ts';
import { ROOT_DIR } from '../lab-registry.ts';
import { diagnose, doctorFailed, formatFindings, type DoctorProbe } from './doctor.ts';
import type { OrtProbe } from './ort-probe.ts';

const ORT_PROBE = fileURLToPath(new URL('./ort-probe.ts', import.meta.url));
/** Packages the harness needs to run a lab and write its reports, and piscina, which the labs' pools use. */
const HARNESS_PACKAGES = ['zod', 'tinybench', 'chart.js', '@napi-rs/canvas', 'cli-progress', 'piscina'];

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function firstLine(command: string, args: string[]): string | null {
  try {
    return execFileSync(command, args, { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')[0]?.trim() || null;
  } catch {
    return null;
  }
}

export function probeMachine(rootDir = ROOT_DIR): DoctorProbe {
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
  let ort: OrtProbe | null = null;
  try {
    const output = execFileSync(process.execPath, [ORT_PROBE], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'], cwd: rootDir });
    ort = JSON.parse(output.trim().split('\n').pop() ?? 'null') as OrtProbe;
  } catch (error) {
    ort = { loaded: false, error: `the probe process failed: ${(error as Error).message.split('\n')[0]}`, backends: [], sessions: null };
  }
  const slurm = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => k.startsWith('SLURM_') && v !== undefined)) as Record<string, string>;
  // null: no nvidia-smi on PATH; '' : it is there but failed (no driver, no device).
  let smi: string | null;
  try {
    smi = execFileSync('nvidia-smi', ['--query-gpu=name,memory.total', '--format=csv,noheader,nounits'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (error) {
    smi = (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : '';
  }
  return {
    nodeVersion: process.version,
    execPath: process.execPath,
    cxx: firstLine('c++', ['--version']) ?? firstLine('g++', ['--version']) ?? firstLine('clang++', ['--version']),
    cpuCount: os.cpus().length,
    availableParallelism: os.availableParallelism(),
    cpuAffinity: parseCpuAffinity(readText('/proc/self/status')),
    cgroupCpuQuota: parseCgroupQuota(readText('/sys/fs/cgroup/cpu.max'), readText('/sys/fs/cgroup/cpu/cpu.cfs_quota_us'), readText('/sys/fs/cgroup/cpu/cpu.cfs_period_us')),
    uvThreadpoolSize: process.env.UV_THREADPOOL_SIZE ?? null,
    gpus: smi === null ? null : parseNvidiaSmi(smi),
    ort,
    packages,
    slurm,
  };
}

export async function main(): Promise<number> {
  const findings = diagnose(probeMachine());
  process.stdout.write(`${formatFindings(findings)}\n`);
  return doctorFailed(findings) ? EXIT_CHECK_FAILED : EXIT_OK;
}

if (import.meta.main) runCli(() => main());
