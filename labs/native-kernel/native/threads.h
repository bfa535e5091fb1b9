// Splitting work across std::threads. Plain C++ (no napi.h): binding.cc calls it from an AsyncWorker.
#pragma once

#include <cstddef>
#include <functional>

namespace kernel {

// Runs block(0) .. block(threads - 1), block 0 on the calling thread and each other block on a new std::thread.
// A block whose thread cannot be started (std::system_error: a process or memory limit) runs on the calling thread
// instead, so the work is always done. Exceptions thrown by a block are caught on its thread (one escaping a
// std::thread would call std::terminate and end the process) and the first is rethrown here after every thread
// has joined.
void run_on_threads(unsigned threads, const std::function<void(unsigned)>& block);

// C = A * B with the rows split into `threads` contiguous blocks (sizes differ by at most one row), one per thread;
// `threads` = 1 starts no thread. At most n threads: a thread with no rows would only cost its start-up.
void matmul_parallel(const double* a, const double* b, double* c, std::size_t n, unsigned threads);

}  // namespace kernel
