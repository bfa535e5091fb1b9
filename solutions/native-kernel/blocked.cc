// The blocked kernel the native-blocked rungs run: block sizes and the loop nest over the given parts
// (labs/native-kernel/native/blocked-parts.h: packing, the 6 x 16 register-tile micro-kernel).
// Built into a module of its own (solution_blocked, -O3 -march=native) by labs/native-kernel/binding.gyp, apart from
// kernel.cc's rungs. Rebuild with `npm run build -w labs/native-kernel`.
//
// Design task (episode 07, "Write the blocked kernel"): the order of the five loops and the three block sizes.
// This answer is Goto and van de Geijn's, "Anatomy of high-performance matrix multiplication" (ACM TOMS 34(3),
// 2008): columns of C in blocks of kNc, k in blocks of kKc (pack that kKc x kNc block of B once), rows in blocks of
// kMc (pack that kMc x kKc block of A once), then every kNr-column panel of B against every kMr-row panel of A.
// The packed B panel used by one call of the micro-kernel (kKc x kNr doubles) is reused by every row panel of the
// A block, so it stays in the L1 cache; the packed A block (kMc x kKc) is reused by every column panel, so it stays
// in L2; the packed B block (kKc x kNc) is reused by every row block and streams from L3.
#include <algorithm>

#include "blocked-parts.h"
#include "blocked.h"

namespace kernel {
namespace {

// Block sizes in doubles, from typical cache sizes (the reference run's AMD EPYC VM: 32 KiB L1d, 1 MiB L2 per core):
// a kKc x kNr panel of B is 192 x 16 x 8 bytes = 24 KiB, inside a 32 KiB L1d beside a panel of A (9 KiB);
// a kMc x kKc block of A is 96 x 192 x 8 bytes = 144 KiB, well inside L2; kNc = 2048 covers n <= 2048 in one block.
constexpr std::size_t kKc = 192;
constexpr std::size_t kMc = 96;
constexpr std::size_t kNc = 2048;

}  // namespace

void matmul_blocked_rows(const double* a, const double* b, double* c, std::size_t n, std::size_t row_begin,
                         std::size_t row_end) {
  zero_rows(c, n, row_begin, row_end);
  if (row_begin >= row_end) return;
  double* packed_a = packed_a_buffer(std::min(kMc, row_end - row_begin), kKc);
  double* packed_b = packed_b_buffer(kKc, std::min(kNc, n));
  alignas(64) double tile[kMr * kNr];
  for (std::size_t j0 = 0; j0 < n; j0 += kNc) {
    const std::size_t nc = std::min(kNc, n - j0);
    for (std::size_t k0 = 0; k0 < n; k0 += kKc) {
      const std::size_t kc = std::min(kKc, n - k0);
      pack_b(b, n, k0, kc, j0, nc, packed_b);
      for (std::size_t i0 = row_begin; i0 < row_end; i0 += kMc) {
        const std::size_t mc = std::min(kMc, row_end - i0);
        pack_a(a, n, i0, mc, k0, kc, packed_a);
        for (std::size_t jr = 0; jr < nc; jr += kNr) {
          for (std::size_t ir = 0; ir < mc; ir += kMr) {
            micro_kernel(kc, packed_a + ir * kc, packed_b + jr * kc, tile);
            add_tile(tile, c, n, i0 + ir, j0 + jr, std::min(kMr, mc - ir), std::min(kNr, nc - jr));
          }
        }
      }
    }
  }
}

}  // namespace kernel
