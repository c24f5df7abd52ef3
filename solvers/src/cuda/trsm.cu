// Triangular solve with many right-hand sides (BLAS trsm) on device buffers.
//
// Recursive blocking over the triangle's order k: a triangle of order <= NB
// (64) is solved by trsm_leaf_kernel (a tile of 16 right-hand-side vectors per
// 256-thread block, 16 lanes per vector, the triangle in shared memory; see
// trsm_kernels.cuh); a larger one is split
// into halves (the split a multiple of NB), the first half solved, the
// coupling block applied through dla's GEMM (large k at the top levels, where
// almost all the flops are), then the second half solved.
// Side Left with few right-hand sides (<= 64; potrs / getrs) skips the
// recursion: one launch of the chained sweep kernel (trsm_sweep.cuh).
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>

#include "dla/core/cuda_check.hpp"
#include "dla/gemm/gemm_cuda.hpp"
#include "dla/solvers/trsm_cuda.hpp"
#include "internal_blas.cuh"
#include "trsm_kernels.cuh"
#include "trsm_sweep.cuh"

namespace dla::cuda {
namespace {

template <class T>
constexpr int leaf_nb() { return 64; }
constexpr int kLeafLanes = 16;  // lanes per vector in the leaf kernel
constexpr index_t kBigLeafMaxVectors = 4096;  // 256 tiles of 16: about one wave
// Side Right with at least this many vectors (rows of B): triangles of order
// <= 128 go to the thread-per-vector leaf (trsm_rows_kernel). Below it the
// 16-lane leaf has more parallelism.
constexpr index_t kRowsLeafMinVectors = 1024;
// Side Left with at most this many right-hand sides and a triangle of order
// above kSweepMinOrder: the one-launch chained sweep (trsm_sweep.cuh), in
// groups of kSweepRhs vectors. Below it the leaves solve the whole triangle
// in one or three launches.
constexpr index_t kSweepMaxRhs = 64;
constexpr index_t kSweepMinOrder = 128;

// op(A) X = alpha B in one launch of trsm_sweep_kernel. Its two counters per
// group come from the stream-ordered allocator: concurrent calls on other
// streams never share them.
template <class T>
void sweep_solve(stream_t s, Op opA, Diag diag, bool lower_op, index_t m, index_t n, T alpha,
                 const T* A, index_t lda, T* B, index_t ldb) {
  const cudaStream_t cs = reinterpret_cast<cudaStream_t>(s);
  const index_t groups = (n + detail::kSweepRhs - 1) / detail::kSweepRhs;
  const index_t blocks = (m + detail::kSweepRows - 1) / detail::kSweepRows;
  if (blocks > index_t(INT_MAX)) throw Error("strsm: order " + std::to_string(m) + " too large");
  int* counters = nullptr;
  const std::size_t bytes = sizeof(int) * std::size_t(2 * groups);
  DLA_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&counters), bytes, cs));
  DLA_CUDA_CHECK(cudaMemsetAsync(counters, 0, bytes, cs));
  constexpr std::size_t smem = detail::trsm_sweep_smem_bytes<T>();
  auto* kernel = &detail::trsm_sweep_kernel<T>;
  DLA_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  kernel<<<dim3(unsigned(blocks), unsigned(groups)), detail::kSweepThreads, smem, cs>>>(
      A, lda, opA == Op::T, !lower_op, diag == Diag::Unit, m, n, alpha, B, ldb, counters);
  DLA_CUDA_CHECK_LAUNCH();
  DLA_CUDA_CHECK(cudaFreeAsync(counters, cs));
}

// DLA_TRSM_SWEEP=0 sends few-RHS solves through the recursion (comparison runs).
bool sweep_enabled() {
  static const bool v = [] {
    const char* e = std::getenv("DLA_TRSM_SWEEP");
    return !(e && e[0] == '0');
  }();
  return v;
}

template <class T>
struct Trsm {
  stream_t s;
  Side side;
  Op opA;
  Diag diag;
  bool lower_op;  // op(A) is lower triangular
  index_t m, n;
  const T* A;
  index_t lda;
  T* B;
  index_t ldb;

  // Block (i0, j0) of op(A), to pass to GEMM with opA.
  const T* opa_block(index_t i0, index_t j0) const {
    return opA == Op::N ? A + i0 + j0 * lda : A + j0 + i0 * lda;
  }

  // Triangles of order <= NB; NB = 128 uses 66 KB (float) / 133 KB (double)
  // of dynamic shared memory, above the 48 KB default.
  template <int NB>
  void leaf(index_t off, index_t k, T alpha) const {
    const bool left = side == Side::Left;
    const bool trans = left ? opA == Op::T : opA == Op::N;
    // M = op(A) (left) or op(A)^T (right); lower iff uplo lower XOR trans. In
    // terms of op(A): left keeps its shape, right flips it.
    const bool m_lower = left ? lower_op : !lower_op;
    const index_t nvec = left ? n : m;
    T* b = left ? B + off : B + off * ldb;
    const index_t es = left ? 1 : ldb, vs = left ? ldb : 1;
    if (nvec == 0) return;
    // A unit diagonal is never read, so it needs no sfmin pass (Sfmin = false:
    // 80 registers against 100 for the float NB = 128 leaf; trsm_kernels.cuh).
    if (diag == Diag::Unit)
      leaf_launch<NB, false>(off, k, alpha, trans, m_lower, b, es, vs, nvec);
    else
      leaf_launch<NB, true>(off, k, alpha, trans, m_lower, b, es, vs, nvec);
  }

  template <int NB, bool Sfmin>
  void leaf_launch(index_t off, index_t k, T alpha, bool trans, bool m_lower, T* b, index_t es,
                   index_t vs, index_t nvec) const {
    constexpr int VB = detail::kTrsmLeafThreads / kLeafLanes;  // vectors per block
    constexpr std::size_t smem = detail::trsm_leaf_smem_bytes<T, NB, kLeafLanes, Sfmin>();
    auto* kernel = &detail::trsm_leaf_kernel<T, NB, kLeafLanes, Sfmin>;
    if constexpr (smem > 48 * 1024)
      DLA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          int(smem)));
    const index_t tiles = (nvec + VB - 1) / VB;
    const unsigned blocks = unsigned(std::min<index_t>(tiles, 65535));  // grid-stride beyond
    kernel<<<blocks, detail::kTrsmLeafThreads, smem, s>>>(A + off + off * lda, lda, int(k), trans,
                                                          m_lower, diag == Diag::Unit, b, es, vs,
                                                          nvec, alpha);
    DLA_CUDA_CHECK_LAUNCH();
  }

  // Side Right, many vectors: one thread per row of B (trsm_rows_kernel).
  template <int NB>
  void rows_leaf(index_t off, index_t k, T alpha) const {
    if (diag == Diag::Unit)
      rows_leaf_launch<NB, false>(off, k, alpha);
    else
      rows_leaf_launch<NB, true>(off, k, alpha);
  }

  template <int NB, bool Sfmin>
  void rows_leaf_launch(index_t off, index_t k, T alpha) const {
    const bool trans = opA == Op::N;  // M = op(A)^T
    const bool m_lower = !lower_op;
    constexpr std::size_t smem = detail::trsm_rows_smem_bytes<T, NB, Sfmin>();
    auto* kernel = &detail::trsm_rows_kernel<T, NB, Sfmin>;
    if constexpr (smem > 48 * 1024)
      DLA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          int(smem)));
    constexpr int NT = detail::kTrsmRowsThreads;
    const unsigned blocks = unsigned(std::min<index_t>((m + NT - 1) / NT, 65535));
    kernel<<<blocks, NT, smem, s>>>(A + off + off * lda, lda, int(k), trans, m_lower,
                                    diag == Diag::Unit, B + off * ldb, ldb, m, alpha);
    DLA_CUDA_CHECK_LAUNCH();
  }

  void rec(index_t off, index_t k, T alpha) const {
    constexpr int NB = leaf_nb<T>();
    // (Double: order <= 64 only; the 128 instance would need 263 KB of shared memory.)
    if (side == Side::Right && m >= kRowsLeafMinVectors) {
      if (k <= NB) return rows_leaf<NB>(off, k, alpha);
      if constexpr (std::is_same_v<T, float>)
        if (k <= 2 * NB) return rows_leaf<2 * NB>(off, k, alpha);
    }
    if (k <= NB) return leaf<NB>(off, k, alpha);
    // One 128-leaf instead of two 64-leaves and a GEMM when there are few
    // vectors (latency bound: ~3-4 us instead of ~15 us); with many vectors
    // the GEMM split does the bulk of the flops faster.
    // Float only: the double instance of the 128-leaf is not fully unrolled by
    // nvcc 13 (its registers go to the stack).
    if constexpr (std::is_same_v<T, float>)
      if (k <= 2 * NB && (side == Side::Left ? n : m) <= kBigLeafMaxVectors)
        return leaf<2 * NB>(off, k, alpha);
    const index_t k1 = std::max<index_t>(NB, (k / 2 + NB / 2) / NB * NB);
    const index_t k2 = k - k1;
    const index_t a = off, b = off + k1;  // first and second half offsets
    if (side == Side::Left) {
      if (lower_op) {
        rec(a, k1, alpha);
        detail::gemm<T>(s, opA, Op::N, k2, n, k1, T(-1), opa_block(b, a), lda, B + a, ldb, alpha, B + b,
                  ldb);
        rec(b, k2, T(1));
      } else {
        rec(b, k2, alpha);
        detail::gemm<T>(s, opA, Op::N, k1, n, k2, T(-1), opa_block(a, b), lda, B + b, ldb, alpha, B + a,
                  ldb);
        rec(a, k1, T(1));
      }
    } else {
      if (lower_op) {
        rec(b, k2, alpha);
        detail::gemm<T>(s, Op::N, opA, m, k1, k2, T(-1), B + b * ldb, ldb, opa_block(b, a), lda, alpha,
                  B + a * ldb, ldb);
        rec(a, k1, T(1));
      } else {
        rec(a, k1, alpha);
        detail::gemm<T>(s, Op::N, opA, m, k2, k1, T(-1), B + a * ldb, ldb, opa_block(a, b), lda, alpha,
                  B + b * ldb, ldb);
        rec(b, k2, T(1));
      }
    }
  }
};

template <class T>
int trsm_impl(stream_t stream, Side side, Uplo uplo, Op opA, Diag diag, index_t m, index_t n,
              T alpha, const T* A, index_t lda, T* B, index_t ldb) {
  if (side != Side::Left && side != Side::Right) return -1;
  if (uplo != Uplo::Lower && uplo != Uplo::Upper) return -2;
  if (opA != Op::N && opA != Op::T) return -3;
  if (diag != Diag::Unit && diag != Diag::NonUnit) return -4;
  if (m < 0) return -5;
  if (n < 0) return -6;
  const index_t k = side == Side::Left ? m : n;
  // Pointers are checked only when there is work: an empty B needs neither.
  if (A == nullptr && m > 0 && n > 0 && alpha != T(0)) return -8;
  if (lda < std::max<index_t>(1, k)) return -9;
  if (B == nullptr && m > 0 && n > 0) return -10;
  if (ldb < std::max<index_t>(1, m)) return -11;
  if (m == 0 || n == 0) return 0;
  if (alpha == T(0)) {  // BLAS: B = 0 without reading A
    const index_t total = m * n;
    const unsigned blocks = unsigned(std::min<index_t>((total + 255) / 256, 65535));
    detail::scale_matrix_kernel<T><<<blocks, 256, 0, stream>>>(B, ldb, m, n, T(0));
    DLA_CUDA_CHECK_LAUNCH();
    return 0;
  }
  const bool lower_op = (uplo == Uplo::Lower) == (opA == Op::N);
  if (side == Side::Left && n <= kSweepMaxRhs && m > kSweepMinOrder && sweep_enabled()) {
    sweep_solve<T>(stream, opA, diag, lower_op, m, n, alpha, A, lda, B, ldb);
    return 0;
  }
  Trsm<T> t{stream, side, opA, diag, lower_op, m, n, A, lda, B, ldb};
  t.rec(0, k, alpha);
  return 0;
}

}  // namespace

int strsm(stream_t stream, Side side, Uplo uplo, Op opA, Diag diag, index_t m, index_t n,
          float alpha, const float* A, index_t lda, float* B, index_t ldb) {
  return trsm_impl<float>(stream, side, uplo, opA, diag, m, n, alpha, A, lda, B, ldb);
}
int dtrsm(stream_t stream, Side side, Uplo uplo, Op opA, Diag diag, index_t m, index_t n,
          double alpha, const double* A, index_t lda, double* B, index_t ldb) {
  return trsm_impl<double>(stream, side, uplo, opA, diag, m, n, alpha, A, lda, B, ldb);
}

}  // namespace dla::cuda
