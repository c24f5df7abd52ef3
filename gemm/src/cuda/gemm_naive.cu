// Placeholder device GEMM (one thread per element of C) until the kernel
// family lands: correct on every shape, not fast.
#include <string>

#include "dla/core/cuda_check.hpp"
#include "dla/gemm/gemm_cuda.hpp"

namespace dla::cuda {
namespace {

template <class T>
__global__ void gemm_naive_kernel(bool ta, bool tb, index_t m, index_t n, index_t k, T alpha,
                                  const T* A, index_t lda, const T* B, index_t ldb, T beta, T* C,
                                  index_t ldc) {
  const index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x;
  const index_t j = blockIdx.y * index_t(blockDim.y) + threadIdx.y;
  if (i >= m || j >= n) return;
  T acc = 0;
  if (alpha != T(0))
    for (index_t p = 0; p < k; ++p)
      acc += (ta ? A[p + i * lda] : A[i + p * lda]) * (tb ? B[j + p * ldb] : B[p + j * ldb]);
  T* c = C + i + j * ldc;
  *c = beta == T(0) ? alpha * acc : alpha * acc + beta * *c;
}

template <class T>
int check_args(Op opA, Op opB, index_t m, index_t n, index_t k, index_t lda, index_t ldb,
               index_t ldc) {
  const index_t arows = opA == Op::N ? m : k;
  const index_t brows = opB == Op::N ? k : n;
  if (opA != Op::N && opA != Op::T) return -1;
  if (opB != Op::N && opB != Op::T) return -2;
  if (m < 0) return -3;
  if (n < 0) return -4;
  if (k < 0) return -5;
  if (lda < (arows > 1 ? arows : 1)) return -8;
  if (ldb < (brows > 1 ? brows : 1)) return -10;
  if (ldc < (m > 1 ? m : 1)) return -13;
  return 0;
}

template <class T>
int gemm_naive(stream_t s, Op opA, Op opB, index_t m, index_t n, index_t k, T alpha, const T* A,
               index_t lda, const T* B, index_t ldb, T beta, T* C, index_t ldc) {
  if (int info = check_args<T>(opA, opB, m, n, k, lda, ldb, ldc)) return info;
  if (m == 0 || n == 0) return 0;
  dim3 block(32, 8);
  dim3 grid(unsigned((m + 31) / 32), unsigned((n + 7) / 8));
  gemm_naive_kernel<T><<<grid, block, 0, s>>>(opA == Op::T, opB == Op::T, m, n, k, alpha, A, lda,
                                              B, ldb, beta, C, ldc);
  DLA_CUDA_CHECK_LAUNCH();
  return 0;
}

}  // namespace

int sgemm(stream_t s, Op opA, Op opB, index_t m, index_t n, index_t k, float alpha, const float* A,
          index_t lda, const float* B, index_t ldb, float beta, float* C, index_t ldc) {
  return gemm_naive<float>(s, opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
int dgemm(stream_t s, Op opA, Op opB, index_t m, index_t n, index_t k, double alpha,
          const double* A, index_t lda, const double* B, index_t ldb, double beta, double* C,
          index_t ldc) {
  return gemm_naive<double>(s, opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
std::vector<std::string> sgemm_variants() { return {"naive", "auto"}; }
int sgemm_variant(const std::string& v, stream_t s, Op opA, Op opB, index_t m, index_t n,
                  index_t k, float alpha, const float* A, index_t lda, const float* B,
                  index_t ldb, float beta, float* C, index_t ldc) {
  if (v != "naive" && v != "auto") throw InvalidArgument("sgemm_variant: unknown variant '" + v + "'");
  return sgemm(s, opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace dla::cuda
