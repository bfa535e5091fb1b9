#include "stream.h"

#include <algorithm>
#include <cstring>

#include "threads.h"

namespace stream {

Chunk chunk_of(std::size_t length, unsigned t, unsigned threads) {
  if (threads < 1) threads = 1;
  // length * (t + 1) fits in 64 bits for any array that fits in memory (t < 256: binding.cc's limit).
  return Chunk{length * t / threads, length * (static_cast<std::size_t>(t) + 1) / threads};
}

void triad_range(double* a, const double* b, const double* c, double s, std::size_t begin, std::size_t end) {
  // __restrict: a overlaps neither b nor c (checked by the binding), so the compiler vectorises without run-time
  // overlap tests. b and c may be the same array; both are only read.
  double* __restrict ap = a;
  const double* bp = b;
  const double* cp = c;
  for (std::size_t i = begin; i < end; ++i) ap[i] = bp[i] + s * cp[i];
}

void first_touch(double* a, double* b, double* c, const double* b_source, const double* c_source, std::size_t length,
                 unsigned threads) {
  if (threads < 1) threads = 1;
  kernel::run_on_fixed_threads(threads, [=](unsigned t) {
    const Chunk k = chunk_of(length, t, threads);
    if (k.end <= k.begin) return;
    const std::size_t bytes = (k.end - k.begin) * sizeof(double);
    std::memcpy(b + k.begin, b_source + k.begin, bytes);
    std::memcpy(c + k.begin, c_source + k.begin, bytes);
    std::fill(a + k.begin, a + k.end, 0.0);
  });
}

void triad(double* a, const double* b, const double* c, double s, std::size_t length, unsigned threads) {
  if (threads < 1) threads = 1;
  kernel::run_on_fixed_threads(threads, [=](unsigned t) {
    const Chunk k = chunk_of(length, t, threads);
    triad_range(a, b, c, s, k.begin, k.end);
  });
}

}  // namespace stream
