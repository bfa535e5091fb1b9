// Machine-peak probes for the roofline: how fast can this core do arithmetic, and how fast can it stream memory?
// Plain C++; compiled with the same flags as the -O3 -march=native rung, so "peak" means "peak for this compiler here".
#pragma once

#include <cstddef>

namespace probe {

// Floating-point operations per second of independent fused multiply-adds, using `threads` threads.
// Each thread runs `iterations` steps over 64 independent accumulators (8 vectors of 8 doubles) (enough to hide FMA latency on current x86
// and Arm cores); every step is 2 flops per accumulator. Returns flop/s.
double fma_peak(std::size_t iterations, unsigned threads);

// Which vectors fma_peak runs, e.g. "512-bit FMA (AVX-512F)": the widest this CPU has (an AVX-512F clone is chosen
// at run time in a build without it), so the peak is the machine's, not the compiler's default width.
const char* fma_vector_width();

// Bytes per second of a STREAM-style triad x[i] = y[i] + s*z[i] over three arrays of `elements` doubles each,
// repeated `repeats` times, split across `threads` threads. Counts 24 bytes per element (two reads, one write),
// as STREAM does, so write-allocate traffic is not counted. Returns bytes/s of the fastest repeat.
double triad_bandwidth(std::size_t elements, std::size_t repeats, unsigned threads);

}  // namespace probe
