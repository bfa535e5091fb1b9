/**
 * What a whole check of an output over OUTPUT_BYTES_BOUND costs the judge (docs/architecture.md, "The output checks
 * are the judge's"; whole-output.ts): native-kernel's triad output at `--elements` (2^26 by default, 512 MiB, this
 * VM's length), held by a child process as a runner holds it, fetched block by block over node's 'advanced' IPC
 * serialization (as runner-process.ts uses) into the judge's own array, then checked whole by the lab's checkSample.
 * The first check also computes the block sums of b and c from the seed (kept for later checks). Lab code only.
 * With --permission the child runs under Node's permission model, as the runner does (sandbox.ts).
 * Run: node labs/harness/bench/whole-check.ts [--elements N] [--repeats R] [--permission]
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { formatLoadAverage, formatTime, median } from '@parallel-course/core';
import { loadLab } from '../src/lab-registry.ts';
import { valuesIn } from '../src/measure/sample-server.ts';
import { fetchWhole, type OutputBlock } from '../src/measure/whole-output.ts';

const { values } = parseArgs({ options: { elements: { type: 'string', default: String(2 ** 26) }, repeats: { type: 'string', default: '5' }, permission: { type: 'boolean' }, child: { type: 'boolean' } } });
const elements = Number(values.elements);
const repeats = Number(values.repeats);
if (!Number.isInteger(elements) || elements < 1 || !Number.isInteger(repeats) || repeats < 1) {
  throw new Error(`--elements and --repeats must be positive integers, got ${values.elements} and ${values.repeats}: e.g. --elements 67108864 --repeats 5`);
}
const lab = await loadLab('native-kernel');
const ctx = { impl: 'solution' as const, implDir: '', rootDir: '', quick: true, availableParallelism: os.availableParallelism(), seed: 1 };
const made = await lab.inputs({ elements }, ctx);
const input = made.measureAt!(12_345);

if (values.child) {
  // The runner's side: the output held, each block asked for answered as sample-server.ts answers a 'show'.
  const output = (await lab.expected(input)) as Float64Array;
  process.on('message', (m: { seq: number; block: OutputBlock }) => process.send!({ seq: m.seq, values: valuesIn(output, m.block) }));
  process.send!({ ready: true });
} else {
  const execArgv = values.permission ? ['--permission', '--allow-fs-read=*', '--allow-worker', '--no-warnings'] : [];
  const child = fork(new URL(import.meta.url).pathname, ['--child', '--elements', String(elements)], { serialization: 'advanced', stdio: 'inherit', execArgv });
  await new Promise((resolve) => child.once('message', resolve));
  const waiting = new Map<number, (values: Float64Array) => void>();
  child.on('message', (m: { seq: number; values: Float64Array }) => waiting.get(m.seq)?.(m.values));
  let seq = 0;
  const ask = (block: OutputBlock) => new Promise<Float64Array>((resolve) => (waiting.set(++seq, resolve), child.send({ seq, block })));
  console.log(`CPU: ${os.cpus()[0]?.model} x ${os.availableParallelism()}; load average ${formatLoadAverage(os.loadavg())}`);
  console.log(`triad output of ${elements} doubles (${(elements * 8) / 2 ** 20} MiB), ${repeats} whole checks${values.permission ? ', the child under --permission' : ''}:`);
  const fetchMs: number[] = [];
  const checkMs: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    const whole = await fetchWhole(elements, ask);
    const t1 = performance.now();
    const comparison = lab.checkSample!(input, whole);
    fetchMs.push(t1 - t0);
    checkMs.push(performance.now() - t1);
    if (!comparison.equal) throw new Error(`the whole check failed on the right output: ${JSON.stringify(comparison.firstMismatch)}`);
  }
  console.log(`fetch: median ${formatTime(median(fetchMs))} (each: ${fetchMs.map((ms) => formatTime(ms)).join(', ')})`);
  console.log(`check: median ${formatTime(median(checkMs))} (each: ${checkMs.map((ms) => formatTime(ms)).join(', ')}; the first computes the block sums of b and c)`);
  console.log(`load average after: ${formatLoadAverage(os.loadavg())}`);
  child.kill();
}
