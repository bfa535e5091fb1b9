// The register-blocked SIMD matrix product and the SIMD peak probe (layout: see matmul-scalar.as.ts), shared by the
// blocked module (matmul-blocked.as.ts, all columns) and the threaded one (matmul-blocked-threads.as.ts, the panels
// of columns each worker claims). Not a module of its own: scripts/build-wasm.ts builds only the files it lists.
//
// Every module that imports this file is built twice: with --enable simd (a multiply then an add, f64x2.mul and
// f64x2.add) and with --enable simd,relaxed-simd (one f64x2.relaxed_madd, which V8 compiles to a fused multiply-add
// where the CPU has one). ASC_FEATURE_RELAXED_SIMD is asc's compile-time flag for the second build; the page picks the
// build by validating a tiny relaxed-SIMD module (labs/native-kernel.ts, hasRelaxedSimd).

/**
 * C tile rows and columns held in registers: 6 x 4 doubles = 12 f64x2 accumulators, with 2 vectors of B and 1 of A
 * 15 of the 16 vector registers x86-64 has. A 4 x 4 tile (8 accumulators) ran about 15% slower fused (Node 24 on the
 * course's Xeon VM, 2026-12-06, best of 6 x 9 samples), and as fast with a multiply then an add, which the arithmetic
 * units limit either way.
 */
const MR = 6;
const NR = 4;

/** a * b + c on both lanes: fused where the build has relaxed SIMD (rounded once or twice, as the CPU does it). */
// @ts-ignore: decorator
@inline function madd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f64x2.relaxed_madd(a, b, c);
  return f64x2.add(f64x2.mul(a, b), c);
}

/** Bytes of the packed panel of B one caller needs: n rows of NR doubles. */
export function packBytes(n: i32): usize {
  return <usize>n * NR * 8;
}

/**
 * Columns j0..j1-1 of C = A * B, every row (j0 a multiple of NR). For each panel of NR columns of B, copied once into `pack` (n x NR doubles, one
 * 32-byte row per k, so the panel streams through the L1 cache with unit stride instead of one cache line per k at
 * a stride of n doubles, where a power-of-two n maps every line to the same few cache sets), every MR x NR tile of C
 * is summed in 12 registers over the whole k loop and stored once: per k, 2 loads of B and 6 broadcasts of A feed 12
 * multiply-adds (48 flop), where the SIMD loop (simd-rows.as.ts) loads and stores C for every 4 flop.
 * Each element's terms are added in k order from zero, as in the typed-array reference: with the plain multiply and
 * add the result is the reference's to the last bit; fused, it differs by rounding only.
 * Rows past the last whole tile take a one-row SIMD loop over the same panel; columns past the last whole panel (n
 * not a multiple of 4) a scalar loop; both add in the same order.
 */
export function matmulBlockedColumns(n: i32, j0: i32, j1: i32, pack: usize): void {
  const first = 0;
  const last = n;
  const nn = <usize>n * <usize>n;
  const a: usize = 0;
  const b: usize = nn << 3;
  const c: usize = nn << 4;
  const rowBytes = <usize>n << 3;
  const fullCols = n - (n % NR);
  const fullRowsEnd = first + ((last - first) / MR) * MR;
  const panelsEnd = min(j1, fullCols);
  for (let jt = j0; jt + NR <= panelsEnd; jt += NR) {
    // Pack B[:, jt..jt+3] as n rows of 4 doubles.
    for (let k = 0; k < n; k++) {
      const from = b + <usize>k * rowBytes + (<usize>jt << 3);
      const to = pack + (<usize>k << 5);
      v128.store(to, v128.load(from));
      v128.store(to, v128.load(from, 16), 16);
    }
    for (let i = first; i < fullRowsEnd; i += MR) {
      let c00 = f64x2.splat(0.0), c01 = f64x2.splat(0.0);
      let c10 = f64x2.splat(0.0), c11 = f64x2.splat(0.0);
      let c20 = f64x2.splat(0.0), c21 = f64x2.splat(0.0);
      let c30 = f64x2.splat(0.0), c31 = f64x2.splat(0.0);
      let c40 = f64x2.splat(0.0), c41 = f64x2.splat(0.0);
      let c50 = f64x2.splat(0.0), c51 = f64x2.splat(0.0);
      let a0 = a + <usize>i * rowBytes;
      const end = a0 + rowBytes;
      let p = pack;
      for (; a0 < end; a0 += 8, p += 32) {
        const b0 = v128.load(p);
        const b1 = v128.load(p, 16);
        const x0 = v128.load64_splat(a0);
        c00 = madd(x0, b0, c00);
        c01 = madd(x0, b1, c01);
        const x1 = v128.load64_splat(a0 + rowBytes);
        c10 = madd(x1, b0, c10);
        c11 = madd(x1, b1, c11);
        const x2 = v128.load64_splat(a0 + 2 * rowBytes);
        c20 = madd(x2, b0, c20);
        c21 = madd(x2, b1, c21);
        const x3 = v128.load64_splat(a0 + 3 * rowBytes);
        c30 = madd(x3, b0, c30);
        c31 = madd(x3, b1, c31);
        const x4 = v128.load64_splat(a0 + 4 * rowBytes);
        c40 = madd(x4, b0, c40);
        c41 = madd(x4, b1, c41);
        const x5 = v128.load64_splat(a0 + 5 * rowBytes);
        c50 = madd(x5, b0, c50);
        c51 = madd(x5, b1, c51);
      }
      const at = c + <usize>i * rowBytes + (<usize>jt << 3);
      v128.store(at, c00);
      v128.store(at, c01, 16);
      v128.store(at + rowBytes, c10);
      v128.store(at + rowBytes, c11, 16);
      v128.store(at + 2 * rowBytes, c20);
      v128.store(at + 2 * rowBytes, c21, 16);
      v128.store(at + 3 * rowBytes, c30);
      v128.store(at + 3 * rowBytes, c31, 16);
      v128.store(at + 4 * rowBytes, c40);
      v128.store(at + 4 * rowBytes, c41, 16);
      v128.store(at + 5 * rowBytes, c50);
      v128.store(at + 5 * rowBytes, c51, 16);
    }
    // The rows past the last whole tile (n - first not a multiple of 6): one row of the panel at a time, same order.
    for (let i = fullRowsEnd; i < last; i++) {
      let c00 = f64x2.splat(0.0), c01 = f64x2.splat(0.0);
      let a0 = a + <usize>i * rowBytes;
      const end = a0 + rowBytes;
      let p = pack;
      for (; a0 < end; a0 += 8, p += 32) {
        const x0 = v128.load64_splat(a0);
        c00 = madd(x0, v128.load(p), c00);
        c01 = madd(x0, v128.load(p, 16), c01);
      }
      const at = c + <usize>i * rowBytes + (<usize>jt << 3);
      v128.store(at, c00);
      v128.store(at, c01, 16);
    }
  }
  // Edge: the columns past the last whole panel (n not a multiple of 4), every row, scalar in the same order.
  for (let i = first; i < last; i++) {
    for (let j = max(j0, fullCols); j < j1; j++) {
      let sum = 0.0;
      for (let k = 0; k < n; k++) sum += load<f64>(a + <usize>i * rowBytes + (<usize>k << 3)) * load<f64>(b + <usize>k * rowBytes + (<usize>j << 3));
      store<f64>(c + <usize>i * rowBytes + (<usize>j << 3), sum);
    }
  }
}

/**
 * The SIMD peak probe: `steps` rounds of 12 independent multiply-adds on f64x2 vectors (acc = acc * x + y), with
 * nothing loaded or stored, so only the arithmetic units limit it: 12 chains cover the latency of a multiply-add
 * (about 4 cycles) on two or three units, and 12 accumulators with x and y are 14 of the 16 vector registers x86-64
 * has (more spill to memory; fewer measured lower on the course's machine: 8 gave about 80% of 12's rate). Each
 * round is 12 x 2 lanes x 2 flop = 48 flop. x and y are arguments, not constants: a constant folded into every
 * multiply-add is rematerialised by V8 for each one, which measured a quarter of this rate. With 0 < x < 1 the
 * accumulators converge to y / (1 - x) and never overflow; the returned sum keeps the work from being optimised away.
 */
export function simdPeak(steps: i32, xs: f64, ys: f64): f64 {
  const x = f64x2.splat(xs);
  const y = f64x2.splat(ys);
  let s0 = f64x2.splat(0.0), s1 = f64x2.splat(ys), s2 = f64x2.splat(2 * ys), s3 = f64x2.splat(3 * ys);
  let s4 = f64x2.splat(4 * ys), s5 = f64x2.splat(5 * ys), s6 = f64x2.splat(6 * ys), s7 = f64x2.splat(7 * ys);
  let s8 = f64x2.splat(8 * ys), s9 = f64x2.splat(9 * ys), s10 = f64x2.splat(10 * ys), s11 = f64x2.splat(11 * ys);
  for (let s = 0; s < steps; s++) {
    s0 = madd(s0, x, y);
    s1 = madd(s1, x, y);
    s2 = madd(s2, x, y);
    s3 = madd(s3, x, y);
    s4 = madd(s4, x, y);
    s5 = madd(s5, x, y);
    s6 = madd(s6, x, y);
    s7 = madd(s7, x, y);
    s8 = madd(s8, x, y);
    s9 = madd(s9, x, y);
    s10 = madd(s10, x, y);
    s11 = madd(s11, x, y);
  }
  const t = f64x2.add(f64x2.add(f64x2.add(s0, s1), f64x2.add(s2, s3)), f64x2.add(f64x2.add(s4, s5), f64x2.add(s6, s7)));
  const u = f64x2.add(t, f64x2.add(f64x2.add(s8, s9), f64x2.add(s10, s11)));
  return f64x2.extract_lane(u, 0) + f64x2.extract_lane(u, 1);
}

/** Flop of one step of simdPeak: 12 accumulators x 2 lanes x a multiply and an add. */
export const PEAK_FLOP_PER_STEP: i32 = 48;
