// Splitting work across std::threads. Plain C++ (no napi.h): binding.cc calls it from an AsyncWorker.
#pragma once

#include <cstddef>
#include <functional>

namespace kernel {

// Runs block(0) .. block(blocks - 1) on at most `threads` threads: the calling thread and up to threads - 1
// helpers from a persistent pool (started on first use, polling briefly and then asleep between calls) take block
// indices until none are left. `threads` = 1 runs every block here, with no handoff. A helper that cannot be
// started (std::system_error) is simply not used. Exceptions thrown by a block are caught on its thread (one
// escaping a thread would call std::terminate and end the process) and the first is rethrown here after every
// block has finished.
void run_on_threads(unsigned threads, unsigned blocks, const std::function<void(unsigned)>& block);

// Runs block(0) .. block(threads - 1), each on its own thread, and always on the same one: block 0 on the calling
// thread, block t on the pool's helper number t (helpers are numbered as they start and live until the process
// exits). For work whose data placement must follow the thread (first touch, stream.h), where run_on_threads' shared
// counter would hand a block to whichever thread asks first. No load balancing: a helper that wakes late delays the
// whole call. Blocks with no helper (more threads than CPUs, or a helper that could not be started) run on the caller
// after block 0. Exceptions as in run_on_threads.
void run_on_fixed_threads(unsigned threads, const std::function<void(unsigned)>& block);

// A row kernel: rows [row_begin, row_end) of C = A * B, as kernel::matmul_rows (kernel.h) and
// kernel::matmul_blocked_rows (blocked.h). Passed in, not called by name, so this file links into a module that
// holds only one of them: kernel.cc and the optional blocked.cc are built into separate modules (binding.gyp).
using RowKernel = void (*)(const double* a, const double* b, double* c, std::size_t n, std::size_t row_begin,
                           std::size_t row_end);

// How matmul_parallel splits the rows. kFine: 8 blocks per thread, for a loop that costs the same per row whatever
// the block. kPacked: one block per thread (at least 96 rows each), for the blocked kernel, since every block packs
// all of B once: on one thread the call is then exactly the plain one (B packed once), and on t threads B is packed
// t times, once per thread, in parallel. Two blocks per thread (this lab until issue 47) packed B twice on one
// thread and gave n = 512 blocks of 128 rows, 96 + 32 in the reference's kMc, whose 32-row part reused each packed
// block of B for a third of the rows.
enum class Split { kFine, kPacked };

// C = A * B with the rows split into contiguous blocks (sizes differ by at most one row), each run by `rows`, on at
// most `threads` threads by run_on_threads. At most n threads: a thread with no rows would only cost its start-up.
void matmul_parallel(const double* a, const double* b, double* c, std::size_t n, unsigned threads, RowKernel rows,
                     Split split);

}  // namespace kernel
