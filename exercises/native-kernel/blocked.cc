// The blocked kernel the native-blocked rungs run. Write it here, then rebuild and run the lab:
//   npm run build -w labs/native-kernel
//   npm run lab -- native-kernel
// Built into a module of its own (exercise_blocked, -O3 -march=native) by labs/native-kernel/binding.gyp, apart from
// kernel.cc: a compile error here fails only native-blocked's check (native-blocked-threads is not measured; the
// build and the lab name this file and the compiler's first error), and the kernel.cc rungs still run.
// The given parts are in labs/native-kernel/native/blocked-parts.h: read what each one packs, computes or adds, and
// where its data lives. The episode (episodes/07-native-kernel.mdx, "Up the ladder: blocking, and the library")
// explains what each level of blocking keeps in which cache.
#include <algorithm>

#include "blocked-parts.h"
#include "blocked.h"
#include "not-implemented.h"

namespace kernel {
namespace {

// TODO(learner): choose the block sizes, in doubles: k in blocks of kKc, rows of C in blocks of kMc, columns of C in
// blocks of kNc. Each must be at least 1 (the build checks). Work out, for your CPU's caches (lscpu), which packed
// block should stay in which cache, then measure. `--grade` judges native-blocked at the largest size the run measures
// (n = 1024; 512 in a quick run); this exercise is optional: while the not_implemented call below is here, the grade
// lists it as not attempted and judges kernel.cc alone.
constexpr std::size_t kKc = 1;
constexpr std::size_t kMc = 1;
constexpr std::size_t kNc = 1;

}  // namespace

void matmul_blocked_rows(const double* a, const double* b, double* c, std::size_t n, std::size_t row_begin,
                         std::size_t row_end) {
  // TODO(learner): set rows row_begin .. row_end - 1 of C = A x B (all n x n, row-major), leaving every other row of
  // c alone (the threads rung gives each thread its own rows), from the given parts: zero_rows, packed_a_buffer,
  // packed_b_buffer, pack_a, pack_b, micro_kernel, add_tile. Five loops: over blocks of columns (kNc), of k (kKc)
  // and of rows (kMc), then over the kNr-column panels and the kMr-row panels inside a block, with a micro-kernel
  // call and add_tile in the innermost. Their order is yours to choose: it decides how often each block is packed
  // and which packed data each cache must hold. Mind the edges (n need not be a multiple of any block size).
  // Delete the not_implemented call below when you are done.
  (void)a, (void)b, (void)c, (void)n, (void)row_begin, (void)row_end;
  not_implemented("the blocked kernel matmul_blocked_rows in exercises/native-kernel/blocked.cc");
}

}  // namespace kernel
