/**
 * `node labs/native-kernel/bench/triad-peer.ts [--elements N] [--rounds R] [--repeats K] [--threads 1,2]`: the lab's
 * triad rung (the solution's -march=native addon: triadFirstTouch once, then addon.triad timed call by call from
 * Node, as the lab's triad case runs it) against a C++ peer written on its own (bench/triad-peer.cc: std::threads,
 * no Node, timed inside C++), in one run: R rounds, each K calls of the rung and K repetitions of the peer (a fresh
 * peer process per round, its allocation and first touch untimed) for every thread count, the order alternating.
 * Arrays of N doubles each (the lab's own size by default: 4 x the last-level cache, src/triad.ts). Prints each side's
 * GB/s (24 bytes per element, as STREAM counts) as a median with its distribution-free 95% interval and the ratio of
 * the medians with a paired bootstrap interval. Issue 47 asks the rung to match its C++ peer in the same hour. A
 * benchmark, not a test: no number is asserted (test/triad-peer.test.ts checks that it runs and prints).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRng, formatBracketInterval, formatLoadAverage, formatRatio, formatSignificant, median, orderStatisticMedianCi, roundBootstrapRatioCi } from '@parallel-course/core';
import { loadRung } from '../src/addon.ts';
import { triadElementsHere } from '../src/lab.ts';
import { describeTriadSize, makeTriadInput, TRIAD_BYTES_PER_ELEMENT, triadSources } from '../src/triad.ts';

interface BenchOptions {
  elements: number;
  rounds: number;
  repeats: number;
  threads: number[];
}

const USAGE = 'use --elements N, --rounds R, --repeats K or --threads 1,2';

/** Options from the command line: positive integers (--threads a comma-separated list of them), else an error naming the flag and the fix. */
export function parseOptions(argv: readonly string[]): Partial<BenchOptions> {
  const options: Partial<BenchOptions> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]!;
    if (!['--elements', '--rounds', '--repeats', '--threads'].includes(flag)) throw new Error(`unknown option ${flag}: ${USAGE}`);
    const text = argv[i + 1];
    const values = (text ?? '').split(',').map(Number);
    if (text === undefined || text === '' || !values.every((v) => Number.isInteger(v) && v >= 1)) {
      const list = flag === '--threads';
      throw new Error(`${flag} must be ${list ? 'a comma-separated list of positive integers' : 'a positive integer'}, got ${text ?? 'nothing'}: e.g. ${flag} ${list ? '1,2' : '4'}`);
    }
    if (flag === '--threads') options.threads = values;
    else options[flag.slice(2) as 'elements' | 'rounds' | 'repeats'] = values[0]!;
  }
  return options;
}

/** Bytes this process can still get (MemAvailable), or null where /proc/meminfo cannot be read. */
function availableBytes(): number | null {
  try {
    const kib = /MemAvailable:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1];
    return kib === undefined ? null : Number(kib) * 1024;
  } catch {
    return null;
  }
}

/** Compiles the peer into `dir` with the lab's -march rung flags; throws with the compiler's output when it fails. */
function buildPeer(dir: string): string {
  const source = fileURLToPath(new URL('./triad-peer.cc', import.meta.url));
  const binary = path.join(dir, 'triad-peer');
  const cxx = process.env['CXX'] ?? 'g++';
  const run = spawnSync(cxx, ['-O3', '-march=native', '-std=c++20', '-pthread', source, '-o', binary], { encoding: 'utf8' });
  if (run.error || run.status !== 0) throw new Error(`could not compile ${source} with ${cxx} (a C++20 compiler; set CXX to choose another): ${run.error?.message ?? run.stderr}`);
  return binary;
}

function peerSamples(binary: string, elements: number, threads: number, repeats: number): number[] {
  const run = spawnSync(binary, [String(elements), String(threads), String(repeats)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`the C++ peer failed (exit ${run.status}): ${run.stderr}`);
  return run.stdout.trim().split('\n').map(Number);
}

export async function main(argv: readonly string[]): Promise<void> {
  const given = parseOptions(argv);
  const p = availableParallelism();
  const options: BenchOptions = { elements: triadElementsHere(p), rounds: 5, repeats: 3, threads: [...new Set([1, p])], ...given };
  let { elements } = options;
  // The rung's side holds 5 arrays (the input's b and c, filled from its seed, and the 3 it first-touched), the peer 3 more at once.
  const available = availableBytes();
  while (given.elements === undefined && available !== null && 8 * 8 * elements > 0.8 * available && elements > 2 ** 20) elements /= 2;
  const dir = mkdtempSync(path.join(tmpdir(), 'triad-peer-'));
  try {
    const binary = buildPeer(dir);
    const addon = loadRung('solution', 'march');
    const input = makeTriadInput(elements, 47);
    const sources = triadSources(input);
    const gbps = (ms: number): number => (TRIAD_BYTES_PER_ELEMENT * elements) / ms / 1e6;
    console.log(
      `triad, the lab's rung against a C++ peer: ${describeTriadSize(elements)}${elements < options.elements ? ` (the lab's ${describeTriadSize(options.elements)} did not fit in this machine's available memory)` : ''}, ` +
        `${options.rounds} rounds of ${options.repeats} calls each; Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}, ${p} CPUs, load ${formatLoadAverage(loadavg())}`,
    );
    for (const threads of options.threads) {
      const arrays = { a: new Float64Array(elements), b: new Float64Array(elements), c: new Float64Array(elements) };
      addon.triadFirstTouch(arrays.a, arrays.b, arrays.c, sources.b, sources.c, threads);
      addon.triad(arrays.a, arrays.b, arrays.c, input.s, threads); // warm-up, untimed
      const rung: number[] = [];
      const peer: number[] = [];
      const rungRounds: number[] = [];
      const peerRounds: number[] = [];
      for (let r = 0; r < options.rounds; r++) {
        const runRung = (): void => {
          for (let k = 0; k < options.repeats; k++) {
            const t0 = performance.now();
            addon.triad(arrays.a, arrays.b, arrays.c, input.s, threads);
            rung.push(gbps(performance.now() - t0));
            rungRounds.push(r);
          }
        };
        const runPeer = (): void => {
          for (const x of peerSamples(binary, elements, threads, options.repeats)) {
            peer.push(x);
            peerRounds.push(r);
          }
        };
        if (r % 2 === 0) (runRung(), runPeer());
        else (runPeer(), runRung());
      }
      // Checked after the clock: a[i] = b[i] + s * c[i] exactly (integers below 2^13), at every 4099th element.
      for (let i = 0; i < elements; i += 4099) {
        if (arrays.a[i] !== sources.b[i]! + input.s * sources.c[i]!) throw new Error(`the rung's triad is wrong at element ${i}`);
      }
      const line = (xs: number[]): string => {
        const [lo, hi] = orderStatisticMedianCi(xs);
        return `${formatSignificant(median(xs))} GB/s ${formatBracketInterval([lo, hi])}`;
      };
      const [rlo, rhi] = roundBootstrapRatioCi(rung, rungRounds, peer, peerRounds, createRng(47 + threads), 10_000);
      console.log(`  ${threads} thread${threads === 1 ? '' : 's'}: the lab's rung ${line(rung)}; the C++ peer ${line(peer)}; rung over peer ${formatRatio(median(rung) / median(peer))} ${formatBracketInterval([rlo, rhi])}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`triad-peer: ${(error as Error).message}`);
    process.exit(1);
  });
}
