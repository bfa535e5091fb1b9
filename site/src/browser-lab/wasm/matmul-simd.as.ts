// The SIMD rung of the matrix product (see matmul-scalar.as.ts for the layout): built with --enable simd into its own
// module, so a browser without WebAssembly SIMD still runs the scalar module and is told why this one is off.
export { reserve } from './matmul-scalar.as';
import { matmulSimdRows } from './simd-rows.as';

/** SIMD rung: two doubles per instruction (f64x2), the same multiply then add per element (no fused multiply-add). */
export function matmulSimd(n: i32): void {
  matmulSimdRows(n, 0, n);
}
