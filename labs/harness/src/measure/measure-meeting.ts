/**
 * Where the runner processes of one attempt meet for the measure stage: a practice run has one (the learner's), a
 * `--grade` run 1 + 2F (the learner's; and F forks each (run-cases.ts GRADE_FORKS) of its graded cases', mirroring the
 * solution's, and of the solution's, which never loads a learner module: run-cases.ts runnerSideOf). Each arrives
 * when its check is over with the cases that passed and its channel; once all have arrived (or left without
 * measuring), the judge measures every case in one interleaved sequence (judge-sampler.ts), each sample asked of the
 * process that has the case (a graded pair's round r of fork r mod F on both sides), so the solution's samples and
 * the learner's are taken round by round, side by side.
 * Input: each party's cases and channel. Output: the run's samples (`judged`), failed entries, overhead and notes,
 * written into the run; each party's `arrive` then resolves and the party ends its runner.
 */
import { readCpuSnapshot, roundLoad, type CpuSnapshot } from './competing-load.ts';
import { caseKey, caseLabel, gradedCaseParams, isSolutionCopy, type CorrectnessEntry } from '@parallel-course/core';
import type { JudgeChannel } from './judge-channel.ts';
import type { JudgedCase } from './judged-case.ts';
import { judgeSamples } from './judge-sampler.ts';
import { sampleLimitMs } from './sample-limits.ts';
import { labOutputJudge, type OutputJudge } from './judge-outputs.ts';
import type { CaseInfo, RunnerMessage, RunnerSide } from './run-protocol.ts';
import { gradedKeys, runnerSideOf } from './run-cases.ts';
import { RunnerFreezer } from './runner-freeze.ts';
import type { SupervisedRun, SuperviseOptions } from './supervised-run.ts';

/** One runner process at the meeting. */
export interface Party {
  /** Which runner (run-protocol.ts RunnerSide): the round trip recorded as the run's overhead is the learner's. */
  name: RunnerSide;
  /** Which of its side's processes (a graded run's forks, 0 .. F - 1); 0 for the learner's. */
  fork: number;
  channel: JudgeChannel;
  pid: number | undefined;
  cases: Extract<RunnerMessage, { type: 'measuring' }>['cases'];
  /**
   * The cases this runner's own check passed (its CheckVerdicts, attempt-messages.ts): the run's entries are one map
   * for every fork, so without it a fork that sent no verdict of a case (learner code can write frames to its channel)
   * would be measured on another fork's pass. Absent: the run's entry alone decides (tests that meet without checks).
   */
  passed?: ReadonlySet<string>;
}

export class MeasureMeeting {
  /** Samples of each case the judge measured, by key, until its 'measured' arrives. */
  readonly judged = new Map<string, { samplesMs: number[]; sampleRounds: number[]; callsPerSample: number; sampleProcesses?: number[] }>();
  /** Called once every party's check is over, before the judge makes its inputs (the check's may be dropped then). */
  beforeMeasure: (() => void) | null = null;
  #expected: number;
  #parties: Party[] = [];
  #left = 0;
  #waiting: (() => void)[] = [];
  #run: SupervisedRun;
  #entries: Map<string, CorrectnessEntry>;
  #options: SuperviseOptions;
  #failed: (key: string, reason: string, stage: 'warm-up' | 'measure', sample: number | null) => void;

  constructor(
    expected: number,
    run: SupervisedRun,
    entries: Map<string, CorrectnessEntry>,
    options: SuperviseOptions,
    failed: (key: string, reason: string, stage: 'warm-up' | 'measure', sample: number | null) => void,
  ) {
    this.#expected = expected;
    this.#run = run;
    this.#entries = entries;
    this.#options = options;
    this.#failed = failed;
  }

  /** A party whose check is over; resolves once the judge has measured every party's cases. */
  arrive(party: Party): Promise<void> {
    this.#parties.push(party);
    const done = new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#maybeStart();
    return done;
  }

  /** A party that will measure nothing (its runner ended without a measure stage). */
  leave(): void {
    this.#left++;
    this.#maybeStart();
  }

  #maybeStart(): void {
    if (this.#parties.length + this.#left < this.#expected || this.#parties.length === 0) return;
    if (this.#parties.length + this.#left > this.#expected) return;
    void this.#measure().then(
      () => this.#waiting.forEach((resolve) => resolve()),
      () => {
        // A channel closed: a process ended or a message was refused; its exit handler says why.
      },
    );
  }

  async #measure(): Promise<void> {
    this.beforeMeasure?.();
    const run = this.#run;
    const infoOf = (key: string): CaseInfo | undefined => run.lab.cases.find((c) => c.key === key);
    /** The processes that have each case, by fork (one but for a graded run's graded pairs). */
    const owner = new Map<string, Party[]>();
    const graded = gradedKeys(run.lab);
    const forks = Math.max(...this.#parties.map((p) => p.fork + 1));
    const cases: JudgedCase[] = [];
    const offered = new Map<string, { checkMs: unknown }>();
    /** Per case, the forks that offered it without having passed its check themselves. */
    const unchecked = new Map<string, number[]>();
    // Fork 0 first: a case's check time is its first fork's.
    for (const party of [...this.#parties].sort((a, b) => a.fork - b.fork)) {
      for (const c of Array.isArray(party.cases) ? party.cases : []) {
        const info = infoOf(c?.key);
        // Only cases the supervisor knows, that passed their check (in every fork that checked them: check-verdicts.ts).
        if (!info || this.#entries.get(info.key)?.passed !== true) continue;
        // In a graded run each case is one side's alone (the solution's copies, the learner's graded cases, the rest),
        // and one fork's once.
        if (this.#expected > 1 && runnerSideOf(info, graded) !== party.name) continue;
        // And that this process checked itself: every fork checks its own cases.
        if (party.passed !== undefined && !party.passed.has(info.key)) {
          unchecked.set(info.key, [...(unchecked.get(info.key) ?? []), party.fork]);
          continue;
        }
        const own = owner.get(info.key) ?? [];
        if (own[party.fork] !== undefined) continue;
        own[party.fork] = party;
        owner.set(info.key, own);
        if (!offered.has(info.key)) offered.set(info.key, c);
      }
    }
    for (const [key, own] of owner) {
      const info = infoOf(key)!;
      const sideForks = runnerSideOf(info, graded) === 'learner' ? 1 : forks;
      // A graded pair is measured in every fork or not at all: a fork that did not offer it (its runner's own list)
      // would leave its rounds to the others.
      const missing = Array.from({ length: sideForks }, (_, f) => f).filter((f) => own[f] === undefined);
      if (missing.length > 0) {
        const f = missing[0]!;
        const why = unchecked.get(key)?.includes(f) ? 'offered it for measuring without having passed its check there (each process checks its own cases)' : 'did not offer it for measuring after its check';
        this.#failed(key, `its process ${f + 1} of ${sideForks} ${why}`, 'measure', null);
        owner.delete(key);
        continue;
      }
      const c = offered.get(key)!;
      const checkMs = typeof c.checkMs === 'number' && Number.isFinite(c.checkMs) ? c.checkMs : null;
      // A graded case and the solution's copy of it: one pair, the same calls per sample (equal work).
      const pair = caseKey({ variant: info.variant, params: gradedCaseParams(info.params) });
      cases.push({
        key: info.key,
        label: caseLabel(info),
        ...(info.measureGroup ? { group: info.measureGroup } : {}),
        sampleLimitMs: sampleLimitMs(checkMs),
        checkMs,
        baseline: info.variant === run.lab.baseline && !isSolutionCopy(info.params),
        trusted: info.variant === run.lab.baseline || isSolutionCopy(info.params),
        inputKey: info.inputKey,
        ...(this.#expected > 1 && graded.has(pair) ? { rewarm: true, pair } : {}),
        ...(sideForks > 1 ? { forks: sideForks } : {}),
      });
    }
    // The lab's case order: the solution's copies come last in it, as the rotation had them in one process.
    const order = run.lab.cases.map((c) => c.key);
    cases.sort((a, b) => order.indexOf(a.key) - order.indexOf(b.key));
    let outputs: OutputJudge;
    // Its inputs, and with expectedAt every fresh input's expected output (seconds in task-granularity's full run).
    this.#options.onProgress?.({ type: 'progress', done: 0, total: 1, label: "the harness's copy of the inputs", phase: 'warm-up' });
    try {
      outputs = await this.#outputJudge(cases);
    } catch (error) {
      run.fatal ??= {
        kind: 'internal',
        message: `the harness could not make its own copy of the ${run.lab.name} lab's inputs to check the outputs: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      };
      for (const party of this.#parties) if (party.pid !== undefined) try { process.kill(-party.pid, 'SIGKILL'); } catch { /* gone already */ }
      throw error;
    }
    // The learner's first (its round trip is the run's overhead), then in RunnerSide's order and fork by fork,
    // whichever arrived first.
    const sides: RunnerSide[] = ['learner', 'graded', 'solution'];
    const parties = [...this.#parties].sort((a, b) => sides.indexOf(a.name) - sides.indexOf(b.name) || a.fork - b.fork);
    // The CPU other processes took while each case's samples of a round were timed (competing-load.ts).
    let roundStart: CpuSnapshot | null = null;
    // A graded run: every runner the judge is not asking is stopped (runner-freeze.ts), so idle learner code cannot
    // load the machine while another runner's samples are timed.
    const freezer = new RunnerFreezer(this.#expected > 1 ? parties.map((p) => p.pid) : []);
    for (const party of parties) party.channel.onAsk = () => freezer.activate(party.pid);
    freezer.start(parties[0]?.pid);
    const result = await judgeSamples(
      cases,
      run.lab.plan,
      { channels: parties.map((p) => p.channel), names: parties.map((p) => p.name), of: (key, fork = 0) => owner.get(key)![fork]!.channel },
      outputs,
      {
        onProgress: (done, total, label, phase) => this.#options.onProgress?.({ type: 'progress', done, total, label, phase }),
        beforeRound: (_round, key, fork) => {
          const pid = owner.get(key)?.[fork]?.pid;
          roundStart = pid !== undefined ? readCpuSnapshot(pid) : null;
        },
        afterRound: (round, key, fork) => {
          const pid = owner.get(key)?.[fork]?.pid;
          const roundEnd = roundStart && pid !== undefined ? readCpuSnapshot(pid) : null;
          if (!roundStart || !roundEnd) return;
          const load = roundLoad(roundStart, roundEnd);
          const sum = run.competingCpus.get(round) ?? { othersTicks: 0, seconds: 0 };
          run.competingCpus.set(round, { othersTicks: sum.othersTicks + load.othersTicks, seconds: sum.seconds + load.seconds });
        },
      },
    ).finally(() => {
      for (const party of parties) party.channel.onAsk = null;
      freezer.end();
    });
    for (const [key, f] of result.failed) this.#failed(key, f.reason, f.stage, f.sample);
    for (const [key, s] of result.samples) this.judged.set(key, s);
    run.harnessOverheadMs = result.roundTripMs;
    run.notes.push(...result.notes);
  }

  /**
   * The judge's checks of the outputs of `cases` (judge-outputs.ts), from this process's own copy of the cases
   * (SuperviseOptions.cases): its inputs, fresh inputs and expected outputs are made here, from lab code alone; no
   * learner module is loaded.
   */
  async #outputJudge(cases: JudgedCase[]): Promise<OutputJudge> {
    const { definition: lab, ctx, definitions } = this.#options.cases;
    const byKey = new Map(definitions.map((d) => [caseKey(d), d]));
    const plan = this.#run.lab.plan;
    return labOutputJudge(
      lab,
      ctx,
      cases.map((c) => {
        // The warm-up's samples now (one call each); the measured ones' calls once the warm-up has set them (reserve).
        // The position check counts every sample the judge asks: the warm-up, one discarded before each round if
        // rewarmed, the rounds'; a case in several processes (forks) is warmed up in each.
        const warmups = plan.warmupSamples * (c.forks ?? 1);
        const checked = warmups + plan.rounds * (plan.samplesPerRound + (c.rewarm ? 1 : 0));
        const definition = byKey.get(c.key);
        if (!definition) throw new Error(`the case ${c.key} is not in the harness's own list of the lab's cases`);
        return { key: c.key, definition, samples: warmups, checked };
      }),
    );
  }

  /**
   * The keys of `party`'s cases the judge measured, whose observations it collects ('finish'): a case measured in
   * several processes (forks) is its first fork's, whose observations the results keep (the others' are dropped).
   */
  keysOf(party: Party): string[] {
    if (party.fork !== 0) return [];
    const own = new Set((Array.isArray(party.cases) ? party.cases : []).map((c) => c?.key));
    return [...this.judged.keys()].filter((k) => own.has(k));
  }
}
