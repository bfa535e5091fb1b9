// The contract between the addon and the learner's kernel: one function, plain C++, no napi.h.
// solutions/native-kernel/kernel.cc implements it; exercises/native-kernel/kernel.cc is the learner's copy.
#pragma once

#include <cstddef>

namespace kernel {

// Rows [row_begin, row_end) of the matrix product C = A * B, all n x n, row-major, doubles.
// Only those rows of c are written, so threads can split the rows between them.
// Preconditions (checked by binding.cc, not here): each pointer holds n*n doubles, c overlaps neither a nor b,
// row_begin <= row_end <= n.
void matmul_rows(const double* a, const double* b, double* c, std::size_t n, std::size_t row_begin,
                 std::size_t row_end);

}  // namespace kernel
