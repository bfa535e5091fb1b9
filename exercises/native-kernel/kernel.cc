// The matrix-product loop the native rungs run. Write it here, then rebuild and run the lab:
//   npm run build -w labs/native-kernel
//   npm run lab -- native-kernel
// Built into the native rungs -O0, -O3 and -march=native by labs/native-kernel/binding.gyp (blocked.cc is built
// apart). The episode (episodes/07-native-kernel.mdx) explains what the compiler needs to vectorise a loop;
// labs/native-kernel/src/ts-kernels.ts holds the TypeScript rungs your loop races against.
#include "kernel.h"
#include "not-implemented.h"

namespace kernel {

void matmul_rows(const double* a, const double* b, double* c, std::size_t n, std::size_t row_begin,
                 std::size_t row_end) {
  // TODO(learner): set rows row_begin .. row_end - 1 of C = A x B (all n x n, row-major: a[i*n + k] is row i,
  // column k of A), and leave every other row of c alone: the threads rung gives each thread its own block of rows.
  // Constraints: each element of C must match the expected product up to rounding (the check's tolerance is in the
  // episode), and the loop must be fast at -O3: the three loops can nest in several orders, and only some give the
  // compiler an innermost loop of independent updates of consecutive memory. The order, and whether to block the
  // loops for the cache, are yours to choose and to measure. Delete the not_implemented call below when you are done.
  (void)a, (void)b, (void)c, (void)n, (void)row_begin, (void)row_end;
  not_implemented("the matrix-product loop matmul_rows in exercises/native-kernel/kernel.cc");
}

}  // namespace kernel
