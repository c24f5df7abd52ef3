// LU tests on the GPU (skip without a device; the lead runs them on the H200):
// lu_factor / lu_solve / solve on the CUDA backend, the low-level
// dla::cuda::sgetrf/dgetrf/getrs/gesv, device info for singular matrices,
// pivots equal to cuSOLVER's, block-size and shape variations.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <tuple>
#include <utility>
#include <cmath>
#include <vector>

#include "dla/core/config.hpp"
#include "dla/core/context.hpp"
#include "dla/core/device_matrix.hpp"
#include "dla/core/error.hpp"
#include "dla/solvers/lu.hpp"
#include "dla/solvers/lu_cuda.hpp"
#include "dla/solvers/solve.hpp"
#include "lu_test_util.hpp"

#if DLA_HAVE_CUDA
#include <cuda_runtime.h>
#include <cusolverDn.h>
#endif

namespace dla::test {
namespace {

constexpr double kLimit = 50.0;

template <class T>
void gpu_factor_check(Eigen::Index m, Eigen::Index n, std::uint64_t seed, bool ref_pivots) {
  SCOPED_TRACE(::testing::Message() << "m=" << m << " n=" << n << " seed=" << seed);
  const Context ctx(Backend::Cuda);
  const Mat<T> A = random_matrix<T>(m, n, seed);
  const LU<T> lu = lu_factor(ctx, Matrix<T>(A));
  EXPECT_EQ(lu.backend, Backend::Cuda);
  EXPECT_EQ(lu.info, 0);
  ASSERT_EQ(lu.ipiv.size(), std::size_t(std::min(m, n)));
  for (std::size_t k = 0; k < lu.ipiv.size(); ++k) {
    ASSERT_GE(lu.ipiv[k], std::int32_t(k + 1)) << "k=" << k;
    ASSERT_LE(lu.ipiv[k], std::int32_t(m)) << "k=" << k;
  }
  ASSERT_TRUE(lu.factors.allFinite());
  EXPECT_LE(factor_backward_error<T>(A, Mat<T>(lu.factors), lu.ipiv), kLimit);
  if (ref_pivots) {
    MatD F = A.template cast<double>();
    std::vector<std::int32_t> ref;
    std::int64_t info = 0;
    reference_getrf(F, ref, info);
    EXPECT_EQ(lu.ipiv, ref);
  }
}

TEST(LuGpu, SquareFloat) {
  DLA_REQUIRE_GPU();
  for (Eigen::Index n : {1, 2, 17, 127, 128, 129}) gpu_factor_check<float>(n, n, 10 + n, true);
  for (Eigen::Index n : {1000, 3001, 4097, 8192}) gpu_factor_check<float>(n, n, 10 + n, false);
}

TEST(LuGpu, SquareDouble) {
  DLA_REQUIRE_GPU();
  for (Eigen::Index n : {1, 2, 17, 127, 128, 129, 300}) gpu_factor_check<double>(n, n, 20 + n, true);
  for (Eigen::Index n : {1000, 3001}) gpu_factor_check<double>(n, n, 20 + n, false);
}

TEST(LuGpu, Rectangular) {
  DLA_REQUIRE_GPU();
  for (auto [m, n] : std::vector<std::pair<int, int>>{{5, 3}, {300, 70}, {129, 1}, {2000, 700}, {1000, 999}}) {
    gpu_factor_check<float>(m, n, m + 3 * n, false);
    gpu_factor_check<double>(m, n, m + 5 * n, true);
    gpu_factor_check<float>(n, m, m + 7 * n, false);
    gpu_factor_check<double>(n, m, m + 11 * n, true);
  }
}

TEST(LuGpu, BlockSizesFromEnvironment) {
  DLA_REQUIRE_GPU();
  for (const char* nb : {"1", "16", "32", "48", "96", "100", "256"}) {
    SCOPED_TRACE(std::string("DLA_GETRF_NB=") + nb);
    ScopedEnv env("DLA_GETRF_NB", nb);
    gpu_factor_check<double>(613, 613, 77, true);
    gpu_factor_check<float>(700, 450, 78, false);
    gpu_factor_check<float>(450, 700, 79, false);
  }
  ScopedEnv prof("DLA_GETRF_PROFILE", "1");
  gpu_factor_check<float>(1500, 1500, 80, false);
  const auto p = cuda::getrf_last_profile();
  EXPECT_GT(p.total_ms, 0.0);
  EXPECT_GT(p.panel_ms, 0.0);
  EXPECT_GT(p.gemm_ms, 0.0);
}

// Factors A twice, by default and with the environment variable `var` set to
// 1 (another code path for the same operation), and checks both agree: same
// pivots and info, factors within `tol` (a wrong row move or update differs
// by O(1)).
template <class T>
void expect_same_lu_with_env(const Context& ctx, const Matrix<T>& A, const char* var, T tol) {
  const LU<T> def = lu_factor(ctx, A);
  LU<T> alt;
  {
    ScopedEnv env(var, "1");
    alt = lu_factor(ctx, A);
  }
  EXPECT_EQ(def.ipiv, alt.ipiv) << var;
  EXPECT_EQ(def.info, alt.info) << var;
  EXPECT_LE((def.factors - alt.factors).cwiseAbs().maxCoeff(), tol) << "factors differ, " << var;
}

// The swap plans (default) and the plain per-column laswp (DLA_GETRF_SIMPLE_SWAP=1)
// move the same data: same pivots, and factors equal up to GEMM rounding (exactly
// equal when dla's GEMM is deterministic); a wrong move would differ by O(1).
TEST(LuGpu, SwapPlansEqualPlainLaswp) {
  DLA_REQUIRE_GPU();
  const Context ctx(Backend::Cuda);
  for (auto [m, n] : std::vector<std::pair<int, int>>{{1000, 1000}, {3001, 3001}, {2000, 700}, {700, 2000}}) {
    SCOPED_TRACE(::testing::Message() << "m=" << m << " n=" << n);
    expect_same_lu_with_env<float>(ctx, random_matrix<float>(m, n, 31 + m), "DLA_GETRF_SIMPLE_SWAP",
                                   1e-3f);
  }
}

// The cluster leaf (default on sm_90, strips up to 16384 rows) and the
// cooperative grid-barrier leaf (DLA_GETRF_NO_CLUSTER=1) run the same
// arithmetic when both use 32-column leaves (DLA_GETRF_LEAF_COLS=32): same
// pivots, same factors. Sizes cover a 2-CTA cluster, partial and full 16-CTA
// clusters, and a strip too tall for a cluster (float: > 16384 rows).
TEST(LuGpu, ClusterLeafEqualsCooperativeLeaf) {
  DLA_REQUIRE_GPU();
  const Context ctx(Backend::Cuda);
  ScopedEnv narrow("DLA_GETRF_LEAF_COLS", "32");
  for (auto [m, n] : std::vector<std::pair<int, int>>{
           {1, 1}, {33, 33}, {300, 40}, {1000, 1000}, {5000, 300}, {16384, 64}, {17000, 40}}) {
    SCOPED_TRACE(::testing::Message() << "m=" << m << " n=" << n);
    const Matrix<float> A = random_matrix<float>(m, n, 77 + m);
    expect_same_lu_with_env<float>(ctx, A, "DLA_GETRF_NO_CLUSTER", 1e-4f);
    const LU<float> cl = lu_factor(ctx, A);
    EXPECT_LE(factor_backward_error<float>(Mat<float>(A), Mat<float>(cl.factors), cl.ipiv), kLimit);
  }
  // double: 2 rows per thread, 16 CTAs
  expect_same_lu_with_env<double>(ctx, random_matrix<double>(8000, 40, 5), "DLA_GETRF_NO_CLUSTER",
                                  1e-10);
}

// The 64-column cluster leaf (float, strips up to 8192 rows; the default
// there) against 32-column leaves plus the recursion's TRSM and GEMM: the
// same pivots on random matrices, factors equal up to rounding, and both
// within the backward-error limit. Widths 64, 36 (a partial wide leaf), 100.
TEST(LuGpu, WideLeafEqualsNarrowLeaves) {
  DLA_REQUIRE_GPU();
  const Context ctx(Backend::Cuda);
  for (auto [m, n] : std::vector<std::pair<int, int>>{
           {64, 64}, {300, 36}, {1000, 1000}, {4096, 100}, {8192, 64}, {700, 2000}}) {
    SCOPED_TRACE(::testing::Message() << "m=" << m << " n=" << n);
    const Matrix<float> A = random_matrix<float>(m, n, 91 + m);
    const LU<float> wide = lu_factor(ctx, A);
    LU<float> narrow;
    {
      ScopedEnv env("DLA_GETRF_LEAF_COLS", "32");
      narrow = lu_factor(ctx, A);
    }
    EXPECT_EQ(wide.ipiv, narrow.ipiv);
    EXPECT_EQ(wide.info, narrow.info);
    const float scale = Mat<float>(narrow.factors).cwiseAbs().maxCoeff();
    EXPECT_LE((wide.factors - narrow.factors).cwiseAbs().maxCoeff(), 1e-3f * scale);
    EXPECT_LE(factor_backward_error<float>(Mat<float>(A), Mat<float>(wide.factors), wide.ipiv),
              kLimit);
  }
}

template <class T>
void gpu_solve_check(Eigen::Index n, Eigen::Index nrhs, Op op, std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " nrhs=" << nrhs << " op=" << to_string(op));
  const Context ctx(Backend::Cuda);
  const Mat<T> A = random_matrix<T>(n, n, seed);
  const Mat<T> B = random_matrix<T>(n, nrhs, seed + 1);
  const LU<T> lu = lu_factor(ctx, Matrix<T>(A));
  const Matrix<T> X = lu_solve(ctx, lu, Matrix<T>(B), op);
  ASSERT_TRUE(X.allFinite());
  EXPECT_LE(solve_backward_error<T>(A, Mat<T>(X), B, op == Op::T), kLimit);
}

TEST(LuGpu, SolveManyRhsAndTransposed) {
  DLA_REQUIRE_GPU();
  for (Eigen::Index n : {1, 17, 129, 1000, 3001}) {
    for (Op op : {Op::N, Op::T}) {
      gpu_solve_check<float>(n, 1, op, 100 + n);
      gpu_solve_check<float>(n, 300, op, 200 + n);
      gpu_solve_check<double>(n, 5, op, 300 + n);
    }
  }
}

template <class T>
void gpu_singular(Eigen::Index n, Eigen::Index k) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " zero column " << k);
  const Context ctx(Backend::Cuda);
  Mat<T> A = random_matrix<T>(n, n, 40 + n);
  A.col(k).setZero();
  const LU<T> lu = lu_factor(ctx, Matrix<T>(A));
  EXPECT_EQ(lu.info, k + 1);
  EXPECT_EQ(lu.factors(k, k), T(0));
  EXPECT_TRUE(lu.factors.allFinite());
  try {
    solve(ctx, Matrix<T>(A), Matrix<T>(random_matrix<T>(n, 2, 3)), Method::LU);
    ADD_FAILURE() << "no SingularMatrix";
  } catch (const SingularMatrix& e) {
    EXPECT_EQ(e.index(), k + 1);
  }
}

TEST(LuGpu, SingularZeroColumn) {
  DLA_REQUIRE_GPU();
  for (auto [n, k] : std::vector<std::pair<int, int>>{{1, 0}, {17, 9}, {130, 129}, {1000, 0}, {1000, 511}, {3001, 2999}}) {
    gpu_singular<float>(n, k);
    gpu_singular<double>(n, k);
  }
}

// The host tests' subnormal pivots (lu_test.cpp) on the device, at sizes that
// reach every GPU path: the panel kernels of the blocked LU (the cluster leaf
// and the cooperative one) and the triangular solves of getrs (the row
// kernel, the 64/128 leaves and the few-right-hand-sides sweep). A pivot
// below 1 / FLT_MAX has a reciprocal that overflows: the device must divide
// by it, as LAPACK does, and not return Inf/NaN factors or solutions.
TEST(LuGpu, SubnormalPivotColumn) {
  DLA_REQUIRE_GPU();
  check_subnormal_pivot_columns(Context(Backend::Cuda),
                                {{1, 1}, {8, 8}, {100, 100}, {8, 5}, {5, 8}, {200, 70}, {70, 200},
                                 {1000, 1000}, {3001, 3001}, {4097, 300}, {300, 4097}});
}

// The cooperative grid-barrier panel leaf (getrf_panel.cu), which runs only
// where a cluster is refused: forced here.
TEST(LuGpu, SubnormalPivotColumnCooperativeLeaf) {
  DLA_REQUIRE_GPU();
  ScopedEnv env("DLA_GETRF_NO_CLUSTER", "1");
  check_subnormal_pivot_columns(Context(Backend::Cuda), {{100, 100}, {1000, 1000}, {4097, 300}});
}

// The solution itself, componentwise (lu_test_util.hpp): the normwise
// residual of SubnormalPivotSolve cannot see a wrong last unknown.
TEST(LuGpu, SubnormalLastPivotAccuracy) {
  DLA_REQUIRE_GPU();
  const Context ctx(Backend::Cuda);
  for (Eigen::Index n : {1, 17, 127, 128, 129, 1000, 3001, 4097})
    for (Eigen::Index nrhs : {1, 3, 200})
      for (Op op : {Op::N, Op::T}) {
        check_subnormal_last_pivot_accuracy<float>(ctx, n, nrhs, op);
        check_subnormal_last_pivot_accuracy<double>(ctx, n, nrhs, op);
      }
}

TEST(LuGpu, SubnormalPivotSolve) {
  DLA_REQUIRE_GPU();
  const Context ctx(Backend::Cuda);
  for (Eigen::Index n : {2, 50, 300, 1000, 3001})
    for (Eigen::Index nrhs : {1, 3, 200})
      for (Op op : {Op::N, Op::T}) {
        check_subnormal_pivot_solve<float>(ctx, n, nrhs, op);
        check_subnormal_pivot_solve<double>(ctx, n, nrhs, op);
      }
}

// Low level: device info, preallocated workspace, NaN-poisoned outputs, gesv.
TEST(LuGpu, LowLevelDeviceInfoAndGesv) {
  DLA_REQUIRE_GPU();
  const Context ctx(Backend::Cuda);
  stream_t s = ctx.stream();
  const index_t n = 777, k = 300, nrhs = 3;
  Mat<float> A = random_matrix<float>(n, n, 9);
  A.col(k).setZero();
  DeviceMatrix<float> dA(A, s);
  DeviceBuffer<std::int32_t> dpiv(n);
  DeviceBuffer<int> dinfo(1);
  std::vector<std::int32_t> poison(std::size_t(n), -7);
  dpiv.upload(poison.data(), n, s);
  int minus = -5;
  dinfo.upload(&minus, 1, s);
  DeviceBuffer<char> ws(index_t(cuda::sgetrf_buffer_size(n, n)));
  ASSERT_EQ(cuda::sgetrf(s, n, n, dA.data(), dA.ld(), dpiv.data(), dinfo.data(), ws.data()), 0);
  int info = 0;
  dinfo.download(&info, 1, s);
  EXPECT_EQ(info, k + 1);
  std::vector<std::int32_t> piv(static_cast<std::size_t>(n));
  dpiv.download(piv.data(), n, s);
  for (index_t i = 0; i < n; ++i) EXPECT_GE(piv[std::size_t(i)], i + 1);
  // argument errors
  EXPECT_EQ(cuda::sgetrf(s, -1, n, dA.data(), dA.ld(), dpiv.data(), dinfo.data()), -1);
  EXPECT_EQ(cuda::sgetrf(s, n, n, dA.data(), n - 1, dpiv.data(), dinfo.data()), -4);
  EXPECT_EQ(cuda::sgetrf(s, n, n, dA.data(), n, dpiv.data(), nullptr), -6);
  // gesv on a nonsingular matrix, B poisoned beyond its rows (ldb > n)
  const Mat<double> G = random_matrix<double>(n, n, 11);
  const Mat<double> B = random_matrix<double>(n, nrhs, 12);
  DeviceMatrix<double> dG(G, s);
  Mat<double> Bpad = Mat<double>::Constant(n + 5, nrhs, quiet_nan<double>());
  Bpad.topRows(n) = B;
  DeviceMatrix<double> dB(Bpad, s);
  ASSERT_EQ(cuda::dgesv(s, n, nrhs, dG.data(), dG.ld(), dpiv.data(), dB.data(), dB.ld(),
                        dinfo.data()), 0);
  dinfo.download(&info, 1, s);
  EXPECT_EQ(info, 0);
  const Mat<double> X = dB.to_host(s).topRows(n);
  EXPECT_LE(solve_backward_error<double>(G, X, B, false), kLimit);
}

// The low-level getrf on an m x n A with leading dimension lda (padding rows
// NaN), given `bytes` of a workspace allocated 64 guard bytes larger (0x5a)
// than that or the in-place bytes, or no workspace. Checks: return 0, info 0,
// the backward error, padding rows and guard bytes untouched. Returns the
// factors, pivots and the workspace's bytes afterwards.
template <class T>
struct LowLevelLu {
  Mat<T> F;
  std::vector<std::int32_t> piv;
  std::vector<char> ws;
};
template <class T>
LowLevelLu<T> low_level_getrf(const Mat<T>& A, index_t lda, std::size_t bytes, bool null_ws) {
  const index_t m = A.rows(), n = A.cols();
  const std::size_t in_place = std::is_same_v<T, float> ? cuda::sgetrf_buffer_size(m, n)
                                                        : cuda::dgetrf_buffer_size(m, n);
  const index_t used = index_t(std::max(bytes, in_place));  // may be written
  const Context ctx(Backend::Cuda);
  stream_t s = ctx.stream();
  Mat<T> Apad = Mat<T>::Constant(lda, n, quiet_nan<T>());
  Apad.topRows(m) = A;
  DeviceMatrix<T> dA(Apad, s);
  DeviceBuffer<std::int32_t> dpiv(std::min(m, n));
  DeviceBuffer<int> dinfo(1);
  const index_t total = used + 64;
  DeviceBuffer<char> ws(total);
  std::vector<char> guard(std::size_t(total), char(0x5a));
  ws.upload(guard.data(), total, s);
  void* w = null_ws ? nullptr : static_cast<void*>(ws.data());
  int r;
  if constexpr (std::is_same_v<T, float>)
    r = cuda::sgetrf(s, m, n, dA.data(), lda, dpiv.data(), dinfo.data(), w, bytes);
  else
    r = cuda::dgetrf(s, m, n, dA.data(), lda, dpiv.data(), dinfo.data(), w, bytes);
  EXPECT_EQ(r, 0);
  int info = -1;
  dinfo.download(&info, 1, s);
  EXPECT_EQ(info, 0);
  std::vector<std::int32_t> piv(std::size_t(std::min(m, n)));
  dpiv.download(piv.data(), index_t(piv.size()), s);
  const Mat<T> F = dA.to_host(s);
  std::vector<char> after(static_cast<std::size_t>(total));
  ws.download(after.data(), total, s);
  ctx.synchronize();
  for (index_t i = used; i < total; ++i)
    if (after[std::size_t(i)] != char(0x5a)) {
      ADD_FAILURE() << "workspace byte " << i << " written (workspace_bytes " << bytes << ")";
      break;
    }
  index_t touched = 0;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = m; i < lda; ++i) touched += !std::isnan(F(i, j));
  EXPECT_EQ(touched, 0) << "padding rows written";
  const Mat<T> LU = F.topRows(m);
  EXPECT_TRUE(LU.allFinite());
  EXPECT_LE(factor_backward_error<T>(A, LU, piv), kLimit);
  return {LU, piv, after};
}

// Whether bytes [from, to) of a workspace still hold the 0x5a fill.
inline bool untouched(const std::vector<char>& ws, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i)
    if (ws[i] != char(0x5a)) return false;
  return true;
}

// A misaligned A (lda * sizeof(T) % 16 != 0, lda = m or m + 1) factored in an
// aligned copy in the workspace (getrf_pads, lu_cuda.hpp; the rule takes it
// from min(m, n) = 1024, DLA_GETRF_PAD=1 at every size: the ctest variant
// lu_test.pad_all): the same pivots and factors (up to GEMM rounding) as in
// place, given one byte less; with no workspace (getrf allocates the copy);
// and gesv given the workspace. An aligned A asks for no more than the
// in-place bytes.
template <class T>
void pad_case(index_t m, index_t n, index_t lda, std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << "m=" << m << " n=" << n << " lda=" << lda
                                    << (std::is_same_v<T, float> ? " float" : " double"));
  const Mat<T> A = random_matrix<T>(m, n, seed);
  DeviceMatrix<T> dprobe(lda, n);  // an address as the tests' A has (cudaMalloc's)
  std::size_t base, need;
  if constexpr (std::is_same_v<T, float>) {
    base = cuda::sgetrf_buffer_size(m, n);
    need = cuda::sgetrf_buffer_size(m, n, dprobe.data(), lda);
  } else {
    base = cuda::dgetrf_buffer_size(m, n);
    need = cuda::dgetrf_buffer_size(m, n, dprobe.data(), lda);
  }
  const bool misaligned = (std::size_t(lda) * sizeof(T)) % 16 != 0;
  const bool copies = misaligned && cuda::getrf_pads(m, n);
  EXPECT_EQ(need > base, copies);
  if (!std::getenv("DLA_GETRF_PAD")) EXPECT_EQ(copies, misaligned && std::min(m, n) >= 1024);
  if (copies)  // the in-place bytes rounded up to 256, then the copy
    EXPECT_EQ(need, (base + 255) / 256 * 256 + sizeof(T) * std::size_t(aligned_ld(m)) * n);
  const LowLevelLu<T> r1 = low_level_getrf<T>(A, lda, need, false);
  const LowLevelLu<T> r0 = low_level_getrf<T>(A, lda, need - 1, false);  // in place
  if (copies) {  // the copy's place: written with enough bytes, not with one less
    const std::size_t from = (base + 255) / 256 * 256;
    EXPECT_FALSE(untouched(r1.ws, from, need)) << "the aligned copy was not used";
    EXPECT_TRUE(untouched(r0.ws, from, need - 1)) << "a workspace one byte short was used";
  }
  EXPECT_EQ(r1.piv, r0.piv) << "pivots: aligned copy against in place";
  const T tol = std::is_same_v<T, float> ? T(1e-3) : T(1e-10);
  EXPECT_LE((r1.F - r0.F).cwiseAbs().maxCoeff(), tol) << "factors: aligned copy against in place";
  EXPECT_EQ(low_level_getrf<T>(A, lda, 0, true).piv, r0.piv);  // getrf's own scratch
  if (m == n) {  // gesv with the workspace
    const Context ctx(Backend::Cuda);
    stream_t s = ctx.stream();
    const Mat<T> B = random_matrix<T>(n, 2, seed + 1);
    Mat<T> Apad = Mat<T>::Zero(lda, n);
    Apad.topRows(m) = A;
    DeviceMatrix<T> dA(Apad, s), dB(B, s);
    DeviceBuffer<std::int32_t> dpiv(n);
    DeviceBuffer<int> dinfo(1);
    DeviceBuffer<char> ws(static_cast<index_t>(need));
    int r;
    if constexpr (std::is_same_v<T, float>)
      r = cuda::sgesv(s, n, 2, dA.data(), lda, dpiv.data(), dB.data(), dB.ld(), dinfo.data(),
                      ws.data(), need);
    else
      r = cuda::dgesv(s, n, 2, dA.data(), lda, dpiv.data(), dB.data(), dB.ld(), dinfo.data(),
                      ws.data(), need);
    ASSERT_EQ(r, 0);
    int info = -1;
    dinfo.download(&info, 1, s);
    const Mat<T> X = dB.to_host(s);
    EXPECT_EQ(info, 0);
    EXPECT_LE(solve_backward_error<T>(A, X, B, false), kLimit);
  }
}

TEST(LuGpu, LowLevelMisalignedAlignedCopy) {
  DLA_REQUIRE_GPU();
  for (auto [m, n, lda] : std::vector<std::tuple<index_t, index_t, index_t>>{
           {1101, 1101, 1101}, {1100, 1100, 1101}, {1500, 1030, 1501}, {1030, 1500, 1030},
           {1024, 1024, 1024}, {17, 17, 17}, {129, 129, 130}, {1, 1, 1}})
    pad_case<float>(m, n, lda, std::uint64_t(m + 3 * n + lda));
  for (auto [m, n, lda] : std::vector<std::tuple<index_t, index_t, index_t>>{
           {1101, 1101, 1101}, {1030, 1500, 1031}, {1024, 1024, 1024}, {65, 65, 65}})
    pad_case<double>(m, n, lda, std::uint64_t(m + 5 * n + lda));
}

TEST(LuGpu, SolveEachMethod) {
  DLA_REQUIRE_GPU();
  const Context ctx(Backend::Cuda);
  for (Eigen::Index n : {33, 1000}) {
    Mat<float> R = random_matrix<float>(n, n, 5);
    Mat<float> S = R * R.transpose();
    S.diagonal().array() += float(n);
    S = Mat<float>(S.selfadjointView<Eigen::Lower>());
    const Mat<float> B = random_matrix<float>(n, 2, 6);
    for (Method m : {Method::LU, Method::Auto, Method::Cholesky}) {
      const Matrix<float> X = solve(ctx, Matrix<float>(S), Matrix<float>(B), m);
      EXPECT_LE(solve_backward_error<float>(S, Mat<float>(X), B, false), kLimit) << to_string(m);
    }
  }
}

#if DLA_HAVE_CUDA
// Pivots equal cuSOLVER's on random matrices (same input on both).
template <class T>
void compare_to_cusolver(index_t n, std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << "n=" << n);
  const Context ctx(Backend::Cuda);
  stream_t s = ctx.stream();
  const Mat<T> A = random_matrix<T>(n, n, seed);
  DeviceMatrix<T> d1(A, s), d2(A, s);
  DeviceBuffer<std::int32_t> p1(n), p2(n);
  DeviceBuffer<int> i1(1), i2(1);
  int r;
  if constexpr (std::is_same_v<T, float>) r = cuda::sgetrf(s, n, n, d1.data(), n, p1.data(), i1.data());
  else r = cuda::dgetrf(s, n, n, d1.data(), n, p1.data(), i1.data());
  ASSERT_EQ(r, 0);
  cusolverDnHandle_t h;
  ASSERT_EQ(cusolverDnCreate(&h), CUSOLVER_STATUS_SUCCESS);
  cusolverDnSetStream(h, reinterpret_cast<cudaStream_t>(s));
  int lwork = 0;
  if constexpr (std::is_same_v<T, float>) cusolverDnSgetrf_bufferSize(h, int(n), int(n), d2.data(), int(n), &lwork);
  else cusolverDnDgetrf_bufferSize(h, int(n), int(n), d2.data(), int(n), &lwork);
  DeviceBuffer<T> work(lwork > 0 ? lwork : 1);
  if constexpr (std::is_same_v<T, float>)
    cusolverDnSgetrf(h, int(n), int(n), d2.data(), int(n), work.data(), p2.data(), i2.data());
  else
    cusolverDnDgetrf(h, int(n), int(n), d2.data(), int(n), work.data(), p2.data(), i2.data());
  std::vector<std::int32_t> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
  p1.download(a.data(), n, s);
  p2.download(b.data(), n, s);
  ctx.synchronize();
  cusolverDnDestroy(h);
  index_t diff = 0;
  for (index_t i = 0; i < n; ++i) diff += a[std::size_t(i)] != b[std::size_t(i)];
  EXPECT_EQ(diff, 0) << "pivots differing from cuSOLVER's";
}

TEST(LuGpu, PivotsEqualCusolver) {
  DLA_REQUIRE_GPU();
  for (index_t n : {17, 128, 129, 1000, 3001}) compare_to_cusolver<double>(n, 500 + n);
  for (index_t n : {17, 128, 129, 1000}) compare_to_cusolver<float>(n, 600 + n);
}
#endif

}  // namespace
}  // namespace dla::test
