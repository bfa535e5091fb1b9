/**
 * The ladder's top rungs: the blocked kernel (solutions/native-kernel/blocked.cc over native/blocked-parts.h) and the system BLAS (native/blas.cc, its own build
 * in blas/), each against the TypeScript reference on odd sizes within the tolerance derived for its summation
 * order; a missing BLAS's note; and the probe's vector width. The builds of a copy of the package (without a BLAS, with a
 * broken blocked.cc) are copy-build.test.ts's.
 */
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { BLAS_FIX, blasStatus, blockedStatus, loadBlas, loadBlocked, loadRung, rungStatus } from '../src/addon.ts';
import { unavailableNotes } from '../src/lab.ts';
import { makeInput } from '../src/matrices.ts';
import { matmulNaive } from '../src/ts-kernels.ts';
import { BLOCKED_KC, blasTolerance, blockedDepth, blockedTolerance, productTolerance, UNIT_ROUNDOFF } from '../src/tolerance.ts';
// A plain-JavaScript install script; types in build-addon.d.mts.
import { findBlas } from '../scripts/build-addon.mjs';

/** Odd sizes: one element, smaller than a 6 x 16 register tile, past one tile, past one 96-row block of A. */
const ODD_SIZES = [1, 7, 33, 130];

function maxError(n: number, product: (a: Float64Array, b: Float64Array, c: Float64Array, n: number) => unknown): number {
  const input = makeInput(n, 20261203, 1);
  const expected = matmulNaive(input.aRows, input.bRows, n).flat();
  const c = new Float64Array(n * n).fill(Number.NaN); // the kernel must overwrite every element
  product(input.a, input.b, c, n);
  return Math.max(...expected.map((x, i) => Math.abs(x - c[i]!)));
}

test('blockedTolerance holds for any block size a learner picks: the worst depth over kc is n, the i-k-j bound', () => {
  // By hand: n = 1024 with the reference's kc = 192 has depth 192 + 6 - 1 = 197; kc = 1 gives 1 + 1024 - 1 = 1024,
  // kc = 32 gives 32 + 32 - 1 = 63, kc >= n gives n.
  assert.equal(blockedDepth(1024, BLOCKED_KC), 197);
  assert.equal(blockedDepth(1024, 1), 1024);
  assert.equal(blockedDepth(1024, 32), 63);
  assert.equal(blockedDepth(1024, 5000), 1024);
  for (const n of [1, 2, 7, 33, 130, 256, 512, 1024]) {
    for (let kc = 1; kc <= 2 * n; kc++) assert.ok(blockedDepth(n, kc) <= n, `n = ${n}, kc = ${kc}: depth ${blockedDepth(n, kc)} > n`);
    // The worst case is depth n, so the tolerance is the i-k-j reference's own bound, 2 gamma_n n.
    assert.equal(blockedTolerance(n), productTolerance(n));
  }
  assert.equal(blasTolerance(512), productTolerance(512));
  // And the reference's own order is well inside it: (gamma_1024 + gamma_197) * 1024 < 2 gamma_1024 1024.
  const gamma = (d: number) => (d * UNIT_ROUNDOFF) / (1 - d * UNIT_ROUNDOFF);
  assert.ok((gamma(1024) + gamma(197)) * 1024 < blockedTolerance(1024));
});

const marchBuilt = rungStatus('solution', 'march').available;
const blockedBuilt = blockedStatus('solution').available;
test('native-blocked matches the reference on n = 1, 7, 33, 130 within its derived tolerance', { skip: blockedBuilt ? false : 'the addon is not built here' }, () => {
  const addon = loadBlocked('solution');
  for (const n of ODD_SIZES) {
    const error = maxError(n, (a, b, c, m) => addon.matmulBlocked(a, b, c, m));
    assert.ok(error <= blockedTolerance(n), `n = ${n}: max error ${error} > ${blockedTolerance(n)}`);
  }
  assert.throws(() => addon.matmulBlocked(new Float64Array(4), new Float64Array(4), new Float64Array(3), 2), /c\.length is 3, expected n\*n = 4 for n = 2/);
});

// The blocked split gives a thread a block only from 96 rows up (native/threads.cc: kBlockedMinRows), so the odd
// sizes alone (up to 130) always run as one block: n = 299 splits into 2 and 3 blocks of uneven, odd row counts.
test('native-blocked-threads: the blocked kernel split by rows on 1, 2 and 3 threads matches the reference on the odd sizes and n = 299', { skip: blockedBuilt ? false : 'the addon is not built here' }, async () => {
  const addon = loadBlocked('solution');
  for (const threads of [1, 2, 3]) {
    for (const n of [...ODD_SIZES, 299]) {
      const input = makeInput(n, 20261203, 1);
      const expected = matmulNaive(input.aRows, input.bRows, n).flat();
      const c = await addon.matmulBlockedAsync(input.a, input.b, new Float64Array(n * n).fill(Number.NaN), n, threads);
      const error = Math.max(...expected.map((x, i) => Math.abs(x - c[i]!)));
      assert.ok(error <= blockedTolerance(n), `n = ${n}, ${threads} threads: max error ${error} > ${blockedTolerance(n)}`);
    }
  }
});

test('native-blas: dgemm on one library thread matches the reference on n = 1, 7, 33, 130; it says which kernel runs', { skip: blasStatus().available || process.env.NATIVE_KERNEL_REQUIRE_BLAS === '1' ? false : 'no BLAS built here (apt-get install -y libopenblas-dev; CI sets NATIVE_KERNEL_REQUIRE_BLAS=1)' }, () => {
  const blas = loadBlas(1);
  for (const n of ODD_SIZES) {
    const error = maxError(n, (a, b, c, m) => blas.matmulBlas(a, b, c, m));
    assert.ok(error <= blasTolerance(n), `n = ${n}: max error ${error} > ${blasTolerance(n)}`);
  }
  const info = blas.blasInfo();
  assert.equal(info.library, 'OpenBLAS');
  assert.equal(info.threads, 1);
  assert.match(info.config, /OpenBLAS \d+\.\d+/);
  assert.ok(info.coreName.length > 0);
  // On 2 library threads (native-blas-threads), then back to 1.
  blas.blasSetThreads(2);
  assert.ok(maxError(130, (a, b, c, m) => blas.matmulBlas(a, b, c, m)) <= blasTolerance(130));
  blas.blasSetThreads(1);
  assert.equal(blas.blasInfo().threads, 1);
});

test('the FMA probe names its vector width: 512-bit where the CPU has AVX-512F', { skip: marchBuilt ? false : 'the addon is not built here' }, () => {
  const width = loadRung('solution', 'march').fmaVectorWidth();
  const avx512 = process.platform === 'linux' && /\bavx512f\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  if (avx512) assert.match(width, /^512-bit FMA \(AVX-512F/);
  else assert.match(width, /-bit|no vector/);
  // The -O3 module (no -march) still measures 512-bit FMAs on such a CPU, chosen at run time.
  if (avx512 && rungStatus('solution', 'O3').available) assert.equal(loadRung('solution', 'O3').fmaVectorWidth(), '512-bit FMA (AVX-512F, chosen at run time)');
});

test('findBlas: NATIVE_KERNEL_BLAS=none skips the search; a directory without the library finds none', (t) => {
  assert.deepEqual(findBlas({ NATIVE_KERNEL_BLAS: 'none' }), { found: false, reason: 'BLAS detection was skipped (NATIVE_KERNEL_BLAS=none)' });
  const empty = mkdtempSync(path.join(os.tmpdir(), 'native-kernel-noblas-'));
  t.after(() => rmSync(empty, { recursive: true, force: true }));
  assert.deepEqual(findBlas({ NATIVE_KERNEL_BLAS: empty }), { found: false, reason: `no BLAS found (pkg-config openblas failed; no libopenblas.so in ${empty})` });
});

test('a missing BLAS is one note naming native-blas, the reason and the one-line fix', () => {
  const notes = unavailableNotes('solution', { available: false, reason: 'BLAS detection was skipped (NATIVE_KERNEL_BLAS=none)', fix: BLAS_FIX });
  assert.ok(
    notes.includes(
      'Unavailable, not measured: native-blas, native-blas-threads (solution). Why: BLAS detection was skipped (NATIVE_KERNEL_BLAS=none) ' +
        '(details: labs/native-kernel/build/native-kernel-build.json). Fix: install OpenBLAS (Debian/Ubuntu: apt-get install -y libopenblas-dev; ' +
        'Fedora: dnf install openblas-devel), then run `npm run build -w labs/native-kernel`',
    ),
    notes.join('\n'),
  );
});

test('NATIVE_KERNEL_TRACE=1: one stderr line per threaded call, each block with its thread, CPU and times; silent without it', { skip: blockedBuilt ? false : 'the addon is not built here' }, () => {
  const script = `
    const { loadBlocked } = await import(${JSON.stringify(new URL('../src/addon.ts', import.meta.url).href)});
    const addon = loadBlocked('solution');
    const n = 299;
    const a = new Float64Array(n * n).fill(0.5), b = new Float64Array(n * n).fill(0.25), c = new Float64Array(n * n);
    await addon.matmulBlockedAsync(a, b, c, n, 2);
    if (c[n * n - 1] !== 0.125 * n) throw new Error('wrong product: ' + c[n * n - 1]);`;
  const run = (env: NodeJS.ProcessEnv) => spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env });
  const { NATIVE_KERNEL_TRACE: _unset, ...quiet } = process.env;
  const traced = run({ ...quiet, NATIVE_KERNEL_TRACE: '1' });
  assert.equal(traced.status, 0, traced.stderr);
  assert.match(traced.stderr, /^native-kernel trace: n=299 threads=2 total_ms=[\d.]+ block0=(caller|helper)@cpu-?\d+:[\d.]+-[\d.]+ block1=(caller|helper)@cpu-?\d+:[\d.]+-[\d.]+\n$/);
  const silent = run(quiet);
  assert.equal(silent.status, 0, silent.stderr);
  assert.equal(silent.stderr, '');
});
