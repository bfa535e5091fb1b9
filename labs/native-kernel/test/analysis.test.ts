import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze, type CaseResult } from '@parallel-course/core';
import { crossovers, intensity, roofline, roofsFrom, rooflineSummary, rungPoint, threadScaling, type RungPoint } from '../src/analysis.ts';
import { formatBandwidth } from '../src/analysis-report.ts';
import { bandwidthFrom, saturationPoint, saturationSentence } from '../src/bandwidth-analysis.ts';
import { decades, rooflineSvg } from '../src/roofline-svg.ts';

/** A case with constant samples: its median and interval are exactly `ms`. */
function fakeCase(variant: string, params: Record<string, number>, ms: number, flop: number): CaseResult {
  const samples = [ms, ms, ms, ms];
  return {
    variant,
    params,
    samplesMs: samples,
    sampleRounds: [0, 0, 1, 1],
    workPerSample: { amount: flop, unit: 'flop' },
    sample: { item: 'call', itemsPerSample: Math.round(flop / (2 * Number(params['size'] ?? 1) ** 3)) },
    summary: {
      n: 4, median: ms, ci95: [ms, ms], mean: ms, sd: 0, mad: 0, iqr: 0, min: ms, max: ms, cv: 0, robustCv: 0, noisy: false,
      outliers: { lowSevere: 0, lowMild: 0, highMild: 0, highSevere: 0 },
    },
    observations: {},
    oversubscribed: false,
  };
}

test('rungPoint: n = 4, 1000 repeats (128 000 flop) in 0.5 ms -> 500 ns per call, 0.256 Gflop/s', () => {
  const p = rungPoint(fakeCase('native-O3', { size: 4 }, 0.5, 1000 * 128));
  assert.equal(p.perCallNs, 500);
  assert.equal(p.gflops, 0.256);
  assert.deepEqual(p.gflopsCi, [0.256, 0.256]);
  assert.equal(p.threads, null);
});

function point(variant: string, size: number, perCallNs: number): RungPoint {
  return { variant, size, threads: null, perCallNs, perCallNsCi: [perCallNs, perCallNs], gflops: 1, gflopsCi: [1, 1] };
}

test('crossovers: the start of the last run of sizes where native is faster', () => {
  const points = [
    point('ts-typed', 2, 20), point('ts-typed', 4, 100), point('ts-typed', 8, 600), point('ts-typed', 16, 4700),
    point('native-O3', 2, 400), point('native-O3', 4, 550), point('native-O3', 8, 550), point('native-O3', 16, 1100),
    point('native-O0', 2, 600), point('native-O0', 4, 90), point('native-O0', 8, 800), point('native-O0', 16, 5000),
  ];
  assert.deepEqual(crossovers(points), [
    { variant: 'native-O3', fromSize: 8, tsFasterUpTo: 4 },
    // faster at n = 4 only, slower again after: never a crossover
    { variant: 'native-O0', fromSize: null, tsFasterUpTo: 16 },
  ]);
});

test('threadScaling reads the harness: 10 ms at 1 thread, 5.5 ms at 2 -> speedup 1.818.., efficiency 0.909..', () => {
  // The harness computes efficiency once for every case that declares workers; the lab declares workers: threads.
  const work = { amount: 1, unit: 'flop' };
  const input = (variant: string, params: Record<string, number>, ms: number, workers?: number) => ({
    variant,
    params,
    ...(workers === undefined ? {} : { workers }),
    samplesMs: [ms, ms, ms, ms],
    sampleRounds: [0, 0, 1, 1],
    workPerSample: work,
    observations: {},
  });
  const { speedups } = analyze(
    [
      input('ts-typed', { size: 256 }, 40),
      input('native-threads', { size: 256, threads: 1 }, 10, 1),
      input('native-threads', { size: 256, threads: 2 }, 5.5, 2),
    ],
    { baseline: 'ts-typed', headline: { variant: 'native-threads', params: { size: 256, threads: 2 } }, seed: 1, resamples: 200, availableParallelism: 2 },
  );
  const [s] = threadScaling(speedups);
  assert.ok(s);
  assert.equal(threadScaling(speedups).length, 1, 'the 1-thread case itself is not a scaling point');
  assert.equal(s.threads, 2);
  assert.equal(s.variant, 'native-threads');
  // Reference: 10 / 5.5 = 1.8181..; / 2 threads = 0.9090..; constant samples make every interval a point.
  assert.ok(Math.abs(s.speedup - 10 / 5.5) < 1e-12);
  assert.ok(Math.abs(s.efficiency - 10 / 11) < 1e-12);
  assert.ok(Math.abs(s.efficiencyCi[0] - 10 / 11) < 1e-12 && Math.abs(s.efficiencyCi[1] - 10 / 11) < 1e-12);
  assert.ok(Math.abs(s.speedupCi[0] - 10 / 5.5) < 1e-12 && Math.abs(s.speedupCi[1] - 10 / 5.5) < 1e-12);
});

test('intensity(n) = n / 12 flop per byte; the roofline takes min(peak, intensity * bandwidth)', () => {
  assert.equal(intensity(12), 1);
  assert.equal(intensity(256), 256 / 12);
  const peaks = { gflops1: 100, gbps1: 20, gflopsAll: 200, gbpsAll: 30 };
  // n = 12: intensity 1, memory roof 20 Gflop/s < 100: a point at 5 Gflop/s reaches 25% of its roof.
  const [low] = roofline([{ ...point('native-march', 12, 1), gflops: 5 }], peaks);
  assert.equal(low?.attainableGflops, 20);
  assert.equal(low?.fractionOfPeak, 0.25);
  // n = 256, 2 threads: intensity 21.3 x 30 = 640 > 200, so the compute roof of all threads applies.
  const [high] = roofline([{ ...point('native-threads', 256, 1), threads: 2, gflops: 50 }], peaks);
  assert.equal(high?.attainableGflops, 200);
  assert.equal(high?.fractionOfPeak, 0.25);
});

test('rooflineSvg draws both roofs and one marker per point; decades covers the range', () => {
  assert.deepEqual(decades(0.5, 20), [0.1, 1, 10, 100]);
  const peaks = { gflops1: 100, gbps1: 20, gflopsAll: 200, gbpsAll: 30 };
  const pts = roofline([{ ...point('native-march', 256, 1), gflops: 20 }, { ...point('ts-typed', 256, 1), gflops: 2 }], peaks);
  const svg = rooflineSvg(pts, peaks, 'a <test> title');
  assert.match(svg, /^<svg /);
  assert.equal(svg.match(/<polyline /g)?.length, 2);
  assert.equal(svg.match(/<circle cx="[\d.]+" cy="[\d.]+" r="4" fill="[^"]+"><title>/g)?.length, 2);
  assert.match(svg, /a &lt;test&gt; title/);
});

test('rooflineSummary: every rung at the top of the sequential ladder, plus the threads beyond it', () => {
  const peaks = { gflops1: 100, gbps1: 30, gflopsAll: 200, gbpsAll: 60 };
  const pts = roofline(
    [
      point('ts-typed', 128, 1),
      point('native-march', 128, 1),
      point('ts-typed', 256, 1),
      point('native-march', 256, 1),
      { ...point('native-threads', 256, 1), threads: 2 },
      point('ts-typed', 512, 1),
      { ...point('native-threads', 512, 1), threads: 1 },
      { ...point('native-threads', 512, 1), threads: 2 },
    ],
    peaks,
  );
  assert.deepEqual(
    rooflineSummary(pts).map((p) => `${p.variant}:${p.size}:${p.threads ?? '-'}`),
    ['ts-typed:256:-', 'native-march:256:-', 'native-threads:256:2', 'native-threads:512:1', 'native-threads:512:2'],
  );
});

test('rooflineSummary: the top rungs (native-march, native-blocked, native-blas) at the large sizes too, with their fraction of peak; not the baseline there', () => {
  const peaks = { gflops1: 100, gbps1: 30, gflopsAll: 200, gbpsAll: 60 };
  // 50 Gflop/s at n = 512 (intensity far right of the ridge): half the 100 Gflop/s compute roof.
  const pts = roofline(
    [
      point('native-O0', 256, 1),
      point('native-march', 256, 1),
      point('native-blocked', 256, 1),
      point('native-blas', 256, 1),
      point('ts-typed', 512, 1),
      point('native-march', 512, 1),
      { ...point('native-blocked', 512, 1), gflops: 50 },
      point('native-blas', 512, 1),
    ],
    peaks,
  );
  const summary = rooflineSummary(pts);
  assert.deepEqual(
    summary.map((p) => `${p.variant}:${p.size}`),
    ['native-O0:256', 'native-march:256', 'native-blocked:256', 'native-blas:256', 'native-march:512', 'native-blocked:512', 'native-blas:512'],
  );
  assert.ok(Math.abs(summary.find((p) => p.variant === 'native-blocked' && p.size === 512)!.fractionOfPeak - 0.5) < 1e-12);
});

/**
 * A hand-made triad sweep on a 16-CPU node, through the harness's own analysis (so efficiency comes from `workers`
 * as in a real run). 2^23 elements move 24 x 2^23 = 201 326 592 bytes per sample; a time of bytes / (GB/s x 10^6) ms
 * gives exactly those GB/s.
 */
function triadRun(gbpsByThreads: [number, number][], tsGbps = 5) {
  const elements = 2 ** 23;
  const bytes = 24 * elements;
  const ms = (gbps: number) => bytes / (gbps * 1e6);
  const input = (variant: string, params: Record<string, number>, gbps: number, workers?: number) => ({
    variant,
    params,
    ...(workers === undefined ? {} : { workers }),
    samplesMs: [ms(gbps), ms(gbps), ms(gbps), ms(gbps)],
    sampleRounds: [0, 0, 1, 1],
    workPerSample: { amount: bytes, unit: 'bytes' },
    observations: {},
  });
  const { cases, speedups } = analyze(
    [
      input('ts-typed', { elements }, tsGbps),
      ...gbpsByThreads.map(([threads, gbps]) => input('triad', { elements, threads }, gbps, threads)),
    ],
    { baseline: 'ts-typed', headline: { variant: 'triad', params: { elements, threads: 1 } }, seed: 1, resamples: 200, availableParallelism: 16 },
  );
  return { cases, speedups, cpus: { p: 16, limit: 'affinity' as const, available: 16, forced: false, affinity: 16, quota: null, nodeReports: 16 } };
}

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9 * expected, `${actual} vs ${expected}`);

test('bandwidthFrom: GB/s per thread count, the best as the all-cores roof, saturation at 90% of the best', () => {
  // Reference: best 36.5 GB/s (16 threads); 90% of it is 32.85; 3 threads give 27 (below), 4 give 34 (above): saturates at 4.
  const run = triadRun([[1, 10], [2, 19], [3, 27], [4, 34], [8, 36], [16, 36.5]]);
  const b = bandwidthFrom(run);
  assert.ok(b);
  assert.equal(b.elements, 2 ** 23);
  assert.deepEqual(b.points.map((p) => p.threads), [1, 2, 3, 4, 8, 16]);
  close(b.oneThread!.gbps, 10);
  close(b.best.gbps, 36.5);
  assert.equal(b.best.threads, 16);
  assert.equal(b.saturatesAt, 4);
  assert.equal(b.p, 16);
  close(b.typescriptGbps!, 5);
  // Efficiency from the harness (workers: threads): 36.5 / (16 x 10) = 0.228125.
  close(b.points.at(-1)!.efficiency!, 36.5 / 160);
  assert.match(saturationSentence(b), /^Bandwidth saturates at 4 of 16 threads: 4 threads already reach 90% of the best \(36\.5 GB\/s at 16 threads\)/);
  const text = formatBandwidth(b).join('\n');
  // The core's formatters: three significant digits (34 GB/s, efficiency 34 / (4 x 10) = 0.85), 34 / 36.5 = 93%.
  assert.match(text, /\| 4 \| 34\.0 \[34\.0, 34\.0\] \| 93% \| 0\.850 \[0\.850, 0\.850\] \|/);
  assert.match(text, /ts-typed\): 5\.00 GB\/s, 0\.500x the native triad on one thread/);
});

test('saturationPoint and the sentence when bandwidth still grows at the last thread count, or only one was measured', () => {
  assert.equal(saturationPoint([{ threads: 1, gbps: 10 }, { threads: 2, gbps: 20 }]), 2);
  assert.equal(saturationPoint([{ threads: 2, gbps: 19 }, { threads: 1, gbps: 20 }]), 1, '19 >= 0.9 x 20 at 2 threads, but 1 thread already had it');
  const rising = bandwidthFrom(triadRun([[1, 10], [2, 20]]))!;
  assert.match(saturationSentence(rising), /only at 2 of 16 threads: no saturation within this sweep/);
  const single = bandwidthFrom(triadRun([[1, 10]]))!;
  assert.match(saturationSentence(single), /^Only one thread count was measured/);
  assert.equal(bandwidthFrom({ cases: [], speedups: [], cpus: triadRun([]).cpus }), null);
});

test('roofsFrom: the triad replaces the probe\'s bandwidth (1 thread and best); without a triad the probe stays', () => {
  const peaks = { gflops1: 100, gbps1: 20, gflopsAll: 800, gbpsAll: 30 };
  const b = bandwidthFrom(triadRun([[1, 10], [2, 19], [4, 34], [16, 36.5]]))!;
  const roofs = roofsFrom(peaks, b)!;
  close(roofs.gbps1, 10);
  close(roofs.gbpsAll, 36.5);
  assert.equal(roofs.gflopsAll, 800);
  assert.deepEqual(roofsFrom(peaks, null), peaks);
  assert.equal(roofsFrom(null, b), null);
});

test('roofline: memory-bound left of the ridge, with the fraction of the bandwidth roof; compute-bound right of it', () => {
  const peaks = { gflops1: 100, gbps1: 10, gflopsAll: 800, gbpsAll: 40 };
  // n = 12: intensity 1 flop/B < ridge 100 / 10 = 10: memory-bound; 5 Gflop/s moves 5 GB/s, half of the 10 GB/s roof.
  const [low] = roofline([{ ...point('native-march', 12, 1), gflops: 5 }], peaks);
  assert.equal(low?.bound, 'memory');
  assert.equal(low?.gbps, 5);
  assert.equal(low?.fractionOfBandwidth, 0.5);
  assert.equal(low?.fractionOfPeak, 0.5);
  // n = 256 on 2 threads: intensity 21.3 > ridge 800 / 40 = 20: compute-bound.
  const [high] = roofline([{ ...point('native-threads', 256, 1), threads: 2, gflops: 400 }], peaks);
  assert.equal(high?.bound, 'compute');
  assert.equal(high?.fractionOfPeak, 0.5);
});

test('rooflineSvg draws the triad as one square per thread count on the bandwidth slope', () => {
  const peaks = { gflops1: 100, gbps1: 10, gflopsAll: 200, gbpsAll: 36 };
  const svg = rooflineSvg(roofline([point('native-march', 256, 1)], peaks), peaks, 't', [{ threads: 1, gbps: 10 }, { threads: 2, gbps: 19 }, { threads: 4, gbps: 36 }]);
  assert.equal(svg.match(/<rect x="[\d.]+" y="[\d.]+" width="8" height="8" fill="none" stroke="black"><title>triad x\d+/g)?.length, 3);
  assert.match(svg, /triad x4: 36\.0 GB\/s/);
  assert.match(svg, />triad \(x threads\)</);
});

test('rooflineSvg for a text column: scalable, text of 13 units or more, and 13 series each with its own colour and marker', () => {
  const peaks = { gflops1: 100, gbps1: 20, gflopsAll: 200, gbpsAll: 30 };
  const names = ['ts-naive', 'ts-typed', 'native-O0', 'native-O3', 'native-march', 'native-blocked', 'native-blas', 'a', 'b', 'c', 'd', 'e', 'f'];
  const svg = rooflineSvg(roofline(names.map((n) => point(n, 256, 1)), peaks), peaks, 't', [{ threads: 1, gbps: 10 }, { threads: 2, gbps: 19 }]);
  // 480 units wide: its 13-unit text is about 10 px on a 390 px phone (a 358 px figure); it was 720 with 10-unit labels (5 px).
  assert.match(svg, /^<svg [^>]*width="480" height="\d+" viewBox="0 0 480 \d+"/);
  const sizes = [...svg.matchAll(/font-size="(\d+)"/g)].map((m) => Number(m[1]));
  assert.ok(Math.min(...sizes) >= 13, `font sizes ${sizes.join(', ')}`);
  // The legend's markers: one per series, no two alike (8 colours, then a second shape).
  const legend = svg.slice(svg.indexOf('roof, all threads'));
  const markers = [...legend.matchAll(/<(circle|path) [^>]*fill="(#[0-9a-f]{6})"/g)].map((m) => `${m[1]} ${m[2]}`);
  assert.equal(markers.length, 13);
  assert.equal(new Set(markers).size, 13, markers.join('; '));
  // The roofs' numbers are in the legend, not written over the plot where the top rungs sit; the triad has one label.
  assert.match(svg, />roof, 1 thread: 100 Gflop\/s, 20.0 GB\/s</); // three significant digits, as in analysis.md
  assert.equal(svg.match(/>triad x1, x2</g)?.length, 1);
});
