/**
 * The triad benchmark (bench/triad-peer.ts) compiles its C++ peer, runs both sides and prints each one's GB/s with an
 * interval and their ratio; its options are checked. No speed is asserted: the numbers depend on the machine and its
 * load. Needs the solution's -march rung built (npm run build -w labs/native-kernel) and a C++20 compiler.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseOptions } from '../bench/triad-peer.ts';
import { rungStatus } from '../src/addon.ts';

const SCRIPT = fileURLToPath(new URL('../bench/triad-peer.ts', import.meta.url));
const skip = rungStatus('solution', 'march').available ? false : 'the addon is not built here (npm run build -w labs/native-kernel)';

describe('bench/triad-peer.ts', () => {
  it('prints, for 1 and 2 threads, the rung\'s and the C++ peer\'s GB/s with intervals and the ratio with its interval', { skip }, () => {
    // 2^16 doubles: far inside the cache, so a second's run (the check of the output, not a bandwidth).
    const run = spawnSync(process.execPath, [SCRIPT, '--elements', String(2 ** 16), '--rounds', '2', '--repeats', '2', '--threads', '1,2'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^triad, the lab's rung against a C\+\+ peer: 2\^16 doubles \(0\.5 MiB each, 1\.5 MiB in all\), 2 rounds of 2 calls each; Node v\d+/);
    // Three significant digits (core format.ts).
    const number = String.raw`\d+(?:\.\d+)?`;
    const gbps = String.raw`${number} GB/s \[${number}, ${number}\]`;
    for (const threads of ['1 thread', '2 threads']) {
      assert.match(run.stdout, new RegExp(String.raw`  ${threads}: the lab's rung ${gbps}; the C\+\+ peer ${gbps}; rung over peer ${number}x \[${number}, ${number}\]`));
    }
  });

  it('takes positive whole numbers (--threads a list of them), and names a bad flag and the fix', () => {
    assert.deepEqual(parseOptions(['--elements', '1024', '--rounds', '2', '--repeats', '3', '--threads', '1,4']), { elements: 1024, rounds: 2, repeats: 3, threads: [1, 4] });
    assert.throws(() => parseOptions(['--elements', '-5']), { message: '--elements must be a positive integer, got -5: e.g. --elements 4' });
    assert.throws(() => parseOptions(['--threads', '1,x']), { message: '--threads must be a comma-separated list of positive integers, got 1,x: e.g. --threads 1,2' });
    assert.throws(() => parseOptions(['--size', '2']), { message: 'unknown option --size: use --elements N, --rounds R, --repeats K or --threads 1,2' });
  });
});
