// Small runs of every device kernel family, for compute-sanitizer (memcheck
// and racecheck) on the device machine: scripts/gpu-check.sh runs the tests
// named *Sanitize* under both tools. Sizes are small and irregular so edge
// paths run; each test also checks the result is finite and info is right,
// so a kernel that writes nothing fails here too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "dla/core.hpp"
#include "dla/gemm.hpp"
#include "dla/solvers.hpp"
#include "test_util.hpp"

#if DLA_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {
using dla::index_t;
using dla::test::Mat;

#if DLA_HAVE_CUDA
template <class T>
Mat<T> well_conditioned(index_t n, std::uint64_t seed) {
  Mat<T> a = dla::test::random_matrix<T>(n, n, seed);
  a.diagonal().array() += T(n);
  return a;
}
template <class T>
Mat<T> spd(index_t n, std::uint64_t seed) {
  Mat<T> a = dla::test::random_matrix<T>(n, n, seed);
  Mat<T> s = (a + a.transpose()) / 2;
  s.diagonal().array() += T(n);
  return s;
}
// On the stream the kernels ran on: a Context's stream is non-blocking, so a
// download on the legacy default stream would not wait for them (it raced:
// under memcheck, SanitizeBatched.RowKernels read info before it was written).
int read_info(const dla::DeviceBuffer<int>& info, const dla::Context& ctx) {
  int h = -1;
  info.download(&h, 1, ctx.stream());
  ctx.synchronize();
  return h;
}
#endif

TEST(SanitizeGemm, EveryVariantSmallIrregular) {
  DLA_REQUIRE_GPU();
#if DLA_HAVE_CUDA
  dla::Context ctx(dla::Backend::Cuda);
  const index_t m = 67, n = 45, k = 33;
  for (auto opA : {dla::Op::N, dla::Op::T})
    for (auto opB : {dla::Op::N, dla::Op::T}) {
      Mat<float> A = opA == dla::Op::N ? dla::test::random_matrix<float>(m + 3, k, 1)
                                       : dla::test::random_matrix<float>(k + 3, m, 1);
      Mat<float> B = opB == dla::Op::N ? dla::test::random_matrix<float>(k + 1, n, 2)
                                       : dla::test::random_matrix<float>(n + 1, k, 2);
      dla::DeviceMatrix<float> dA(A), dB(B);
      for (const std::string& v : dla::cuda::sgemm_variants()) {
        if (!dla::cuda::sgemm_variant_available(v)) continue;  // wgmma off Hopper
        dla::DeviceMatrix<float> dC(Mat<float>::Constant(m + 2, n, 0.5f));
        ASSERT_EQ(dla::cuda::sgemm_variant(v, ctx.stream(), opA, opB, m, n, k, 1.0f, dA.data(),
                                           dA.ld(), dB.data(), dB.ld(), 0.5f, dC.data(), dC.ld()),
                  0)
            << v;
        Mat<float> C = dC.to_host(ctx.stream());
        EXPECT_TRUE(C.allFinite()) << v;
      }
    }
  // DGEMM: both FP64 tensor-core configs (dgemm_auto_choice; 128 x 128 once
  // the tiles fill the device), every op pair, 16-byte (even ld) and 8-byte
  // (odd ld) operand copies.
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  struct D { index_t m, n, k; };
  for (const D& d : {D{31, 17, 20}, D{128 * ((index_t(sms) + 9) / 10) - 37, 11 * 128 - 5, 33}})
    for (dla::Op opA : {dla::Op::N, dla::Op::T})
      for (dla::Op opB : {dla::Op::N, dla::Op::T}) {
        const index_t ar = opA == dla::Op::N ? d.m : d.k, ac = opA == dla::Op::N ? d.k : d.m;
        const index_t br = opB == dla::Op::N ? d.k : d.n, bc = opB == dla::Op::N ? d.n : d.k;
        const index_t pad = opA == opB ? 1 : 0;
        dla::DeviceMatrix<double> dA(dla::test::random_matrix<double>(ar + pad, ac, 3));
        dla::DeviceMatrix<double> dB(dla::test::random_matrix<double>(br + pad, bc, 4));
        dla::DeviceMatrix<double> dC(Mat<double>::Constant(d.m, d.n, 0.5));
        const std::string choice = dla::cuda::dgemm_auto_choice(d.m, d.n);
        ASSERT_EQ(dla::cuda::dgemm(ctx.stream(), opA, opB, d.m, d.n, d.k, 1.0, dA.data(),
                                   dA.ld(), dB.data(), dB.ld(), 0.5, dC.data(), dC.ld()),
                  0)
            << choice;
        EXPECT_TRUE(dC.to_host(ctx.stream()).allFinite()) << choice;
      }
#endif
}

// The scratch-memory paths of "auto": split-K (every tile, and only the last
// wave's tiles) with its reduction kernel, and the operand packing kernels.
TEST(SanitizeGemm, AutoSplitAndPackPaths) {
  DLA_REQUIRE_GPU();
#if DLA_HAVE_CUDA
  dla::Context ctx(dla::Backend::Cuda);
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  const index_t tail_m = 128 * ((2 * index_t(sms) + 20 + 3) / 4) - 5;
  struct S { dla::Op a, b; index_t m, n, k, pad; const char* path; };
  for (const S& sh : {S{dla::Op::N, dla::Op::N, 67, 45, 2100, 0, "split_k"},
                      S{dla::Op::T, dla::Op::N, 67, 45, 5000, 0, "split_k"},
                      S{dla::Op::N, dla::Op::T, 600, 520, 33, 1, "pack_a pack_b"},
                      S{dla::Op::T, dla::Op::N, tail_m, 500, 1024, 0, "tail_split_k"}}) {
    const index_t ar = sh.a == dla::Op::N ? sh.m : sh.k, ac = sh.a == dla::Op::N ? sh.k : sh.m;
    const index_t br = sh.b == dla::Op::N ? sh.k : sh.n, bc = sh.b == dla::Op::N ? sh.n : sh.k;
    // pad = 1: odd leading dimensions (ar + 1 with ar even), so packing applies.
    dla::DeviceMatrix<float> dA(dla::test::random_matrix<float>(ar + sh.pad, ac, 5));
    dla::DeviceMatrix<float> dB(dla::test::random_matrix<float>(br + sh.pad, bc, 6));
    dla::DeviceMatrix<float> dC(Mat<float>::Constant(sh.m, sh.n, 0.5f));
    const std::string choice =
        dla::cuda::sgemm_auto_choice(sh.a, sh.b, sh.m, sh.n, sh.k, dA.ld(), dB.ld());
    EXPECT_NE(choice.find(sh.path), std::string::npos) << choice;
    ASSERT_EQ(dla::cuda::sgemm(ctx.stream(), sh.a, sh.b, sh.m, sh.n, sh.k, 1.0f, dA.data(),
                               dA.ld(), dB.data(), dB.ld(), 0.5f, dC.data(), dC.ld()),
              0)
        << choice;
    EXPECT_TRUE(dC.to_host(ctx.stream()).allFinite()) << choice;
  }
#endif
}

// Triangular GEMM launches (sgemmt through ssyrk; dsyrk): both tile sizes
// (64x64 below a device's worth of triangle tiles, 128x128 above), both
// triangles, trapezoids through sgemmt, both FP32 product modes.
TEST(SanitizeGemm, TriangularPaths) {
  DLA_REQUIRE_GPU();
#if DLA_HAVE_CUDA
  dla::Context ctx(dla::Backend::Cuda);
  for (auto math : {dla::cuda::Fp32Gemm::Native, dla::cuda::Fp32Gemm::Tf32x3})
    for (auto uplo : {dla::Uplo::Lower, dla::Uplo::Upper})
      for (index_t n : {index_t(67), index_t(2050)}) {
        dla::DeviceMatrix<float> dA(dla::test::random_matrix<float>(n + 1, 33, 7));
        dla::DeviceMatrix<float> dC(Mat<float>::Constant(n, n, 0.5f));
        ASSERT_EQ(dla::cuda::ssyrk(ctx.stream(), uplo, dla::Op::N, n, 33, -1.0f, dA.data(),
                                   dA.ld(), 1.0f, dC.data(), dC.ld(), math),
                  0);
        EXPECT_TRUE(dC.to_host(ctx.stream()).allFinite());
        // Trapezoid: the first 45 columns (lower) / rows (upper) of C.
        const index_t m = uplo == dla::Uplo::Lower ? n : 45, nn = uplo == dla::Uplo::Lower ? 45 : n;
        dla::DeviceMatrix<float> dB(dla::test::random_matrix<float>(nn, 33, 8));
        ASSERT_EQ(dla::cuda::sgemmt(ctx.stream(), uplo, dla::Op::N, dla::Op::T, m, nn, 33, 1.0f,
                                    dA.data(), dA.ld(), dB.data(), dB.ld(), 0.5f, dC.data(),
                                    dC.ld(), math),
                  0);
        EXPECT_TRUE(dC.to_host(ctx.stream()).allFinite());
      }
  for (index_t n : {index_t(71), index_t(2050)}) {  // 64 x 64 and 128 x 128 FP64 tiles
    dla::DeviceMatrix<double> dA(dla::test::random_matrix<double>(20, n, 9));
    dla::DeviceMatrix<double> dC(Mat<double>::Constant(n, n, 0.5));
    ASSERT_EQ(dla::cuda::dsyrk(ctx.stream(), n == 71 ? dla::Uplo::Upper : dla::Uplo::Lower,
                               dla::Op::T, n, 20, 1.0, dA.data(), dA.ld(), 0.0, dC.data(),
                               dC.ld()),
              0);
    EXPECT_TRUE(dC.to_host(ctx.stream()).allFinite());
  }
#endif
}

TEST(SanitizeTrsm, AllSixteenCombinations) {
  DLA_REQUIRE_GPU();
#if DLA_HAVE_CUDA
  dla::Context ctx(dla::Backend::Cuda);
  const index_t m = 70, n = 37;
  for (auto side : {dla::Side::Left, dla::Side::Right})
    for (auto uplo : {dla::Uplo::Lower, dla::Uplo::Upper})
      for (auto op : {dla::Op::N, dla::Op::T})
        for (auto diag : {dla::Diag::NonUnit, dla::Diag::Unit}) {
          const index_t na = side == dla::Side::Left ? m : n;
          dla::DeviceMatrix<float> dA(well_conditioned<float>(na, 5));
          dla::DeviceMatrix<float> dB(dla::test::random_matrix<float>(m, n, 6));
          ASSERT_EQ(dla::cuda::strsm(ctx.stream(), side, uplo, op, diag, m, n, 1.0f, dA.data(),
                                     dA.ld(), dB.data(), dB.ld()),
                    0);
          EXPECT_TRUE(dB.to_host(ctx.stream()).allFinite());
        }
  // Side Left with few right-hand sides and order > 128: the chained sweep
  // (trsm_sweep_kernel), a partial last block (200 = 3 x 64 + 8) and a
  // partial third group of 16 vectors (37), float and double. Off-diagonal
  // entries of size 1/200, so that the unit-diagonal solves stay finite.
  const auto scaled = []<class M>(const M& a) { return M(a / typename M::Scalar(200)); };
  for (auto uplo : {dla::Uplo::Lower, dla::Uplo::Upper})
    for (auto op : {dla::Op::N, dla::Op::T})
      for (auto diag : {dla::Diag::NonUnit, dla::Diag::Unit}) {
        dla::DeviceMatrix<float> dA(scaled(well_conditioned<float>(200, 11)));
        dla::DeviceMatrix<float> dB(dla::test::random_matrix<float>(200, 37, 12));
        ASSERT_EQ(dla::cuda::strsm(ctx.stream(), dla::Side::Left, uplo, op, diag, 200, 37, -1.0f,
                                   dA.data(), dA.ld(), dB.data(), dB.ld()),
                  0);
        EXPECT_TRUE(dB.to_host(ctx.stream()).allFinite());
        dla::DeviceMatrix<double> dAd(scaled(well_conditioned<double>(200, 13)));
        dla::DeviceMatrix<double> dBd(dla::test::random_matrix<double>(200, 5, 14));
        ASSERT_EQ(dla::cuda::dtrsm(ctx.stream(), dla::Side::Left, uplo, op, diag, 200, 5, 2.0,
                                   dAd.data(), dAd.ld(), dBd.data(), dBd.ld()),
                  0);
        EXPECT_TRUE(dBd.to_host(ctx.stream()).allFinite());
      }
  // Side Right with >= 1024 rows: the thread-per-row leaf (trsm_rows_kernel),
  // orders 100 (one 128 leaf) and 200 (a 128 and a 64 leaf around a GEMM).
  for (index_t k : {index_t(100), index_t(200)})
    for (auto uplo : {dla::Uplo::Lower, dla::Uplo::Upper})
      for (auto op : {dla::Op::N, dla::Op::T}) {
        const index_t rows = 1030;
        dla::DeviceMatrix<float> dA(well_conditioned<float>(k, 7));
        dla::DeviceMatrix<float> dB(dla::test::random_matrix<float>(rows, k, 8));
        ASSERT_EQ(dla::cuda::strsm(ctx.stream(), dla::Side::Right, uplo, op, dla::Diag::NonUnit,
                                   rows, k, 0.5f, dA.data(), dA.ld(), dB.data(), dB.ld()),
                  0);
        EXPECT_TRUE(dB.to_host(ctx.stream()).allFinite());
      }
  // A diagonal entry below FLT_MIN, whose reciprocal overflows: each kernel's
  // scaled path (sfmin.cuh) and the sweep's substitution. The entry's row and
  // column of the triangle are zero and B's row (Left) or column (Right) is
  // scaled by it, so X stays finite. The 128 leaf (70 x 37), the sweep (200 x
  // 37, a partial last block) and the thread-per-row leaf (1030 x 100).
  const float tiny = std::numeric_limits<float>::min() / 64;
  struct TinyCase {
    dla::Side side;
    index_t m, n;
  };
  for (const TinyCase c : {TinyCase{dla::Side::Left, 70, 37}, TinyCase{dla::Side::Left, 200, 37},
                           TinyCase{dla::Side::Right, 1030, 100}})
    for (auto uplo : {dla::Uplo::Lower, dla::Uplo::Upper})
      for (auto op : {dla::Op::N, dla::Op::T}) {
        const index_t na = c.side == dla::Side::Left ? c.m : c.n, i = na / 2;
        Mat<float> A = well_conditioned<float>(na, 21);
        A.row(i).setZero();
        A.col(i).setZero();
        A(i, i) = tiny;
        Mat<float> B = dla::test::random_matrix<float>(c.m, c.n, 22);
        if (c.side == dla::Side::Left) B.row(i) *= tiny;
        else B.col(i) *= tiny;
        dla::DeviceMatrix<float> dA(A), dB(B);
        ASSERT_EQ(dla::cuda::strsm(ctx.stream(), c.side, uplo, op, dla::Diag::NonUnit, c.m, c.n,
                                   1.0f, dA.data(), dA.ld(), dB.data(), dB.ld()),
                  0);
        EXPECT_TRUE(dB.to_host(ctx.stream()).allFinite()) << c.m << " x " << c.n;
      }
#endif
}

TEST(SanitizeLu, GetrfGetrsSquareAndRectangular) {
  DLA_REQUIRE_GPU();
#if DLA_HAVE_CUDA
  dla::Context ctx(dla::Backend::Cuda);
  // 700 x 700 with nb = 128: two-stream look-ahead, inv(L11) kernel, 64-column
  // cluster leaves over 3 CTAs; the others one panel each (nb = 64).
  // Then each shape again with a first column below FLT_MIN: the panel
  // leaves' scaled multipliers (sfmin.cuh).
  // 1101 x 1030 (lda = m, misaligned): the aligned copy in the workspace
  // (getrf_pads) and back.
  for (bool tiny : {false, true}) {
    for (auto [m, n] : {std::pair<index_t, index_t>{300, 300}, {333, 90}, {90, 200}, {700, 700},
                        {1101, 1030}}) {
      dla::test::ScopedEnv nb("DLA_GETRF_NB", m == 700 ? "128" : "64");
      Mat<float> A = dla::test::random_matrix<float>(m, n, 7);
      if (tiny) A.col(0) *= std::numeric_limits<float>::min() / 64;
      dla::DeviceMatrix<float> dA(A);
      dla::DeviceBuffer<std::int32_t> ipiv(std::min(m, n));
      dla::DeviceBuffer<int> info(1);
      const std::size_t ws = dla::cuda::sgetrf_buffer_size(m, n, dA.data(), dA.ld());
      if (!std::getenv("DLA_GETRF_PAD"))  // the rule: the copy at 1101 x 1030
        EXPECT_EQ(ws > dla::cuda::sgetrf_buffer_size(m, n), m == 1101);
      dla::DeviceBuffer<char> work(index_t(ws) + 1);
      ASSERT_EQ(dla::cuda::sgetrf(ctx.stream(), m, n, dA.data(), dA.ld(), ipiv.data(), info.data(),
                                  work.data(), ws),
                0);
      EXPECT_EQ(read_info(info, ctx), 0) << m << "x" << n;
      EXPECT_TRUE(dA.to_host(ctx.stream()).allFinite());
      if (m == n && !tiny) {  // with the tiny column, x(0) ~ 1 / tiny overflows
        dla::DeviceMatrix<float> dB(dla::test::random_matrix<float>(n, 3, 8));
        for (auto op : {dla::Op::N, dla::Op::T}) {
          ASSERT_EQ(dla::cuda::sgetrs(ctx.stream(), op, n, 3, dA.data(), dA.ld(), ipiv.data(),
                                      dB.data(), dB.ld()),
                    0);
          EXPECT_TRUE(dB.to_host(ctx.stream()).allFinite());
        }
      }
    }
  }
#endif
}

TEST(SanitizeCholesky, PotrfPotrsBothTriangles) {
  DLA_REQUIRE_GPU();
#if DLA_HAVE_CUDA
  dla::Context ctx(dla::Backend::Cuda);
  // 300 and 1100: look-ahead with the fused diagonal + panel kernels (nb 64 / 128,
  // partial last blocks), float and double; 1101 (lda = n, misaligned): the
  // aligned copy in the workspace (potrf_pads) and back.
  for (index_t n : {index_t(300), index_t(1100), index_t(1101)}) {
    for (auto uplo : {dla::Uplo::Lower, dla::Uplo::Upper}) {
      dla::DeviceMatrix<float> dA(spd<float>(n, 9));
      dla::DeviceBuffer<int> info(1);
      const std::size_t ws = dla::cuda::spotrf_buffer_size(n, dA.data(), dA.ld());
      if (!std::getenv("DLA_POTRF_PAD")) EXPECT_EQ(ws > 0, n == 1101);  // the rule: the copy at 1101
      dla::DeviceBuffer<char> work(index_t(ws) + 1);
      ASSERT_EQ(dla::cuda::spotrf(ctx.stream(), uplo, n, dA.data(), dA.ld(), info.data(), work.data(), ws),
                0);
      EXPECT_EQ(read_info(info, ctx), 0);
      dla::DeviceMatrix<float> dB(dla::test::random_matrix<float>(n, 4, 10));
      ASSERT_EQ(dla::cuda::spotrs(ctx.stream(), uplo, n, 4, dA.data(), dA.ld(), dB.data(), dB.ld()), 0);
      EXPECT_TRUE(dB.to_host(ctx.stream()).allFinite());
    }
  }
  // A minor that fails inside a 16-column leaf of the 128-block at 128
  // (column 150: info 151): the float diagonal kernel's failure path, which
  // stores the partly updated block.
  for (auto uplo : {dla::Uplo::Lower, dla::Uplo::Upper}) {
    Mat<float> a = spd<float>(300, 29);
    a(150, 150) = -a(150, 150);
    dla::DeviceMatrix<float> dA(a);
    dla::DeviceBuffer<int> info(1);
    ASSERT_EQ(dla::cuda::spotrf(ctx.stream(), uplo, 300, dA.data(), dA.ld(), info.data(), nullptr),
              0);
    EXPECT_EQ(read_info(info, ctx), 151);
  }
  for (index_t n : {index_t(300), index_t(1100)})
    for (auto uplo : {dla::Uplo::Lower, dla::Uplo::Upper}) {
      dla::DeviceMatrix<double> dD(spd<double>(n, 19));
      dla::DeviceBuffer<int> dinfo(1);
      ASSERT_EQ(dla::cuda::dpotrf(ctx.stream(), uplo, n, dD.data(), dD.ld(), dinfo.data(),
                                  nullptr),
                0);
      EXPECT_EQ(read_info(dinfo, ctx), 0);
      EXPECT_TRUE(dD.to_host(ctx.stream()).allFinite());
    }
#endif
}

#if DLA_HAVE_CUDA
// getrf, getrs (N and T), potrf, potrs, posv (Upper) and gesv on 5 matrices
// of each order in `sizes`.
void batched_every_routine(const std::vector<index_t>& sizes) {
  dla::Context ctx(dla::Backend::Cuda);
  const index_t count = 5;
  for (index_t n : sizes) {
    Mat<float> all(n, n * count), allspd(n, n * count);
    for (index_t b = 0; b < count; ++b) {
      all.middleCols(b * n, n) = well_conditioned<float>(n, 11 + b);
      allspd.middleCols(b * n, n) = spd<float>(n, 21 + b);
    }
    dla::DeviceMatrix<float> dA(all), dS(allspd);
    dla::DeviceBuffer<std::int32_t> ipiv(n * count), info(count);
    ASSERT_EQ(dla::cuda::sgetrf_batched(ctx.stream(), n, dA.data(), n, n * n, ipiv.data(),
                                        info.data(), count), 0) << n;
    dla::DeviceMatrix<float> dB(dla::test::random_matrix<float>(n, 2 * count, 12));
    ASSERT_EQ(dla::cuda::sgetrs_batched(ctx.stream(), dla::Op::N, n, 2, dA.data(), n, n * n,
                                        ipiv.data(), dB.data(), n, 2 * n, count), 0) << n;
    ASSERT_EQ(dla::cuda::spotrf_batched(ctx.stream(), dla::Uplo::Lower, n, dS.data(), n, n * n,
                                        info.data(), count), 0) << n;
    dla::DeviceMatrix<float> dC(dla::test::random_matrix<float>(n, 2 * count, 13));
    ASSERT_EQ(dla::cuda::spotrs_batched(ctx.stream(), dla::Uplo::Lower, n, 2, dS.data(), n, n * n,
                                        dC.data(), n, 2 * n, count), 0) << n;
    std::vector<std::int32_t> h(count);
    info.download(h.data(), count, ctx.stream());
    ctx.synchronize();
    for (auto v : h) EXPECT_EQ(v, 0) << n;
    // The other solve paths: transposed getrs, upper potrs, and gesv (one
    // fused kernel for n <= 32).
    dla::DeviceMatrix<float> dT(dla::test::random_matrix<float>(n, 2 * count, 14));
    ASSERT_EQ(dla::cuda::sgetrs_batched(ctx.stream(), dla::Op::T, n, 2, dA.data(), n, n * n,
                                        ipiv.data(), dT.data(), n, 2 * n, count), 0) << n;
    dla::DeviceMatrix<float> dU(allspd), dE(dla::test::random_matrix<float>(n, 2 * count, 15));
    ASSERT_EQ(dla::cuda::sposv_batched(ctx.stream(), dla::Uplo::Upper, n, 2, dU.data(), n, n * n,
                                       dE.data(), n, 2 * n, info.data(), count), 0) << n;
    dla::DeviceMatrix<float> dG(all), dF(dla::test::random_matrix<float>(n, 2 * count, 16));
    ASSERT_EQ(dla::cuda::sgesv_batched(ctx.stream(), n, 2, dG.data(), n, n * n, ipiv.data(),
                                       dF.data(), n, 2 * n, info.data(), count), 0) << n;
    info.download(h.data(), count, ctx.stream());
    ctx.synchronize();
    for (auto v : h) EXPECT_EQ(v, 0) << n;
    for (const auto* m : {&dA, &dB, &dC, &dT, &dU, &dE, &dG, &dF})
      EXPECT_TRUE(m->to_host(ctx.stream()).allFinite()) << n;
  }
}
#endif

TEST(SanitizeBatched, EverySizeClass) {
  DLA_REQUIRE_GPU();
#if DLA_HAVE_CUDA
  batched_every_routine({1, 5, 12, 32, 45, 100, 129, 256});
#endif
}

// The row-per-thread kernels (batched_rows.cu) at both register widths
// (64, 128), full and partial (EverySizeClass has 45 and 100).
TEST(SanitizeBatched, RowKernels) {
  DLA_REQUIRE_GPU();
#if DLA_HAVE_CUDA
  batched_every_routine({33, 64, 65, 128});
#endif
}

// The matrix-per-thread(s) LU (n <= 16, batched_tiny.cu: one thread per
// matrix up to n = 8, then 2 (FP32) or 4 (FP64 from n = 11) threads that meet
// in shuffles) copies its tile through shared memory by 16-byte pieces when
// the batch is contiguous and element by element otherwise (lda > n, and
// pointer arrays): every path, with a partial last tile (70 = 64 + 6 = 2 * 32
// + 6 = 4 * 16 + 6 matrices).
#if DLA_HAVE_CUDA
template <class T>
void tiny_copy_paths(const std::vector<index_t>& sizes) {
  dla::Context ctx(dla::Backend::Cuda);
  const index_t count = 70;
  for (index_t n : sizes) {
    for (index_t lda : {n, n + 1}) {
      Mat<T> all(lda, n * count);
      for (index_t b = 0; b < count; ++b)
        all.middleCols(b * n, n) = dla::test::random_matrix<T>(lda, n, 31 + b);
      dla::DeviceMatrix<T> dA(all), dG(all);
      dla::DeviceMatrix<T> dB(dla::test::random_matrix<T>(n, 2 * count, 32));
      dla::DeviceBuffer<std::int32_t> ipiv(n * count), info(count);
      std::vector<T*> ptrs(static_cast<std::size_t>(count));
      for (index_t b = 0; b < count; ++b) ptrs[std::size_t(b)] = dA.data() + b * lda * n;
      dla::DeviceBuffer<T*> dptrs(count);
      dptrs.upload(ptrs.data(), count, ctx.stream());
      if constexpr (std::is_same_v<T, float>) {
        ASSERT_EQ(dla::cuda::sgetrf_batched(ctx.stream(), n, dA.data(), lda, lda * n, ipiv.data(),
                                            info.data(), count), 0) << n;
        ASSERT_EQ(dla::cuda::sgesv_batched(ctx.stream(), n, 2, dG.data(), lda, lda * n, ipiv.data(),
                                           dB.data(), n, 2 * n, info.data(), count), 0) << n;
        ASSERT_EQ(dla::cuda::sgetrf_batched_ptr(ctx.stream(), n, dptrs.data(), lda, ipiv.data(),
                                                info.data(), count), 0) << n;
      } else {
        ASSERT_EQ(dla::cuda::dgetrf_batched(ctx.stream(), n, dA.data(), lda, lda * n, ipiv.data(),
                                            info.data(), count), 0) << n;
        ASSERT_EQ(dla::cuda::dgesv_batched(ctx.stream(), n, 2, dG.data(), lda, lda * n, ipiv.data(),
                                           dB.data(), n, 2 * n, info.data(), count), 0) << n;
        ASSERT_EQ(dla::cuda::dgetrf_batched_ptr(ctx.stream(), n, dptrs.data(), lda, ipiv.data(),
                                                info.data(), count), 0) << n;
      }
      ctx.synchronize();
      EXPECT_TRUE(dA.to_host(ctx.stream()).allFinite()) << n;
      EXPECT_TRUE(dB.to_host(ctx.stream()).allFinite()) << n;
    }
  }
}
#endif

TEST(SanitizeBatched, ThreadPerMatrixCopyPaths) {
  DLA_REQUIRE_GPU();
#if DLA_HAVE_CUDA
  tiny_copy_paths<float>({3, 8, 11, 16});  // 1 thread per matrix, then 2
  tiny_copy_paths<double>({10, 16});       // 2 and 4 threads per matrix
#endif
}

}  // namespace
