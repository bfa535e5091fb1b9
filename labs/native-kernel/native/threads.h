// Splitting the matrix product across std::threads. Plain C++ (no napi.h): binding.cc calls it from an AsyncWorker.
#pragma once

#include <cstddef>

namespace kernel {

// C = A * B with the rows split into `threads` contiguous blocks, one per thread; the calling thread does the
// first block itself, so `threads` = 1 starts no thread. Exceptions thrown by a block (e.g. "not implemented: ...")
// are caught on their thread and the first one is rethrown here after every thread has joined.
void matmul_parallel(const double* a, const double* b, double* c, std::size_t n, unsigned threads);

}  // namespace kernel
