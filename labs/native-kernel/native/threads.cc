#include "threads.h"

#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "kernel.h"

namespace kernel {

void run_on_threads(unsigned threads, const std::function<void(unsigned)>& block) {
  if (threads < 1) threads = 1;
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto guarded = [&](unsigned t) {
    try {
      block(t);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };

  std::vector<std::thread> workers;
  workers.reserve(threads - 1);  // no reallocation below, so emplace_back can only fail in std::thread itself
  unsigned next = 1;
  try {
    for (; next < threads; ++next) workers.emplace_back(guarded, next);
  } catch (const std::system_error&) {
    // Could not start more threads: blocks next.. run on this thread below.
  }
  guarded(0);
  for (unsigned t = next; t < threads; ++t) guarded(t);
  for (auto& worker : workers) worker.join();
  if (first_error) std::rethrow_exception(first_error);
}

void matmul_parallel(const double* a, const double* b, double* c, std::size_t n, unsigned threads) {
  if (threads < 1) threads = 1;
  if (threads > n) threads = static_cast<unsigned>(n);
  run_on_threads(threads, [=](unsigned t) { matmul_rows(a, b, c, n, n * t / threads, n * (t + 1) / threads); });
}

}  // namespace kernel
