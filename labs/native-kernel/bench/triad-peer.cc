// The C++ peer of the lab's triad rung (bench/triad-peer.ts): a STREAM-style triad a[i] = b[i] + s * c[i]
// (J. D. McCalpin, STREAM, https://www.cs.virginia.edu/stream/) written on its own, with no Node, no N-API and none of
// the lab's code: `threads` std::threads started once, each first touching and then computing its own contiguous
// chunk, a barrier before and after each repetition (as an OpenMP parallel-for does), timed by thread 0 with
// steady_clock. Prints one line per repetition: the GB/s of that repetition, 24 bytes per element as STREAM counts.
// Usage: triad-peer ELEMENTS THREADS REPEATS
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: triad-peer ELEMENTS THREADS REPEATS\n");
    return 2;
  }
  const std::size_t n = std::strtoull(argv[1], nullptr, 10);
  const unsigned threads = static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10));
  const int repeats = std::atoi(argv[3]);
  if (n < 1 || threads < 1 || threads > 1024 || repeats < 1) {
    std::fprintf(stderr, "ELEMENTS, THREADS (at most 1024) and REPEATS must be positive integers\n");
    return 2;
  }
  // Not std::vector<double>(n): its value-initialisation would touch every page on this thread.
  double* a = static_cast<double*>(std::aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64));
  double* b = static_cast<double*>(std::aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64));
  double* c = static_cast<double*>(std::aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64));
  if (!a || !b || !c) {
    std::fprintf(stderr, "out of memory for 3 x %zu doubles: use fewer elements\n", n);
    return 1;
  }
  const double s = 3.0;
  std::vector<double> seconds(repeats);
  std::barrier sync(threads);
  std::chrono::steady_clock::time_point t0;
  auto body = [&](unsigned t) {
    const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
    for (std::size_t i = begin; i < end; ++i) {
      a[i] = 0.0;
      b[i] = static_cast<double>(i % 1024);
      c[i] = static_cast<double>((i * 7) % 1024);
    }
    double* __restrict ap = a;
    const double* __restrict bp = b;
    const double* __restrict cp = c;
    for (int r = 0; r < repeats; ++r) {
      sync.arrive_and_wait();
      if (t == 0) t0 = std::chrono::steady_clock::now();
      sync.arrive_and_wait();
      for (std::size_t i = begin; i < end; ++i) ap[i] = bp[i] + s * cp[i];
      sync.arrive_and_wait();
      if (t == 0) seconds[r] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(body, t);
  body(0);
  for (auto& h : helpers) h.join();
  // Checked: every element is an integer below 2^13, exact in double precision.
  for (std::size_t i = 0; i < n; i += 4099) {
    if (a[i] != static_cast<double>(i % 1024) + s * static_cast<double>((i * 7) % 1024)) {
      std::fprintf(stderr, "wrong result at element %zu\n", i);
      return 1;
    }
  }
  for (double sec : seconds) std::printf("%.6f\n", 24.0 * static_cast<double>(n) / sec / 1e9);
  std::free(a);
  std::free(b);
  std::free(c);
  return 0;
}
