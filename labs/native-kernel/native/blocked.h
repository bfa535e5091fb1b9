// The blocked rung: a cache-blocked, register-tiled matrix product, reference code (not the learner's kernel.cc).
// Plain C++, no napi.h.
#pragma once

#include <cstddef>

namespace kernel {

// Block sizes (doubles), after Goto and van de Geijn, "Anatomy of high-performance matrix multiplication" (2008):
// a kKc x kNr panel of B (24 KiB) stays in a 32 KiB L1 data cache while a kMr x kNr tile of C stays in registers;
// a kMc x kKc block of A (144 KiB) stays in L2. kMr x kNr = 6 x 16 doubles is 12 512-bit accumulators (of 32
// registers with AVX-512; on AVX2 the compiler splits each into two 256-bit halves, and some spill).
constexpr std::size_t kMr = 6;
constexpr std::size_t kNr = 16;
constexpr std::size_t kKc = 192;
constexpr std::size_t kMc = 96;
constexpr std::size_t kNc = 2048;

// C = A * B, all n x n, row-major, doubles; rows [row_begin, row_end) of c only (threads may split the rows).
// Summation order of each element: k in blocks of kKc; inside a block, k = k0..k0+kKc-1 accumulated (with FMAs
// where the CPU has them) from zero in a register; each block's sum then added to c in block order.
// Preconditions as kernel::matmul_rows (checked by binding.cc).
void matmul_blocked_rows(const double* a, const double* b, double* c, std::size_t n, std::size_t row_begin,
                         std::size_t row_end);

}  // namespace kernel
