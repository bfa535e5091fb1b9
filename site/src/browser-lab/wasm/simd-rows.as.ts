// The SIMD loop of the matrix product over a block of rows (layout: see matmul-scalar.as.ts), used by the SIMD module
// (matmul-simd.as.ts, all rows). Not a module of its own: scripts/build-wasm.ts builds only the files it lists.

/** Rows first..last-1 of C = A * B, the SIMD loop: for every k, C's row is loaded and stored again, 2 doubles at a time. */
export function matmulSimdRows(n: i32, first: i32, last: i32): void {
  const nn = <usize>n * <usize>n;
  const a: usize = 0;
  const b: usize = nn << 3;
  const c: usize = nn << 4;
  const pairs = n & ~1;
  for (let i = first; i < last; i++) {
    const row = <usize>i * <usize>n;
    for (let j = 0; j < n; j++) store<f64>(c + ((row + <usize>j) << 3), 0.0);
    for (let k = 0; k < n; k++) {
      const aik = load<f64>(a + ((row + <usize>k) << 3));
      const av = f64x2.splat(aik);
      const bRow = <usize>k * <usize>n;
      let j = 0;
      for (; j < pairs; j += 2) {
        const at = c + ((row + <usize>j) << 3);
        const prod = f64x2.mul(av, v128.load(b + ((bRow + <usize>j) << 3)));
        v128.store(at, f64x2.add(v128.load(at), prod));
      }
      for (; j < n; j++) {
        const at = c + ((row + <usize>j) << 3);
        store<f64>(at, load<f64>(at) + aik * load<f64>(b + ((bRow + <usize>j) << 3)));
      }
    }
  }
}
