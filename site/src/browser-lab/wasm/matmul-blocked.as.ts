// The register-blocked SIMD rung of the matrix product and the SIMD peak probe (see simd-blocked.as.ts; layout: see
// matmul-scalar.as.ts, with B's packed panel after C at 3*n*n*8). Built twice by scripts/build-wasm.ts: plain SIMD
// (matmul-blocked.wasm, multiply then add) and relaxed SIMD (matmul-blocked-relaxed.wasm, fused multiply-add).
import { matmulBlockedColumns, packBytes } from './simd-blocked.as';
export { simdPeak, PEAK_FLOP_PER_STEP } from './simd-blocked.as';

/** Grows memory so three n x n matrices of doubles and one packed panel of B fit from address 0; false when it cannot. */
export function reserve(n: i32): bool {
  const bytes = <i64>n * <i64>n * 8 * 3 + <i64>packBytes(n);
  const pages = <i32>((bytes + 65535) >> 16);
  const have = memory.size();
  if (pages <= have) return true;
  return memory.grow(pages - have) >= 0;
}

/** The blocked rung: C = A * B, every column. */
export function matmulBlocked(n: i32): void {
  matmulBlockedColumns(n, 0, n, <usize>n * <usize>n * 24);
}
