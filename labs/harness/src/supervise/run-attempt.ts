/**
 * One attempt of a supervised run: the runner (run-child.ts) in a child process of its own process group, inside the
 * OS sandbox when one can start, every call it announces bounded, and its measure stage driven from here
 * (judge-sampler.ts: this process's clock times each sample). When a call overruns, the runner ends without finishing,
 * or it sends a message the protocol does not expect, the whole process group is killed and the case named; the
 * supervisor (supervisor.ts) then starts the next attempt without it.
 * The parts, in the order a runner's life meets them: runner-process.ts (start it walled in, kill its group, read its
 * exit), attempt-watchdog.ts (its time and memory limits), attempt-messages.ts (its messages, per type; the check's
 * verdicts in check-verdicts.ts CheckVerdicts), attempt-outcome.ts (how the attempt ended).
 * Input: the job, the run's declarations, the sandbox's command. Output: the run's entries, samples and notes, filled
 * in place, and how the attempt ended.
 */
import type { ChildProcess } from 'node:child_process';
import type { CorrectnessEntry } from '@parallel-course/core';
import type { RunJob, RunnerMessage } from '../measure/run-protocol.ts';
import { JudgeChannel } from '../measure/judge-channel.ts';
import type { CheckJudge } from '../measure/check-judge.ts';
import type { SupervisedRun, SuperviseOptions } from '../measure/supervised-run.ts';
import { channelRead, killGroup, runnerExit, startRunner, type RunnerSandbox } from './runner-process.ts';
import { AttemptWatchdog } from './attempt-watchdog.ts';
import { AttemptMessages, type AttemptSide } from './attempt-messages.ts';
import { attemptOutcome, type AttemptOutcome } from './attempt-outcome.ts';
import { killedForMemory, oomKillCount } from './oom-kills.ts';

/** Runs one runner of an attempt (`side`) to its end: the run's record is filled in place, the outcome returned. */
export function runAttempt(
  job: RunJob,
  options: SuperviseOptions,
  run: SupervisedRun,
  entries: Map<string, CorrectnessEntry>,
  started: (child: ChildProcess) => void,
  sandbox: RunnerSandbox,
  side: AttemptSide,
  checks: CheckJudge,
): Promise<AttemptOutcome> {
  const oomKillsAtStart = oomKillCount();
  const runner = startRunner(job, sandbox, options.forwardOutput === true, run.notes);
  const { child } = runner;
  started(child);
  let exited = false;
  const channel = new JudgeChannel((request) => !exited && child.connected && child.send(request), (next) => watchdog.watch(next));
  const watchdog = new AttemptWatchdog(child, sandbox.limits.memoryBytes, options.limitScale, () => channel.inFlightSince !== null);
  const messages = new AttemptMessages({ child, channel, watchdog, side, run, entries, options, checks, tmpDir: sandbox.tmpDir });
  child.on('message', (message: RunnerMessage) => messages.handle(message, performance.now()));
  return new Promise((settle) => {
    child.on('error', (error) => {
      // A request sent to a runner that has just ended fails (EPIPE) before its exit is seen: the exit decides the outcome.
      if (child.pid !== undefined) return;
      // The runner could not start (too many processes, say): no exit follows.
      watchdog.stop();
      messages.ended();
      run.fatal ??= { kind: 'internal', message: `the lab process could not start: ${error.message}` };
      settle({ kind: 'finished' });
    });
    child.on('exit', (code, signal) => {
      exited = true;
      watchdog.stop();
      const exit = runnerExit(code, signal, sandbox.wall !== null);
      const oomKilled = killedForMemory(exit.signal, oomKillsAtStart, oomKillCount());
      killGroup(child, 'SIGKILL'); // anything the runner started and left behind
      // Node may report the exit before it has read the runner's last messages (its 'done', its last 'called'): the
      // outcome is decided once the channel is read to its end.
      void channelRead(child).then(() => {
        messages.ended();
        const { refused, done, measuringFinished } = messages;
        const { activity, lastCalls, overran, overMemory } = watchdog;
        const end = { exit, oomKilled, side: side.name, stopped: side.stopped(), refused, done, measuringFinished, activity, lastCalls, overran, overMemory, stderrTail: runner.stderrTail() };
        const outcome = attemptOutcome(end, { job, run, entries, options, limits: sandbox.limits });
        // The case's check verdicts still on their way are written before the attempt ends.
        return messages.settled().then(() => settle(outcome));
      });
    });
  });
}
