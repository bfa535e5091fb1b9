/**
 * The runner process: the supervisor forks it for each lab run (and each --watch/--status check) and ends it when
 * a call into learner code overruns. Input: argv[2] is a JSON RunJob. Output: RunnerMessages over IPC.
 * It ends by itself when the supervisor goes away, even while learner code blocks its main thread.
 */
import { exitWithParent } from '../child-process.ts';
import { sealMeasurement, takeRequests } from './seal.ts';
import { LabLoadError, UsageError } from '../errors.ts';
import type { RunJob, RunnerMessage } from './run-protocol.ts';
import { runJob } from './runner.ts';

exitWithParent({ evenIfBlocked: true });
// Before the lab and the learner's code load: the clock, tinybench and the channel to the supervisor (seal.ts).
// The sender is this module's alone: no module exports it, so code the runner loads later cannot reach it.
const sender = sealMeasurement();
const requests = takeRequests();

/** Sends one message and waits until it has left, so a crash right after it cannot lose it. */
function send(message: RunnerMessage): Promise<void> {
  return sender(message);
}

// An error thrown from a callback (a timer, a stream, a worker's 'error' event with no listener) belongs to whatever
// the runner was doing: the supervisor knows what that was and fails that case.
const crash = (error: unknown) => {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.stderr.write(`uncaught in the lab process: ${text}\n`);
  process.exit(70); // EX_SOFTWARE
};
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

const job = JSON.parse(process.argv[2] ?? '{}') as RunJob;
try {
  await runJob(job, {
    send: (message) => send(message),
    // The supervisor's requests while it measures (sample-server.ts): this module's alone (seal.ts).
    listen: requests,
  });
  await send({ type: 'done' });
} catch (error) {
  const usage = error instanceof UsageError || error instanceof LabLoadError;
  await send({
    type: 'fatal',
    kind: usage ? 'usage' : 'internal',
    message: error instanceof Error ? (usage ? error.message : (error.stack ?? error.message)) : String(error),
  });
}
// Exit once the messages are out: a lab's pool or server left open must not keep this process alive.
process.exit(0);
