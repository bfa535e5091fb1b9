/**
 * A run's first stage, its inputs: the lab's definition, `--out` checked (can the results be written there? nothing is
 * made: the write stage makes the run folder), the CPUs, the machine as it was, and what a grade will be a ratio to.
 * Everything later stages read about the run starts here (run-lab.ts lists the stages).
 * In: RunLabOptions. Out: RunStart, or a UsageError / LabLoadError before anything runs.
 */
import path from 'node:path';
import type { CorrectnessEntry, Environment, Results } from '@parallel-course/core';
import { cpuBudget, describeBudget, type CpuBudget } from '../machine/cpus.ts';
import { collectEnvironment } from '../machine/environment.ts';
import type { Impl, LabDefinition, SamplingPlan } from '../lab-definition.ts';
import { loadLab, ROOT_DIR } from '../lab-registry.ts';
import type { SandboxLimits } from '../supervise/os-sandbox.ts';
import { createProgress, type Progress } from './progress.ts';
import { fingerprintSolution } from '../supervise/solution-fingerprint.ts';
import { checkOutDir } from '../write/out-dir-check.ts';
import { slurmStepWarning } from '../machine/slurm-step.ts';
import { currentTopology, type Topology } from '../machine/topology.ts';

/** The seed of the inputs and of the bootstrap when the run names none (--seed). */
export const DEFAULT_SEED = 20261202;

export interface RunLabOptions {
  lab: string;
  impl: Impl;
  quick: boolean;
  /** Parent folder of run folders; the run goes to `<outDir>/<lab>/<timestamp>/`. Default `<root>/results`. */
  outDir?: string;
  /** Overrides the lab's sampling plan (tests use a tiny one). */
  sampling?: SamplingPlan;
  seed?: number;
  /** No progress and no summary on the terminal (tests). */
  silent?: boolean;
  /** The command line to record in the results, for "the exact commands to reproduce". */
  command?: string;
  rootDir?: string;
  /** Multiplies every time limit of a call into lab code (tests shorten the limits; default 1). */
  limitScale?: number;
  /** Plan the sweep for this many CPUs (--cpus): see cpus.ts. Default: COURSE_CPUS, else the CPUs the job may use. */
  cpus?: number;
  /** `--grade`: measure the lab's graded cases of the solution beside these, and grade them (grade.ts). */
  grade?: boolean;
  /** A graded run's process pairs (run-cases.ts GRADE_FORKS, the default; tests pass fewer to stay fast). */
  forks?: number;
  /** `--trusted-code`: grade even where no OS sandbox can start (supervisor.ts). */
  trustedCode?: boolean;
  /** Overrides the sandbox's limits (os-sandbox.ts; tests use small ones). */
  limits?: Partial<SandboxLimits>;
}

export interface RunLabOutcome {
  exitCode: number;
  results: Results | null;
  runDir: string | null;
  correctness: CorrectnessEntry[];
  /** What the run printed as its summary (also written to stdout unless silent). */
  summary: string;
}

/** The run's inputs, read once: every later stage takes them from here and none reads the options again. */
export interface RunStart {
  options: RunLabOptions;
  rootDir: string;
  outRoot: string;
  definition: LabDefinition<unknown, unknown>;
  /** Names the run folder the write stage makes (`<outRoot>/<lab>/<startedAt>`). */
  startedAt: Date;
  progress: Progress;
  print: (text: string) => void;
  seed: number;
  command: string;
  cpus: CpuBudget;
  /** describeBudget(cpus): printed first, and the results' first note. */
  budget: string;
  topology: Topology;
  environment: Environment;
  solutionFingerprint: ReturnType<typeof fingerprintSolution> | null;
  /** An srun that did not pass --cpus-per-task (Slurm 22.05+) leaves the lab one CPU of a many-CPU job. */
  stepWarning: string | null;
}

export async function openRun(options: RunLabOptions): Promise<RunStart> {
  const rootDir = options.rootDir ?? ROOT_DIR;
  const outRoot = path.resolve(options.outDir ?? path.join(rootDir, 'results'));
  // The lab's definition, loaded once in this process (lab code only: the learner's modules are imported in the
  // runner's set-up, never here): the plan and the lab's own analysis use it. An unknown or broken lab fails here.
  const definition = await loadLab(options.lab, rootDir);
  // Before anything is measured: can the results be written under --out? A probe that leaves nothing behind.
  checkOutDir(outRoot, options.lab);
  const startedAt = new Date();
  const silent = options.silent === true;
  const print = (text: string) => {
    if (!silent) process.stdout.write(`${text}\n`);
  };
  const cpus = cpuBudget(options.cpus);
  const budget = describeBudget(cpus);
  const start: RunStart = {
    options, rootDir, outRoot, definition, startedAt, print, cpus, budget,
    progress: createProgress(!silent),
    seed: options.seed ?? DEFAULT_SEED,
    command: options.command ?? `npm run lab -- ${options.lab} --impl ${options.impl}${options.quick ? ' --quick' : ''}`,
    topology: currentTopology(undefined, cpus.affinity),
    // The machine as it was when the run started (its load average then says whether others were using it).
    environment: await collectEnvironment(rootDir),
    // Before any learner code runs: what the grade will be a ratio to (validate and class compare it with the course's).
    solutionFingerprint: options.grade ? fingerprintSolution(rootDir, options.lab) : null,
    stepWarning: slurmStepWarning(cpus.available, process.env) || null,
  };
  print(`${options.lab}: checking the ${options.impl} (${options.quick ? 'quick' : 'full'} run; ${budget})`);
  if (start.stepWarning) print(`warning: ${start.stepWarning}`);
  return start;
}
