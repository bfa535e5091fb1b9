#include "threads.h"

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "kernel.h"

namespace kernel {

void matmul_parallel(const double* a, const double* b, double* c, std::size_t n, unsigned threads) {
  if (threads < 1) threads = 1;
  if (threads > n) threads = static_cast<unsigned>(n);  // never a thread with no rows

  std::exception_ptr first_error;
  std::mutex error_mutex;
  // Block t gets rows [n*t/threads, n*(t+1)/threads): sizes differ by at most one row.
  auto run_block = [&](unsigned t) {
    try {
      matmul_rows(a, b, c, n, n * t / threads, n * (t + 1) / threads);
    } catch (...) {
      // An exception must never leave a std::thread (that calls std::terminate): keep it for the caller.
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };

  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) workers.emplace_back(run_block, t);
  run_block(0);
  for (auto& worker : workers) worker.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace kernel
