// A STREAM-style triad, a[i] = b[i] + s * c[i], for measuring memory bandwidth: 2 flop per 24 bytes moved (two
// reads and one write of a double), so on arrays far larger than the caches the memory system, not the arithmetic,
// sets its speed. Plain C++ (no napi.h); binding.cc validates the arrays. Source: J. D. McCalpin, STREAM
// (https://www.cs.virginia.edu/stream/), whose "Triad" kernel this is.
#pragma once

#include <cstddef>

namespace stream {

// The elements [begin, end) that thread t of `threads` owns out of `length`: contiguous, in thread order, sizes
// differing by at most one; empty when there are more threads than elements. The same split in every call, so a
// thread always reads and writes the same part of each array.
struct Chunk {
  std::size_t begin;
  std::size_t end;
};
Chunk chunk_of(std::size_t length, unsigned t, unsigned threads);

// a[i] = b[i] + s * c[i] for i in [begin, end). a must not overlap b or c (binding.cc checks it).
void triad_range(double* a, const double* b, const double* c, double s, std::size_t begin, std::size_t end);

// First-touch placement: copies b_source into b and c_source into c and zeroes a, each thread its own chunk, on the
// same threads (kernel::run_on_fixed_threads) that triad() later runs each chunk on. Linux gives a page physical
// memory when it is first written, on the NUMA node of the CPU that writes it; so on a multi-socket node each
// thread's chunk lands in the memory attached to its own socket, as long as a, b and c have never been written
// (a fresh Float64Array's pages are not: V8 allocates large buffers with calloc, that is fresh zero pages from mmap).
void first_touch(double* a, double* b, double* c, const double* b_source, const double* c_source, std::size_t length,
                 unsigned threads);

// The triad over `length` elements on `threads` threads, thread t on chunk_of(length, t, threads).
void triad(double* a, const double* b, const double* c, double s, std::size_t length, unsigned threads);

}  // namespace stream
