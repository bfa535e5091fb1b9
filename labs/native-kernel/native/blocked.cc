#include "blocked.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace kernel {
namespace {

#if defined(__GNUC__)
// GCC/Clang vector extensions: 8 doubles, one 512-bit register with AVX-512F, two 256-bit ones with AVX2, four SSE2
// ones otherwise; aligned(8) so loads from packed buffers need no 64-byte alignment.
typedef double Vec8 __attribute__((vector_size(64), aligned(8)));
constexpr std::size_t kLanes = 8;
#endif

// Copies rows [i0, i0 + mc) x columns [k0, k0 + kc) of A into panels of kMr rows, k-major inside a panel
// (panel[k * kMr + r]); rows past the edge are zero, so the micro-kernel never branches on them.
void pack_a(const double* a, std::size_t n, std::size_t i0, std::size_t mc, std::size_t k0, std::size_t kc,
            double* out) {
  for (std::size_t ir = 0; ir < mc; ir += kMr) {
    const std::size_t mr = std::min(kMr, mc - ir);
    for (std::size_t k = 0; k < kc; ++k) {
      for (std::size_t r = 0; r < kMr; ++r) *out++ = r < mr ? a[(i0 + ir + r) * n + k0 + k] : 0.0;
    }
  }
}

// Copies rows [k0, k0 + kc) x columns [j0, j0 + nc) of B into panels of kNr columns (panel[k * kNr + j]), zero-padded.
void pack_b(const double* b, std::size_t n, std::size_t k0, std::size_t kc, std::size_t j0, std::size_t nc,
            double* out) {
  for (std::size_t jr = 0; jr < nc; jr += kNr) {
    const std::size_t nr = std::min(kNr, nc - jr);
    for (std::size_t k = 0; k < kc; ++k) {
      const double* row = b + (k0 + k) * n + j0 + jr;
      for (std::size_t j = 0; j < kNr; ++j) *out++ = j < nr ? row[j] : 0.0;
    }
  }
}

// tile (kMr x kNr, row-major) = sum over k of a_panel[k] (kMr values) x b_panel[k] (kNr values), from zero.
void micro_kernel(std::size_t kc, const double* a_panel, const double* b_panel, double* tile) {
#if defined(__GNUC__)
  static_assert(kNr == 2 * kLanes, "the micro-kernel holds a tile row in two vectors");
  Vec8 acc[kMr][2];
  for (std::size_t r = 0; r < kMr; ++r) acc[r][0] = acc[r][1] = Vec8{};
  for (std::size_t k = 0; k < kc; ++k) {
    const Vec8 b0 = *reinterpret_cast<const Vec8*>(b_panel + k * kNr);
    const Vec8 b1 = *reinterpret_cast<const Vec8*>(b_panel + k * kNr + kLanes);
    for (std::size_t r = 0; r < kMr; ++r) {
      const double x = a_panel[k * kMr + r];
      acc[r][0] += x * b0;
      acc[r][1] += x * b1;
    }
  }
  for (std::size_t r = 0; r < kMr; ++r) {
    std::memcpy(tile + r * kNr, &acc[r][0], sizeof(Vec8));
    std::memcpy(tile + r * kNr + kLanes, &acc[r][1], sizeof(Vec8));
  }
#else
  // Portable fallback: the same order, in arrays the compiler may vectorise.
  double acc[kMr][kNr] = {};
  for (std::size_t k = 0; k < kc; ++k) {
    for (std::size_t r = 0; r < kMr; ++r) {
      const double x = a_panel[k * kMr + r];
      for (std::size_t j = 0; j < kNr; ++j) acc[r][j] += x * b_panel[k * kNr + j];
    }
  }
  std::memcpy(tile, acc, sizeof(acc));
#endif
}

}  // namespace

void matmul_blocked_rows(const double* a, const double* b, double* c, std::size_t n, std::size_t row_begin,
                         std::size_t row_end) {
  for (std::size_t i = row_begin; i < row_end; ++i) std::fill(c + i * n, c + (i + 1) * n, 0.0);
  if (row_begin >= row_end) return;
  // Per-thread packing buffers, kept between calls: no allocation (and no page faults) after the first call.
  thread_local std::vector<double> packed_a, packed_b;
  const std::size_t rows = row_end - row_begin;
  packed_a.resize(((std::min(kMc, rows) + kMr - 1) / kMr) * kMr * kKc);
  packed_b.resize(((std::min(kNc, n) + kNr - 1) / kNr) * kNr * kKc);
  alignas(64) double tile[kMr * kNr];
  for (std::size_t j0 = 0; j0 < n; j0 += kNc) {
    const std::size_t nc = std::min(kNc, n - j0);
    for (std::size_t k0 = 0; k0 < n; k0 += kKc) {
      const std::size_t kc = std::min(kKc, n - k0);
      pack_b(b, n, k0, kc, j0, nc, packed_b.data());
      for (std::size_t i0 = row_begin; i0 < row_end; i0 += kMc) {
        const std::size_t mc = std::min(kMc, row_end - i0);
        pack_a(a, n, i0, mc, k0, kc, packed_a.data());
        for (std::size_t jr = 0; jr < nc; jr += kNr) {
          const std::size_t nr = std::min(kNr, nc - jr);
          for (std::size_t ir = 0; ir < mc; ir += kMr) {
            const std::size_t mr = std::min(kMr, mc - ir);
            micro_kernel(kc, packed_a.data() + ir * kc, packed_b.data() + jr * kc, tile);
            for (std::size_t r = 0; r < mr; ++r) {
              double* row = c + (i0 + ir + r) * n + j0 + jr;
              const double* t = tile + r * kNr;
              for (std::size_t j = 0; j < nr; ++j) row[j] += t[j];
            }
          }
        }
      }
    }
  }
}

}  // namespace kernel
