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

#if defined(__GNUC__)
// 8 doubles per vector (GCC/Clang vector extensions): one 512-bit register where the function is compiled for
// AVX-512F. Written with explicit vectors because gcc 12's -march=native prefers 256-bit vectors when it
// auto-vectorises a plain loop on recent Intel cores (-mprefer-vector-width=256): a scalar-array probe read 65
// Gflop/s on one core where 512-bit FMAs reach 115-119. Explicit vector types are not subject to that preference.
typedef double Vec8 __attribute__((vector_size(64), aligned(8)));
constexpr std::size_t kVectors = kAccumulators / 8;

// x*acc + y with |x| < 1 keeps every accumulator bounded, so no infinities or denormals slow it down.
#define PROBE_FMA_BODY                                                                 \
  Vec8 acc[kVectors];                                                                  \
  for (std::size_t j = 0; j < kVectors; ++j) acc[j] = Vec8{} + (1.0 + 1e-9 * static_cast<double>(j)); \
  const Vec8 x = Vec8{} + 0.999999, y = Vec8{} + 1e-7;                                 \
  for (std::size_t i = 0; i < iterations; ++i) {                                       \
    for (std::size_t j = 0; j < kVectors; ++j) acc[j] = acc[j] * x + y;                \
  }                                                                                    \
  double sum = 0;                                                                      \
  for (std::size_t j = 0; j < kVectors; ++j) {                                         \
    for (std::size_t l = 0; l < 8; ++l) sum += acc[j][l];                              \
  }                                                                                    \
  return sum;

// With the module's own flags (-march=native: the widest vectors this CPU has that the compiler enables).
double fma_block_native(std::size_t iterations) { PROBE_FMA_BODY }

#if defined(__x86_64__) && !defined(__AVX512F__)
// A build without AVX-512F (the -O3 rung) on a CPU that has it: the same loop compiled for AVX-512F, chosen at
// run time (__builtin_cpu_supports), so the peak is the machine's whichever module measures it.
#define PROBE_HAS_AVX512_CLONE 1
__attribute__((target("avx512f,fma"))) double fma_block_avx512(std::size_t iterations) { PROBE_FMA_BODY }
#endif

bool use_avx512_clone() {
#if defined(PROBE_HAS_AVX512_CLONE)
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
#else
  return false;
#endif
}

double fma_block(std::size_t iterations) {
#if defined(PROBE_HAS_AVX512_CLONE)
  if (use_avx512_clone()) return fma_block_avx512(iterations);
#endif
  return fma_block_native(iterations);
}
#else
// Portable fallback: independent accumulators in a plain array, vectorised as the compiler sees fit.
bool use_avx512_clone() { return false; }
double fma_block(std::size_t iterations) {
  double acc[kAccumulators];
  for (std::size_t j = 0; j < kAccumulators; ++j) acc[j] = 1.0 + 1e-9 * static_cast<double>(j);
  const double x = 0.999999, y = 1e-7;
  for (std::size_t i = 0; i < iterations; ++i) {
    for (std::size_t j = 0; j < kAccumulators; ++j) acc[j] = acc[j] * x + y;
  }
  double sum = 0;
  for (std::size_t j = 0; j < kAccumulators; ++j) sum += acc[j];
  return sum;
}
#endif

// Wall time of running fn(0) .. fn(threads - 1) at once, in seconds.
double seconds_on_threads(unsigned threads, const std::function<void(unsigned)>& fn) {
  auto start = std::chrono::steady_clock::now();
  kernel::run_on_threads(threads, threads, fn);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

const char* fma_vector_width() {
  if (use_avx512_clone()) return "512-bit FMA (AVX-512F, chosen at run time)";
#if defined(__AVX512F__)
  return "512-bit FMA (AVX-512F)";
#elif defined(__AVX__) && defined(__FMA__)
  return "256-bit FMA (AVX2/FMA3)";
#elif defined(__AVX__)
  return "256-bit multiply and add (AVX, no FMA)";
#elif defined(__aarch64__)
  return "128-bit FMA (NEON)";
#elif defined(__SSE2__)
  return "128-bit multiply and add (SSE2, no FMA)";
#else
  return "the compiler's choice (no vector extensions)";
#endif
}

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
