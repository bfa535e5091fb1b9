#include "probe.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "threads.h"

namespace probe {
namespace {

constexpr std::size_t kAccumulators = 64;

// Keeps the result observable so the compiler cannot delete the loop.
volatile double g_sink = 0;

double fma_block(std::size_t iterations) {
  double acc[kAccumulators];
  for (std::size_t j = 0; j < kAccumulators; ++j) acc[j] = 1.0 + 1e-9 * static_cast<double>(j);
  // x*acc + y with |x| < 1 keeps every accumulator bounded, so no infinities or denormals slow it down.
  const double x = 0.999999, y = 1e-7;
  for (std::size_t i = 0; i < iterations; ++i) {
    for (std::size_t j = 0; j < kAccumulators; ++j) acc[j] = acc[j] * x + y;
  }
  double sum = 0;
  for (std::size_t j = 0; j < kAccumulators; ++j) sum += acc[j];
  return sum;
}

// Wall time of running fn(0) .. fn(threads - 1) at once, in seconds.
double seconds_on_threads(unsigned threads, const std::function<void(unsigned)>& fn) {
  auto start = std::chrono::steady_clock::now();
  kernel::run_on_threads(threads, threads, fn);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

double fma_peak(std::size_t iterations, unsigned threads) {
  std::vector<double> sums(std::max(threads, 1u));
  double seconds = seconds_on_threads(threads, [&](unsigned t) { sums[t] = fma_block(iterations); });
  for (double s : sums) g_sink = g_sink + s;
  const double flops = 2.0 * kAccumulators * static_cast<double>(iterations) * std::max(threads, 1u);
  return flops / seconds;
}

double triad_bandwidth(std::size_t elements, std::size_t repeats, unsigned threads) {
  if (threads < 1) threads = 1;
  std::vector<double> x(elements), y(elements, 1.0), z(elements, 2.0);
  const double s = 3.0;
  // First touch on the threads that will use each part, so pages are faulted in before timing (and, on
  // multi-socket machines, placed near those threads).
  seconds_on_threads(threads, [&](unsigned t) {
    std::size_t begin = elements * t / threads, end = elements * (t + 1) / threads;
    for (std::size_t i = begin; i < end; ++i) x[i] = 0.0;
  });
  double best = 1e300;
  for (std::size_t r = 0; r < std::max<std::size_t>(repeats, 1); ++r) {
    double seconds = seconds_on_threads(threads, [&](unsigned t) {
      std::size_t begin = elements * t / threads, end = elements * (t + 1) / threads;
      double* __restrict xp = x.data();
      const double* __restrict yp = y.data();
      const double* __restrict zp = z.data();
      for (std::size_t i = begin; i < end; ++i) xp[i] = yp[i] + s * zp[i];
    });
    best = std::min(best, seconds);
  }
  g_sink = g_sink + x[elements / 2];
  return 24.0 * static_cast<double>(elements) / best;
}

}  // namespace probe
