#include "blas.h"

// Declared here rather than through cblas.h: Debian keeps that header in a directory of its own per BLAS variant
// (openblas-pthread, openblas-openmp...), while the symbols are the same in all. CBLAS's enum values: row-major
// 101, no transpose 111 (cblas.h, Netlib's CBLAS reference).
extern "C" {
void cblas_dgemm(int order, int trans_a, int trans_b, int m, int n, int k, double alpha, const double* a, int lda,
                 const double* b, int ldb, double beta, double* c, int ldc);
void openblas_set_num_threads(int threads);
int openblas_get_num_threads(void);
char* openblas_get_corename(void);
char* openblas_get_config(void);
}

namespace blas {

constexpr int kRowMajor = 101;
constexpr int kNoTrans = 111;

void dgemm(const double* a, const double* b, double* c, std::size_t n) {
  const int m = static_cast<int>(n);
  cblas_dgemm(kRowMajor, kNoTrans, kNoTrans, m, m, m, 1.0, a, m, b, m, 0.0, c, m);
}

void set_threads(unsigned threads) { openblas_set_num_threads(static_cast<int>(threads)); }
int threads() { return openblas_get_num_threads(); }
std::string library() { return "OpenBLAS"; }
std::string core_name() { return openblas_get_corename(); }
std::string config() { return openblas_get_config(); }

}  // namespace blas
