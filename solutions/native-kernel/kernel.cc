// The matrix-product loop the native rungs run: the same i-k-j loop as the typed-array TypeScript rung
// (labs/native-kernel/src/ts-kernels.ts: matmulTyped), so the rungs differ only in who compiles it.
// Built into the native rungs -O0, -O3 and -march=native by labs/native-kernel/binding.gyp (blocked.cc is built
// apart); rebuild with `npm run build -w labs/native-kernel`.
//
// Design task (episode 07, "loop order and blocking"): one good answer for n up to 256 is this i-k-j loop, without
// blocking. The order matters most: in a standalone test on the course machine (g++ 12.2, -O3 -march=native, n = 256)
// i-k-j took 2.05 ms and i-j-k 54.9 ms (a scalar chain of dependent adds down a column of B). Panels of 128 or 64
// columns of j gained nothing (1.99 and 2.61 ms): B is 512 KiB and fits in this CPU's 1 MiB L2, so its rows come
// back from L2 anyway. For large n, tile i and k as well, and measure.
#include "kernel.h"

namespace kernel {

void matmul_rows(const double* a, const double* b, double* c, std::size_t n, std::size_t row_begin,
                 std::size_t row_end) {
  for (std::size_t i = row_begin; i < row_end; ++i) {
    // __restrict promises the compiler that c_row overlaps neither a nor b (binding.cc checks it), so it may keep
    // values in registers and vectorise the j loop without run-time overlap tests.
    double* __restrict c_row = c + i * n;
    for (std::size_t j = 0; j < n; ++j) c_row[j] = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      const double a_ik = a[i * n + k];
      const double* __restrict b_row = b + k * n;
      // Unit stride in j over b_row and c_row: each iteration is independent, so -O3 turns this loop into SIMD
      // multiply-adds (2 doubles per instruction with SSE2, 4 with AVX2, 8 with AVX-512 under -march=native).
      for (std::size_t j = 0; j < n; ++j) c_row[j] += a_ik * b_row[j];
    }
  }
}

}  // namespace kernel
