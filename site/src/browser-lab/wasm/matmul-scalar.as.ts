// The matrix product C = A * B for n x n row-major matrices of doubles, in AssemblyScript (TypeScript syntax,
// compiled to WebAssembly by `npm run build:wasm -w site`). Same i-k-j loop as the lab's typed-array rung
// (labs/native-kernel/src/ts-kernels.ts), so every element sums its k terms in the same order.
// The caller writes A at offset 0, B at n*n*8 and reads C at 2*n*n*8 of this module's memory (grown by `reserve`).

/** Grows memory so three n x n matrices of doubles fit from address 0; returns false when it cannot. */
export function reserve(n: i32): bool {
  const bytes = <i64>n * <i64>n * 8 * 3;
  const pages = <i32>((bytes + 65535) >> 16);
  const have = memory.size();
  if (pages <= have) return true;
  return memory.grow(pages - have) >= 0;
}

/** Scalar rung: one double at a time. */
export function matmul(n: i32): void {
  const nn = <usize>n * <usize>n;
  const a: usize = 0;
  const b: usize = nn << 3;
  const c: usize = nn << 4;
  for (let i = 0; i < n; i++) {
    const row = <usize>i * <usize>n;
    for (let j = 0; j < n; j++) store<f64>(c + ((row + <usize>j) << 3), 0.0);
    for (let k = 0; k < n; k++) {
      const aik = load<f64>(a + ((row + <usize>k) << 3));
      const bRow = <usize>k * <usize>n;
      for (let j = 0; j < n; j++) {
        const at = c + ((row + <usize>j) << 3);
        store<f64>(at, load<f64>(at) + aik * load<f64>(b + ((bRow + <usize>j) << 3)));
      }
    }
  }
}
