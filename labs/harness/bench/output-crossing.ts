/**
 * What sending a sample's output to the judge adds per sample (docs/architecture.md, "The output checks are the
 * judge's"): for each lab's measured inputs in a quick run of the solution, the output's size as the channel
 * serializes it and the median time of its crossing to another process (node's 'advanced' IPC serialization, as
 * runner-process.ts uses), less an empty message's. It runs lab code only (inputs, expected outputs); native-kernel's
 * products are arrays of their size (their expected outputs cost seconds in JavaScript), and an output over
 * OUTPUT_BYTES_BOUND crosses as the values at the judge's positions. Outside the timed window either way.
 * Run: node labs/harness/bench/output-crossing.ts [lab ...]
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import { serialize } from 'node:v8';
import { formatLoadAverage, formatTime, median as medianOf, paramsKey } from '@parallel-course/core';
import { positionsPerSample } from '../src/measure/output-positions.ts';
import { labNames, loadLab, ROOT_DIR } from '../src/lab-registry.ts';
import { runCases } from '../src/measure/run-cases.ts';
import { OUTPUT_BYTES_BOUND, outputOf } from '../src/measure/sample-server.ts';

if (process.argv[2] === '--echo') {
  process.on('message', () => process.send?.('ok'));
} else {
  const child = fork(new URL(import.meta.url).pathname, ['--echo'], { serialization: 'advanced', stdio: 'inherit' });
  const trip = (message: unknown) =>
    new Promise<number>((resolve) => {
      const t0 = performance.now();
      child.once('message', () => resolve(performance.now() - t0));
      child.send(message as Parameters<typeof child.send>[0]);
    });
  const median = async (message: unknown, n = 21) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) times.push(await trip(message));
    return medianOf(times);
  };
  const empty = await median({ type: 'output', seq: 1, output: { kind: 'whole', value: null } }, 51);
  console.log(`CPU: ${os.cpus()[0]?.model} x ${os.availableParallelism()}; load average ${formatLoadAverage(os.loadavg())}; empty message ${formatTime(empty)}`);
  console.log('lab | input | output | bytes sent | time beyond an empty message (median of 21)');
  for (const name of process.argv.slice(2).length ? process.argv.slice(2) : labNames()) {
    const lab = await loadLab(name);
    const { ctx, definitions } = runCases(lab, { lab: name, impl: 'solution', quick: true, seed: 1, rootDir: ROOT_DIR, availableParallelism: os.availableParallelism() }, { notes: false });
    const seen = new Set<string>();
    for (const d of definitions) {
      const key = paramsKey(d.params, lab.inputParams);
      if (seen.has(key)) continue;
      seen.add(key);
      const inputs = await lab.inputs(d.params, ctx);
      const length = lab.outputLength?.(inputs.measure);
      const output = length !== undefined && name === 'native-kernel' ? new Float64Array(length) : await lab.expected(inputs.measure);
      const crossing = outputOf(output);
      // A large output: the 'show' request's positions, and the values shown, for a quick run's 7 samples.
      const message =
        crossing.kind === 'large' ? { type: 'shown', seq: 1, values: new Float64Array(Math.min(crossing.length, positionsPerSample(7))) } : { type: 'output', seq: 1, output: crossing };
      const extra = crossing.kind === 'large' ? { type: 'show', seq: 1, positions: Array.from({ length: positionsPerSample(7) }, (_, i) => i) } : null;
      const ms = (await median(message)) - empty + (extra ? (await median(extra)) - empty : 0);
      const bytes = serialize(message).length + (extra ? serialize(extra).length : 0);
      console.log(`${name} | ${key || '(one input)'} | ${crossing.kind === 'large' ? `large (${crossing.length} elements, over ${OUTPUT_BYTES_BOUND} bytes): positions` : 'whole'} | ${bytes} | ${formatTime(ms)}`);
    }
  }
  child.kill();
}
