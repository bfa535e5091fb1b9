// Splitting work across std::threads. Plain C++ (no napi.h): binding.cc calls it from an AsyncWorker.
#pragma once

#include <cstddef>
#include <functional>

namespace kernel {

// Runs block(0) .. block(threads - 1) at once: the calling thread and up to one helper per further CPU from a
// persistent pool (started on first use, asleep between calls) take the blocks. `threads` = 1 runs block 0 here,
// with no handoff. A helper that cannot be started (std::system_error) is simply not used. Exceptions thrown by a
// block are caught on its thread (one escaping a thread would call std::terminate and end the process) and the
// first is rethrown here after every block has finished.
void run_on_threads(unsigned threads, const std::function<void(unsigned)>& block);

// C = A * B with the rows split into `threads` contiguous blocks (sizes differ by at most one row), run by
// run_on_threads. At most n threads: a thread with no rows would only cost its start-up.
void matmul_parallel(const double* a, const double* b, double* c, std::size_t n, unsigned threads);

}  // namespace kernel
