// The low-level dla::cuda Cholesky API on the GPU (skips without one; the
// whole file needs CUDA): device info, odd and misaligned lda with and without
// a workspace, the untouched other triangle and padding, two streams back to
// back, NaN and subnormal pivots, the diagonal-block kernel alone, and a
// comparison with cusolverDnSpotrf. Part of the cholesky_test binary, so the
// ctest variants of cholesky_test.cmake filter these tests too.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "dla/core/config.hpp"
#include "dla/core/context.hpp"
#include "dla/core/device_matrix.hpp"
#include "dla/core/error.hpp"
#include "dla/solvers/cholesky.hpp"
#include "dla/solvers/cholesky_cuda.hpp"
#include "test_util.hpp"

#if DLA_HAVE_CUDA
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include "dla/core/cuda_check.hpp"
#include "dla/gemm/gemm_cuda.hpp"
#endif

#include "cholesky_test_util.hpp"

namespace {

using namespace cholesky_test;

#if DLA_HAVE_CUDA
// Low level: device info, odd lda, the other triangle and the padding untouched.
// `ws`: no workspace (nullptr, 0 bytes), a workspace of spotrf_buffer_size
// bytes (Exact), or 4 bytes fewer (Short: spotrf must factor in place). The
// workspace is poisoned with 64 guard bytes after it; spotrf must not write
// past the bytes it was given, and it writes into them only where it takes
// the aligned copy (expected: A misaligned, potrf_pads(n) by its rule or
// DLA_POTRF_PAD, an Exact workspace), which the copy's first entry, L(0, 0)
// again after the copy back, shows. `offset` elements before A's first entry
// (sentinels too) misalign A's address while lda % 4 == 0.
enum class Ws { None, Exact, Short };

template <class T>
void low_level_case(index_t n, index_t fail_k, Uplo uplo, Ws ws_mode = Ws::None,
                    index_t offset = 0) {
  const MatD A = fail_k < 0 ? random_spd(n, 42) : spd_failing_at(n, fail_k, 43);
  const index_t lda = n + 3;
  const T sentinel = T(12345.5);
  std::vector<T> h(std::size_t(offset + lda * n), sentinel);
  T* ha = h.data() + offset;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i)
      if (uplo == Uplo::Lower ? i >= j : i <= j) ha[std::size_t(i + j * lda)] = T(A(i, j));
  dla::Context ctx(dla::Backend::Cuda);
  dla::DeviceBuffer<T> d(index_t(h.size()));
  dla::DeviceBuffer<int> info(1);
  d.upload(h.data(), index_t(h.size()), ctx.stream());
  T* da = d.data() + offset;
  const std::string where = "n=" + std::to_string(n) + " lda=" + std::to_string(lda) +
                            " offset=" + std::to_string(offset) +
                            (ws_mode == Ws::Exact ? " exact workspace"
                             : ws_mode == Ws::Short ? " short workspace" : "");
  int r;
  if constexpr (std::is_same_v<T, float>) {
    const std::size_t need = dla::cuda::spotrf_buffer_size(n, da, lda);
    const char* env = std::getenv("DLA_POTRF_PAD");
    const bool misaligned = lda % 4 != 0 || offset % 4 != 0;
    const bool pads = env ? env[0] == '1' : n >= dla::cuda::kPotrfPadMin;
    EXPECT_EQ(need > 0, misaligned && pads) << where;
    const std::size_t bytes = ws_mode == Ws::Exact ? need
                              : ws_mode == Ws::Short && need >= 4 ? need - 4 : 0;
    const bool expect_copy = ws_mode == Ws::Exact && need > 0;
    constexpr std::size_t kGuard = 64;
    dla::DeviceBuffer<unsigned char> work(index_t(bytes + kGuard));
    const auto cs = reinterpret_cast<cudaStream_t>(ctx.stream());
    DLA_CUDA_CHECK(cudaMemsetAsync(work.data(), 0xff, bytes + kGuard, cs));
    r = dla::cuda::spotrf(ctx.stream(), uplo, n, da, lda, info.data(),
                          ws_mode == Ws::None ? nullptr : work.data(), bytes);
    std::vector<unsigned char> hw(bytes + kGuard);
    work.download(hw.data(), index_t(hw.size()), ctx.stream());
    ctx.synchronize();
    bool guard_ok = true;
    for (std::size_t b = bytes; b < hw.size(); ++b) guard_ok = guard_ok && hw[b] == 0xff;
    EXPECT_TRUE(guard_ok) << where << ": spotrf wrote past the workspace it was given";
    float w0 = 0;
    std::memcpy(&w0, hw.data(), sizeof w0);
    if (expect_copy) {
      float a0 = 0;
      DLA_CUDA_CHECK(cudaMemcpy(&a0, da, sizeof a0, cudaMemcpyDeviceToHost));
      EXPECT_EQ(w0, a0) << where << ": the aligned copy was not taken";
    } else {
      bool untouched = true;
      for (std::size_t b = 0; b < bytes; ++b) untouched = untouched && hw[b] == 0xff;
      EXPECT_TRUE(untouched) << where << ": the workspace was written without the aligned copy";
    }
  } else {
    r = dla::cuda::dpotrf(ctx.stream(), uplo, n, da, lda, info.data(), nullptr);
  }
  ASSERT_EQ(r, 0);
  int hinfo = -7;
  info.download(&hinfo, 1, ctx.stream());
  d.download(h.data(), index_t(h.size()), ctx.stream());
  ctx.synchronize();
  EXPECT_EQ(hinfo, fail_k < 0 ? 0 : int(fail_k + 1)) << where;
  bool untouched = true;
  for (index_t e = 0; e < offset; ++e) untouched = untouched && h[std::size_t(e)] == sentinel;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < lda; ++i) {
      const bool stored = i < n && (uplo == Uplo::Lower ? i >= j : i <= j);
      if (!stored && ha[std::size_t(i + j * lda)] != sentinel) untouched = false;
    }
  EXPECT_TRUE(untouched) << where << ": the other triangle or the padding was written";
  if (fail_k < 0) {
    dla::Matrix<T> F = dla::Matrix<T>::Zero(n, n);
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i < n; ++i)
        if (uplo == Uplo::Lower ? i >= j : i <= j) F(i, j) = ha[std::size_t(i + j * lda)];
    EXPECT_LE(factor_residual<T>(A.cast<T>().template cast<double>(), F, uplo), 50.0) << where;
  }
}

TEST(CholeskyDevice, LowLevelInfoAndUntouchedTriangle) {
  DLA_REQUIRE_GPU();
  for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
    // lda = n + 3: 1501 and 2045 give lda % 4 == 0, where the look-ahead's
    // critical-path updates run potrf_update_kernel on partial vectors and
    // tiles (the other orders take the triangular GEMM).
    for (index_t n : {index_t(1), index_t(65), index_t(300), index_t(1500), index_t(1501),
                      index_t(2045)})
      low_level_case<float>(n, -1, u);
    low_level_case<float>(2045, 1300, u);
    low_level_case<float>(1500, 777, u);
    low_level_case<float>(1500, 0, u);
    low_level_case<double>(700, -1, u);
    low_level_case<double>(700, 129, u);
    // With a workspace: misaligned lda (1030 + 3, 1500 + 3) or address
    // (offset 1, lda 1104) factor in the aligned copy, failing minors
    // included; an aligned A (lda 1504), n < kPotrfPadMin (1, 65, 300) and a
    // workspace 4 bytes short factor in place. The variant
    // cholesky_test.blocking_pad_all (DLA_POTRF_PAD=1) copies at every order.
    for (index_t n : {index_t(1), index_t(65), index_t(300), index_t(1030), index_t(1500),
                      index_t(1501)})
      low_level_case<float>(n, -1, u, Ws::Exact);
    low_level_case<float>(1500, 777, u, Ws::Exact);
    low_level_case<float>(300, 100, u, Ws::Exact);
    low_level_case<float>(1101, -1, u, Ws::Exact, 1);
    low_level_case<float>(1, -1, u, Ws::Exact, 1);  // in place; copied under pad_all
    low_level_case<float>(65, -1, u, Ws::Exact, 1);
    low_level_case<float>(1500, -1, u, Ws::Short);
  }
  dla::Context ctx(dla::Backend::Cuda);
  dla::DeviceBuffer<int> info(1);
  dla::DeviceBuffer<float> a(16);
  EXPECT_EQ(dla::cuda::spotrf(ctx.stream(), Uplo::Lower, -1, a.data(), 4, info.data(), nullptr),
            -2);
  EXPECT_EQ(dla::cuda::spotrf(ctx.stream(), Uplo::Lower, 4, a.data(), 3, info.data(), nullptr),
            -4);
  EXPECT_EQ(dla::cuda::spotrf(ctx.stream(), Uplo::Lower, 4, a.data(), 4, nullptr, nullptr), -5);
  EXPECT_EQ(dla::cuda::spotrs(ctx.stream(), Uplo::Lower, 4, 2, a.data(), 4, a.data(), 3), -7);
  EXPECT_EQ(dla::cuda::spotrf(ctx.stream(), Uplo::Lower, 0, nullptr, 1, info.data(), nullptr), 0);
  int hinfo = -1;
  info.download(&hinfo, 1, ctx.stream());
  ctx.synchronize();
  EXPECT_EQ(hinfo, 0);
}

// Calls from one host thread on two streams, queued back to back without a
// synchronisation in between: they share the look-ahead's internal streams,
// events and progress words (potrf_lookahead.cuh, LookaheadResources), so a later call
// must neither reset a word an earlier call's side stream still waits for
// (the gate of the bulk update, session 31) nor overwrite its data. Each
// factor is checked; a protocol that lost a wake-up would hang here (the
// ctest timeout).
TEST(CholeskyDevice, BackToBackOnTwoStreams) {
  DLA_REQUIRE_GPU();
  const std::vector<index_t> sizes = {3000, 1100, 2500, 600, 3000};
  std::vector<MatD> A;
  for (std::size_t c = 0; c < sizes.size(); ++c) A.push_back(random_spd(sizes[c], 90 + c));
  dla::Context ctx[2] = {dla::Context(dla::Backend::Cuda), dla::Context(dla::Backend::Cuda)};
  std::vector<dla::DeviceBuffer<float>> d;
  std::vector<std::vector<float>> h(sizes.size());
  dla::DeviceBuffer<int> info(index_t(sizes.size()));
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    const index_t n = sizes[c];
    h[c].resize(std::size_t(n * n));
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i < n; ++i) h[c][std::size_t(i + j * n)] = float(A[c](i, j));
    d.emplace_back(n * n);
    d[c].upload(h[c].data(), n * n, ctx[c % 2].stream());
  }
  for (std::size_t c = 0; c < sizes.size(); ++c)
    ASSERT_EQ(dla::cuda::spotrf(ctx[c % 2].stream(), Uplo::Lower, sizes[c], d[c].data(), sizes[c],
                                info.data() + c, nullptr),
              0);
  std::vector<int> hinfo(sizes.size(), -7);
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    d[c].download(h[c].data(), sizes[c] * sizes[c], ctx[c % 2].stream());
    ctx[c % 2].synchronize();
  }
  info.download(hinfo.data(), index_t(sizes.size()), ctx[0].stream());
  ctx[0].synchronize();
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    const index_t n = sizes[c];
    EXPECT_EQ(hinfo[c], 0) << "call " << c << ", n=" << n;
    dla::Matrix<float> F = dla::Matrix<float>::Zero(n, n);
    for (index_t j = 0; j < n; ++j)
      for (index_t i = j; i < n; ++i) F(i, j) = h[c][std::size_t(i + j * n)];
    EXPECT_LE(factor_residual<float>(A[c].cast<float>().template cast<double>(), F, Uplo::Lower),
              50.0)
        << "call " << c << ", n=" << n;
  }
}

// A NaN in the stored triangle fails the first pivot it reaches: on the
// diagonal at (p, p) -> info p + 1; off the diagonal at (p, q), q < p, it
// propagates along row p to the pivot p -> info p + 1 too.
template <class T>
int nan_info(index_t n, Uplo uplo, index_t p, index_t q) {
  MatD A = random_spd(n, 44);
  const index_t lda = n + 1;
  std::vector<T> h(std::size_t(lda * n), T(0));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) h[std::size_t(i + j * lda)] = T(A(i, j));
  const index_t r = uplo == Uplo::Lower ? p : q, c = uplo == Uplo::Lower ? q : p;
  h[std::size_t(r + c * lda)] = std::numeric_limits<T>::quiet_NaN();
  dla::Context ctx(dla::Backend::Cuda);
  dla::DeviceBuffer<T> d(index_t(h.size()));
  dla::DeviceBuffer<int> info(1);
  d.upload(h.data(), index_t(h.size()), ctx.stream());
  int rc;
  if constexpr (std::is_same_v<T, float>)
    rc = dla::cuda::spotrf(ctx.stream(), uplo, n, d.data(), lda, info.data(), nullptr);
  else
    rc = dla::cuda::dpotrf(ctx.stream(), uplo, n, d.data(), lda, info.data(), nullptr);
  EXPECT_EQ(rc, 0);
  int hinfo = -7;
  info.download(&hinfo, 1, ctx.stream());
  ctx.synchronize();
  return hinfo;
}

TEST(CholeskyDevice, NaNFailsAtItsPivot) {
  DLA_REQUIRE_GPU();
  for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
    EXPECT_EQ(nan_info<float>(100, u, 37, 37), 38);
    EXPECT_EQ(nan_info<float>(100, u, 40, 10), 41);   // same 64-block
    EXPECT_EQ(nan_info<float>(300, u, 200, 3), 201);  // through panel trsm and update
    EXPECT_EQ(nan_info<double>(300, u, 63, 0), 64);   // last pivot of a leaf
    EXPECT_EQ(nan_info<double>(1100, u, 1099, 1099), 1100);
  }
}

// A subnormal pivot is positive: the factorization goes on (info 0) with
// L(p, p) = sqrt(pivot). Diagonal matrices, so that pivot reaches the
// diagonal kernel unchanged; the float tile kernel's fast rsqrt flushes
// subnormals and must not be used for it. The 1 x 1 block, a 64 and a 128
// block, and a block column of the look-ahead.
TEST(CholeskyDevice, SubnormalPivot) {
  DLA_REQUIRE_GPU();
  const float tiny = 1e-39f;  // subnormal in float
  ASSERT_LT(tiny, std::numeric_limits<float>::min());
  ASSERT_GT(tiny, 0.0f);
  for (Uplo u : {Uplo::Lower, Uplo::Upper})
    for (auto [n, p] : {std::pair<index_t, index_t>{1, 0}, {60, 37}, {128, 127}, {1500, 700}}) {
      std::vector<float> h(std::size_t(n * n), 0.0f);
      for (index_t i = 0; i < n; ++i) h[std::size_t(i + i * n)] = 4.0f;
      h[std::size_t(p + p * n)] = tiny;
      dla::Context ctx(dla::Backend::Cuda);
      dla::DeviceBuffer<float> d(index_t(h.size()));
      dla::DeviceBuffer<int> info(1);
      d.upload(h.data(), index_t(h.size()), ctx.stream());
      ASSERT_EQ(dla::cuda::spotrf(ctx.stream(), u, n, d.data(), n, info.data(), nullptr), 0);
      int hinfo = -7;
      info.download(&hinfo, 1, ctx.stream());
      d.download(h.data(), index_t(h.size()), ctx.stream());
      ctx.synchronize();
      EXPECT_EQ(hinfo, 0) << "n=" << n;
      const float want = std::sqrt(tiny);
      EXPECT_NEAR(h[std::size_t(p + p * n)], want, 4e-7f * want) << "n=" << n << " p=" << p;
      for (index_t i = 0; i < n; ++i)
        if (i != p) EXPECT_EQ(h[std::size_t(i + i * n)], 2.0f) << "n=" << n << " i=" << i;
    }
}

// The single-launch diagonal block (n = 256) at the low level: info, untouched
// triangle and padding, NaN off the diagonal inside a later sub-panel.
TEST(CholeskyDevice, DiagonalBlockKernelLowLevel) {
  DLA_REQUIRE_GPU();
  for (Uplo u : {Uplo::Lower, Uplo::Upper}) {
    low_level_case<float>(256, -1, u);
    low_level_case<float>(256, 200, u);
    low_level_case<double>(256, -1, u);
    low_level_case<double>(256, 200, u);
    EXPECT_EQ(nan_info<float>(256, u, 200, 100), 201);
    EXPECT_EQ(nan_info<double>(256, u, 255, 255), 256);
  }
}

// Same inputs through cusolverDnSpotrf: the factors agree.
TEST(CholeskyDevice, MatchesCusolver) {
  DLA_REQUIRE_GPU();
  dla::Context ctx(dla::Backend::Cuda);
  cusolverDnHandle_t h;
  ASSERT_EQ(cusolverDnCreate(&h), CUSOLVER_STATUS_SUCCESS);
  cusolverDnSetStream(h, reinterpret_cast<cudaStream_t>(ctx.stream()));
  for (index_t n : {index_t(129), index_t(1000), index_t(3001), index_t(4097)}) {
    const MatD A = random_spd(n, 900 + std::uint64_t(n));
    const dla::Matrix<float> Af = A.cast<float>();
    dla::DeviceMatrix<float> d1(Af, ctx.stream()), d2(Af, ctx.stream());
    dla::DeviceBuffer<int> i1(1), i2(1);
    ASSERT_EQ(dla::cuda::spotrf(ctx.stream(), Uplo::Lower, n, d1.data(), d1.ld(), i1.data(),
                                nullptr),
              0);
    int lwork = 0;
    cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, int(n), d2.data(), int(d2.ld()),
                                &lwork);
    dla::DeviceBuffer<float> work(std::max(lwork, 1));
    cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, int(n), d2.data(), int(d2.ld()), work.data(),
                     lwork, i2.data());
    int h1 = -1, h2 = -1;
    i1.download(&h1, 1, ctx.stream());
    i2.download(&h2, 1, ctx.stream());
    dla::Matrix<float> F1 = d1.to_host(ctx.stream()), F2 = d2.to_host(ctx.stream());
    ctx.synchronize();
    EXPECT_EQ(h1, 0);
    EXPECT_EQ(h2, 0);
    F1.triangularView<Eigen::StrictlyUpper>().setZero();
    F2.triangularView<Eigen::StrictlyUpper>().setZero();
    EXPECT_LE((F1 - F2).norm() / F2.norm(), 200 * std::sqrt(double(n)) * eps<float>())
        << "n=" << n;
  }
  cusolverDnDestroy(h);
}
#endif

}  // namespace
