// The given parts of the blocked rung: packing and the register-tile micro-kernel, reference code shared by every
// module. The learner's blocked.cc (exercises/ or solutions/native-kernel/blocked.cc, contract in blocked.h) chooses
// the block sizes and writes the loop nest that calls these. Plain C++, no napi.h.
//
// After Goto and van de Geijn, "Anatomy of high-performance matrix multiplication" (ACM TOMS 34(3), 2008): C is
// computed in kMr x kNr tiles held in vector registers; the micro-kernel reads A and B from packed panels, copies in
// which every value it needs next is at the next address.
#pragma once

#include <cstddef>
#include <cstring>

namespace kernel {

// The register tile, fixed by micro_kernel: kMr x kNr = 6 x 16 doubles is 12 512-bit accumulators (of 32 registers
// with AVX-512; on AVX2 the compiler splits each into two 256-bit halves, and some spill).
constexpr std::size_t kMr = 6;
constexpr std::size_t kNr = 16;

// Sets rows [row_begin, row_end) of c (n x n, row-major) to zero.
void zero_rows(double* c, std::size_t n, std::size_t row_begin, std::size_t row_end);

// Per-thread scratch space for packed panels, kept between calls (no allocation, no page faults after the first
// call with a given size): room for pack_a(..., mc, ..., kc, ...) and pack_b(..., kc, ..., nc, ...). A later call
// on the same thread may move the buffer: ask again at the start of each product, not inside the loops.
double* packed_a_buffer(std::size_t mc, std::size_t kc);
double* packed_b_buffer(std::size_t kc, std::size_t nc);

// Packs the mc x kc block of A at rows [i0, i0 + mc), columns [k0, k0 + kc) into ceil(mc / kMr) panels of kMr rows,
// each kc * kMr doubles, k-major inside a panel (panel[k * kMr + r]); rows past mc are zero. The panel of rows
// [i0 + ir, i0 + ir + kMr) starts at out + ir * kc (ir a multiple of kMr).
void pack_a(const double* a, std::size_t n, std::size_t i0, std::size_t mc, std::size_t k0, std::size_t kc,
            double* out);

// Packs the kc x nc block of B at rows [k0, k0 + kc), columns [j0, j0 + nc) into ceil(nc / kNr) panels of kNr
// columns, each kc * kNr doubles (panel[k * kNr + j]); columns past nc are zero. The panel of columns
// [j0 + jr, j0 + jr + kNr) starts at out + jr * kc (jr a multiple of kNr).
void pack_b(const double* b, std::size_t n, std::size_t k0, std::size_t kc, std::size_t j0, std::size_t nc,
            double* out);

// The two parts every tile calls are inline, defined here: compiled into the learner's blocked.cc with its flags,
// the compiler can inline them into the loop nest, as it did when they were one file.
namespace detail {
#if defined(__GNUC__)
// GCC/Clang vector extensions: 8 doubles, one 512-bit register with AVX-512F, two 256-bit ones with AVX2, four SSE2
// ones otherwise; aligned(8) so loads from packed buffers need no 64-byte alignment.
typedef double Vec8 __attribute__((vector_size(64), aligned(8)));
constexpr std::size_t kLanes = 8;
#endif
}  // namespace detail

// tile (kMr x kNr, row-major) = the product of one packed panel of A (kMr rows) and one of B (kNr columns) over
// their kc values of k, summed from zero in registers: for each element, k = 0..kc-1 in order (FMAs where the CPU
// has them). Overwrites the whole tile.
inline void micro_kernel(std::size_t kc, const double* a_panel, const double* b_panel, double* tile) {
#if defined(__GNUC__)
  static_assert(kNr == 2 * detail::kLanes, "the micro-kernel holds a tile row in two vectors");
  detail::Vec8 acc[kMr][2];
  for (std::size_t r = 0; r < kMr; ++r) acc[r][0] = acc[r][1] = detail::Vec8{};
  for (std::size_t k = 0; k < kc; ++k) {
    const detail::Vec8 b0 = *reinterpret_cast<const detail::Vec8*>(b_panel + k * kNr);
    const detail::Vec8 b1 = *reinterpret_cast<const detail::Vec8*>(b_panel + k * kNr + detail::kLanes);
    for (std::size_t r = 0; r < kMr; ++r) {
      const double x = a_panel[k * kMr + r];
      acc[r][0] += x * b0;
      acc[r][1] += x * b1;
    }
  }
  for (std::size_t r = 0; r < kMr; ++r) {
    std::memcpy(tile + r * kNr, &acc[r][0], sizeof(detail::Vec8));
    std::memcpy(tile + r * kNr + detail::kLanes, &acc[r][1], sizeof(detail::Vec8));
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

// c[i + r][j + s] += tile[r * kNr + s] for r < mr, s < nr (mr <= kMr, nr <= kNr: a tile at C's edge is cut).
inline void add_tile(const double* tile, double* c, std::size_t n, std::size_t i, std::size_t j, std::size_t mr,
                     std::size_t nr) {
  for (std::size_t r = 0; r < mr; ++r) {
    double* row = c + (i + r) * n + j;
    const double* t = tile + r * kNr;
    for (std::size_t s = 0; s < nr; ++s) row[s] += t[s];
  }
}

}  // namespace kernel
