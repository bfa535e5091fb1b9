// The matrix-product loop the native rungs run. Write it here, then rebuild and run the lab:
//   npm run build -w labs/native-kernel
//   npm run lab -- native-kernel
// Built into every native rung by labs/native-kernel/binding.gyp. The episode (episodes/04-native-kernel.mdx)
// explains the loop order; labs/native-kernel/src/ts-kernels.ts (matmulTyped) is the same loop in TypeScript.
#include <stdexcept>

#include "kernel.h"

namespace kernel {

void matmul_rows(const double* a, const double* b, double* c, std::size_t n, std::size_t row_begin,
                 std::size_t row_end) {
  // TODO(learner): for every row i in [row_begin, row_end), set c[i*n + j] = sum over k of a[i*n + k] * b[k*n + j].
  // Zero the row of c first, then loop k outside j so the innermost loop walks b and c with unit stride
  // (that is what lets -O3 vectorise it). Delete the throw below when you are done.
  (void)a, (void)b, (void)c, (void)n, (void)row_begin, (void)row_end;
  throw std::logic_error(
      "not implemented: the matrix-product loop matmul_rows in exercises/native-kernel/kernel.cc; "
      "then rebuild with `npm run build -w labs/native-kernel`");
}

}  // namespace kernel
