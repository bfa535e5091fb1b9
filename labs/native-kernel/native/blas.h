// The library rung: the system BLAS's dgemm (OpenBLAS on Debian/Ubuntu), plain C++, no napi.h. Compiled only into
// the BLAS module (blas/binding.gyp, NATIVE_KERNEL_BLAS defined), which links the library found at build time.
#pragma once

#include <cstddef>
#include <string>

namespace blas {

// c = a * b, all n x n, row-major doubles (cblas_dgemm with alpha 1, beta 0).
void dgemm(const double* a, const double* b, double* c, std::size_t n);

// The library's thread count for later calls (openblas_set_num_threads), and the count it reports now.
void set_threads(unsigned threads);
int threads();

// Which library, which of its kernels runs on this CPU (openblas_get_corename: "Haswell", "SkylakeX", "Zen"...;
// OPENBLAS_CORETYPE in the environment overrides the choice), and its build configuration (openblas_get_config).
std::string library();
std::string core_name();
std::string config();

}  // namespace blas
