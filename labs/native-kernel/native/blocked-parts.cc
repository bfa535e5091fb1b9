// The given parts of the blocked rung (blocked-parts.h): packing and its buffers. Reference code; the learner's
// blocked.cc calls them. The micro-kernel and add_tile are inline, in the header.
#include "blocked-parts.h"

#include <algorithm>
#include <vector>

namespace kernel {

void zero_rows(double* c, std::size_t n, std::size_t row_begin, std::size_t row_end) {
  if (row_begin < row_end) std::fill(c + row_begin * n, c + row_end * n, 0.0);
}

// thread_local: each native thread (native-blocked-threads) packs into its own buffers.
double* packed_a_buffer(std::size_t mc, std::size_t kc) {
  thread_local std::vector<double> buffer;
  const std::size_t doubles = ((mc + kMr - 1) / kMr) * kMr * kc;
  if (buffer.size() < doubles) buffer.resize(doubles);
  return buffer.data();
}

double* packed_b_buffer(std::size_t kc, std::size_t nc) {
  thread_local std::vector<double> buffer;
  const std::size_t doubles = ((nc + kNr - 1) / kNr) * kNr * kc;
  if (buffer.size() < doubles) buffer.resize(doubles);
  return buffer.data();
}

// Rows past the edge are zero, so the micro-kernel never branches on them.
void pack_a(const double* a, std::size_t n, std::size_t i0, std::size_t mc, std::size_t k0, std::size_t kc,
            double* out) {
  for (std::size_t ir = 0; ir < mc; ir += kMr) {
    const std::size_t mr = std::min(kMr, mc - ir);
    for (std::size_t k = 0; k < kc; ++k) {
      for (std::size_t r = 0; r < kMr; ++r) *out++ = r < mr ? a[(i0 + ir + r) * n + k0 + k] : 0.0;
    }
  }
}

void pack_b(const double* b, std::size_t n, std::size_t k0, std::size_t kc, std::size_t j0, std::size_t nc,
            double* out) {
  for (std::size_t jr = 0; jr < nc; jr += kNr) {
    const std::size_t nr = std::min(kNr, nc - jr);
    for (std::size_t k = 0; k < kc; ++k) {
      const double* row = b + (k0 + k) * n + j0 + jr;
      for (std::size_t j = 0; j < kNr; ++j) *out++ = j < nr ? row[j] : 0.0;
    }
  }
}

}  // namespace kernel
