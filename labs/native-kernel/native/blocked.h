// The contract between the addon and the learner's blocked kernel (the native-blocked rungs): one function, plain
// C++, no napi.h. solutions/native-kernel/blocked.cc implements it; exercises/native-kernel/blocked.cc is the
// learner's copy. Both build from the given parts in blocked-parts.h (packing, the micro-kernel) and choose
// their own loop order and block sizes: constants kKc, kMc and kNc in namespace kernel (doubles; each at least 1,
// checked at build time by blocked-sizes-check.h, since a block of 0 would never advance a loop).
#pragma once

#include <cstddef>

namespace kernel {

// C = A * B, all n x n, row-major, doubles; rows [row_begin, row_end) of c only (threads may split the rows).
// Summation order of each element, which the check's tolerance allows for any block size (src/tolerance.ts): k in
// blocks, each block summed from zero by micro_kernel, the block sums then added to c in increasing k.
// Preconditions as kernel::matmul_rows (checked by binding.cc).
void matmul_blocked_rows(const double* a, const double* b, double* c, std::size_t n, std::size_t row_begin,
                         std::size_t row_end);

}  // namespace kernel
