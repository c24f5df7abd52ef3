// GEMM: exact small-integer tests of every SGEMM variant (GPU) and of the
// host fallback (CI), argument errors, unaligned sub-matrices, and random
// float comparisons against cuBLAS (GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "dla/core.hpp"
#include "dla/core/config.hpp"
#include "dla/gemm.hpp"
#include "dla/gemm/gemm_cuda.hpp"
#include "test_util.hpp"

#if DLA_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

namespace {
using dla::index_t;
using dla::Op;
using dla::cuda::Fp32Gemm;
using dla::test::Mat;

// Every variant the CUDA build must provide (checked against sgemm_variants()).
const std::vector<std::string> kVariants = {
    "naive",
    "smem32",
    "smem32_vec4",
    "volkov_nn",
    "reg128",
    "reg128_vec4_db",
    "tuned_128x128x16_s3",
    "tuned_128x128x16_s4",
    "tuned_128x128x32_s3",
    "tuned_128x128x8_s4",
    "tuned_128x256x16_s3",
    "tuned_128x256x8_s4",
    "tuned_256x128x16_s3",
    "tuned_256x128x8_s4",
    "tuned_128x64x16_s4",
    "tuned_64x64x16_s4",
    "tf32x3_128x128x32_s3",
    "tf32x3_128x256x32_s3",
    "tf32x3_64x64x32_s4",
    "tf32x3_wgmma_128x128x32",
    "auto",
    "auto_tf32x3"};

struct Shape {
  index_t m, n, k;
};
struct Case {
  Op oa, ob;
  Shape s;
  double alpha, beta;
  bool odd_ld;  // ld = rows + 3 (odd); else rows rounded up to 4, + 4 (16-byte friendly)
};
std::string describe(const Case& c) {
  return std::string("op") + dla::to_string(c.oa) + dla::to_string(c.ob) + " " +
         std::to_string(c.s.m) + "x" + std::to_string(c.s.n) + "x" + std::to_string(c.s.k) +
         " alpha=" + std::to_string(c.alpha) + " beta=" + std::to_string(c.beta) +
         (c.odd_ld ? " odd ld" : " aligned ld");
}
index_t pick_ld(index_t rows, bool odd) {
  if (odd) return rows + 3;
  return std::max<index_t>((rows + 3) / 4 * 4 + 4, 4);
}

const std::vector<Op> kOps = {Op::N, Op::T};
const std::vector<double> kScalars = {0.0, 1.0, -1.0, 0.5};
// Small and medium shapes: every op combo, alpha/beta pair and both paddings.
const std::vector<Shape> kSmall = {{0, 17, 5},    {17, 0, 5},     {17, 5, 0},   {1, 1, 1},
                                   {17, 17, 17},  {127, 128, 129}, {129, 127, 128},
                                   {128, 129, 127}, {128, 128, 128}, {33, 250, 64}};
// Larger shapes on a subset of combos (the reference is computed once).
std::vector<Case> large_cases(bool gpu) {
  std::vector<Case> v;
  for (Op a : kOps)
    for (Op b : kOps) {
      v.push_back({a, b, {17, 129, 1000}, 1, 0, true});
      v.push_back({a, b, {1000, 17, 129}, -1, 0.5, false});
      v.push_back({a, b, {129, 1000, 17}, 0.5, 1, true});
      v.push_back({a, b, {100, 70, 4100}, 1, -1, a == Op::N});  // split-K on tuned configs
    }
  v.push_back({Op::N, Op::N, {1000, 1000, 1000}, 1, 1, false});
  v.push_back({Op::T, Op::N, {3001, 17, 1000}, 0.5, -1, true});
  if (gpu) {
    v.push_back({Op::N, Op::N, {1000, 1000, 1000}, -1, 0, true});
    v.push_back({Op::T, Op::T, {1000, 1000, 1000}, 0.5, 0.5, false});
    v.push_back({Op::N, Op::N, {3001, 3001, 3001}, 1, 0, false});
    v.push_back({Op::N, Op::T, {3001, 3001, 3001}, -1, 1, true});
    v.push_back({Op::N, Op::N, {4096, 4096, 512}, 1, 1, false});  // full tiles, fast paths
  }
  return v;
}

std::uint64_t seed_of(index_t r, index_t c, int which) {
  return std::uint64_t(r) * 1000003u + std::uint64_t(c) * 7919u + std::uint64_t(which);
}

// The inputs of a case (stored shapes: A is m x k or k x m, ...).
template <class T>
struct Inputs {
  Mat<T> A, B, C0;
};
template <class T>
Inputs<T> make_inputs(const Case& c) {
  const index_t ar = c.oa == Op::N ? c.s.m : c.s.k, ac = c.oa == Op::N ? c.s.k : c.s.m;
  const index_t br = c.ob == Op::N ? c.s.k : c.s.n, bc = c.ob == Op::N ? c.s.n : c.s.k;
  return {dla::test::small_int_matrix<T>(ar, ac, seed_of(ar, ac, 1)),
          dla::test::small_int_matrix<T>(br, bc, seed_of(br, bc, 2)),
          dla::test::small_int_matrix<T>(c.s.m, c.s.n, seed_of(c.s.m, c.s.n, 3))};
}

// op(A) * op(B) in double, cached per (ops, shape): exact for small integers.
const Mat<double>& product(const Case& c, const Inputs<float>& in) {
  static std::map<std::tuple<char, char, index_t, index_t, index_t>, Mat<double>> cache;
  auto key = std::make_tuple(char(c.oa), char(c.ob), c.s.m, c.s.n, c.s.k);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  Mat<double> a = in.A.cast<double>(), b = in.B.cast<double>();
  if (c.oa == Op::T) a.transposeInPlace();
  if (c.ob == Op::T) b.transposeInPlace();
  Mat<double> p = Mat<double>::Zero(c.s.m, c.s.n);
  if (c.s.k > 0) p.noalias() = a * b;
  return cache.emplace(key, std::move(p)).first->second;
}

// Padded column-major buffer: the matrix in the top rows, `pad` below.
template <class T>
std::vector<T> padded(const Mat<T>& m, index_t ld, T pad) {
  std::vector<T> v(std::size_t(ld * std::max<index_t>(m.cols(), 1)), pad);
  for (index_t j = 0; j < m.cols(); ++j)
    for (index_t i = 0; i < m.rows(); ++i) v[std::size_t(i + j * ld)] = m(i, j);
  return v;
}

constexpr float kSentinel = 12345.0f;

// Runs one case through `run(A, lda, B, ldb, C, ldc)` (padded host buffers in,
// C buffer out) and checks the result exactly, the untouched padding of C,
// and that a non-trivial result is non-zero.
template <class Run>
void check_case(const Case& c, Run&& run) {
  SCOPED_TRACE(describe(c));
  const Inputs<float> in = make_inputs<float>(c);
  const index_t lda = pick_ld(in.A.rows(), c.odd_ld), ldb = pick_ld(in.B.rows(), c.odd_ld);
  const index_t ldc = pick_ld(c.s.m, c.odd_ld);
  const float nan = dla::test::quiet_nan<float>();
  // NaN in the padding of A and B: reading it would poison the result.
  std::vector<float> A = padded(in.A, lda, nan), B = padded(in.B, ldb, nan);
  Mat<float> c0 = c.beta == 0 ? Mat<float>::Constant(c.s.m, c.s.n, nan) : in.C0;
  std::vector<float> C = padded(c0, ldc, kSentinel);
  run(A, lda, B, ldb, C, ldc);
  const Mat<double>& p = product(c, in);
  index_t bad = 0;
  double norm = 0;
  for (index_t j = 0; j < c.s.n; ++j) {
    for (index_t i = 0; i < c.s.m; ++i) {
      const double want = c.alpha * p(i, j) + (c.beta == 0 ? 0.0 : c.beta * double(in.C0(i, j)));
      const float got = C[std::size_t(i + j * ldc)];
      if (!(double(got) == want)) {
        if (bad++ < 3) ADD_FAILURE() << "C(" << i << "," << j << ") = " << got << ", want " << want;
      }
      norm += double(got) * double(got);
    }
    for (index_t i = c.s.m; i < ldc; ++i)
      if (C[std::size_t(i + j * ldc)] != kSentinel && bad++ < 3)
        ADD_FAILURE() << "padding of C modified at row " << i << ", column " << j;
  }
  EXPECT_EQ(bad, 0) << "mismatching elements";
  const bool nontrivial = c.s.m > 0 && c.s.n > 0 && (c.beta != 0 || (c.alpha != 0 && c.s.k > 0));
  if (nontrivial) EXPECT_GT(norm, 0.0) << "result is all zeros";
}

std::vector<Case> small_cases() {
  std::vector<Case> v;
  for (const Shape& s : kSmall)
    for (Op a : kOps)
      for (Op b : kOps)
        for (double al : kScalars)
          for (double be : kScalars)
            for (bool odd : {true, false}) v.push_back({a, b, s, al, be, odd});
  return v;
}

// ------------------------------------------------------------------ host backend (CI)
void run_host(const Case& c, std::vector<float>& A, index_t lda, std::vector<float>& B,
              index_t ldb, std::vector<float>& C, index_t ldc) {
  const index_t ar = c.oa == Op::N ? c.s.m : c.s.k, ac = c.oa == Op::N ? c.s.k : c.s.m;
  const index_t br = c.ob == Op::N ? c.s.k : c.s.n, bc = c.ob == Op::N ? c.s.n : c.s.k;
  dla::gemm(dla::Context::host(), c.oa, c.ob, float(c.alpha),
            dla::HostView<const float>(A.data(), ar, ac, lda),
            dla::HostView<const float>(B.data(), br, bc, ldb), float(c.beta),
            dla::HostView<float>(C.data(), c.s.m, c.s.n, ldc));
}

TEST(GemmHost, ExactSmallShapesAllCombos) {
  for (const Case& c : small_cases())
    check_case(c, [&](auto& A, index_t lda, auto& B, index_t ldb, auto& C, index_t ldc) {
      run_host(c, A, lda, B, ldb, C, ldc);
    });
}

TEST(GemmHost, ExactLargeShapes) {
  for (const Case& c : large_cases(false))
    check_case(c, [&](auto& A, index_t lda, auto& B, index_t ldb, auto& C, index_t ldc) {
      run_host(c, A, lda, B, ldb, C, ldc);
    });
}

TEST(GemmHost, DoubleMatchesReference) {
  for (Op a : kOps)
    for (Op b : kOps) {
      const Mat<double> A = dla::test::random_matrix<double>(a == Op::N ? 37 : 19, a == Op::N ? 19 : 37, 1);
      const Mat<double> B = dla::test::random_matrix<double>(b == Op::N ? 19 : 23, b == Op::N ? 23 : 19, 2);
      Mat<double> C = dla::test::random_matrix<double>(37, 23, 3);
      const Mat<double> want = 0.5 * (a == Op::N ? Mat<double>(A) : Mat<double>(A.transpose())) *
                                   (b == Op::N ? Mat<double>(B) : Mat<double>(B.transpose())) -
                               2.0 * C;
      dla::gemm(dla::Context::host(), a, b, 0.5, A, B, -2.0, C);
      EXPECT_LE((C - want).norm(), 1e-12 * want.norm());
    }
}

TEST(GemmHost, DimensionMismatchNamesShapes) {
  Mat<float> A(4, 3), B(5, 2), C(4, 2);
  A.setOnes(); B.setOnes(); C.setZero();
  EXPECT_THROW(dla::gemm(dla::Context::host(), Op::N, Op::N, 1.0f, A, B, 0.0f, C),
               dla::DimensionMismatch);
  Mat<float> B2(3, 2), C2(5, 2);
  B2.setOnes();
  EXPECT_THROW(dla::gemm(dla::Context::host(), Op::N, Op::N, 1.0f, A, B2, 0.0f, C2),
               dla::DimensionMismatch);
  EXPECT_NO_THROW(dla::gemm(dla::Context::host(), Op::T, Op::N, 1.0f, A, Mat<float>(Mat<float>::Ones(4, 2)), 0.0f, B2));
}

// Host views with a negative size or a leading dimension below max(1, rows):
// InvalidArgument naming the view, before anything is read or written (as
// the device path's LAPACK-style checks; the host path used to compute with
// overlapping columns and write C's over each other).
TEST(GemmHost, BadViewsThrowInvalidArgument) {
  std::vector<float> A(64, 1.f), B(64, 1.f), C(64, 7.f);
  using CV = dla::HostView<const float>;
  using V = dla::HostView<float>;
  const dla::Context host = dla::Context::host();
  auto expect_bad = [&](Op oa, Op ob, CV a, CV b, V c, const char* name) {
    std::fill(C.begin(), C.end(), 7.f);
    try {
      dla::gemm(host, oa, ob, 1.f, a, b, 0.f, c);
      ADD_FAILURE() << "no throw for a bad " << name;
    } catch (const dla::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
    EXPECT_EQ(*std::min_element(C.begin(), C.end()), 7.f) << "C written";
    EXPECT_EQ(*std::max_element(C.begin(), C.end()), 7.f) << "C written";
  };
  expect_bad(Op::N, Op::N, CV(A.data(), 4, 3, 3), CV(B.data(), 3, 2, 3), V(C.data(), 4, 2, 4), "A");
  expect_bad(Op::T, Op::N, CV(A.data(), 3, 4, 2), CV(B.data(), 3, 2, 3), V(C.data(), 4, 2, 4), "A");
  expect_bad(Op::N, Op::N, CV(A.data(), 4, 3, 4), CV(B.data(), 3, 2, 2), V(C.data(), 4, 2, 4), "B");
  expect_bad(Op::N, Op::T, CV(A.data(), 4, 3, 4), CV(B.data(), 2, 3, 1), V(C.data(), 4, 2, 4), "B");
  expect_bad(Op::N, Op::N, CV(A.data(), 4, 3, 4), CV(B.data(), 3, 2, 3), V(C.data(), 4, 2, 3), "C");
  expect_bad(Op::N, Op::N, CV(A.data(), 0, 3, 0), CV(B.data(), 3, 2, 3), V(C.data(), 0, 2, 1), "A");
  expect_bad(Op::N, Op::N, CV(A.data(), -2, 3, 1), CV(B.data(), 3, 2, 3), V(C.data(), -2, 2, 1), "A");
  // An Op that is neither N nor T (a cast from a bad char) was taken as T.
  expect_bad(static_cast<Op>('x'), Op::N, CV(A.data(), 3, 4, 3), CV(B.data(), 3, 2, 3),
             V(C.data(), 4, 2, 4), "opA");
  expect_bad(Op::N, static_cast<Op>('C'), CV(A.data(), 4, 3, 4), CV(B.data(), 2, 3, 2),
             V(C.data(), 4, 2, 4), "opB");
  // Larger leading dimensions and empty views with ld 1 are fine.
  EXPECT_NO_THROW(dla::gemm(host, Op::N, Op::N, 1.f, CV(A.data(), 4, 3, 5), CV(B.data(), 3, 2, 4),
                            0.f, V(C.data(), 4, 2, 6)));
  EXPECT_NO_THROW(dla::gemm(host, Op::N, Op::N, 1.f, CV(A.data(), 0, 3, 1), CV(B.data(), 3, 2, 3),
                            0.f, V(C.data(), 0, 2, 1)));
}

// C sharing memory with A or B (in place, e.g. A = A * B through the Eigen
// overload): the result of the product of the inputs as they were, as the
// CUDA backend's staging gives. The host path used to scale C by beta (zero
// it, for beta 0) before reading A and B, and returned a zero matrix.
TEST(GemmHost, COverlappingAOrBUsesTheInputs) {
  const dla::Context host = dla::Context::host();
  const Mat<double> A0 = dla::test::random_matrix<double>(5, 5, 1);
  const Mat<double> B0 = dla::test::random_matrix<double>(5, 5, 2);
  for (double beta : {0.0, 1.0, -0.5}) {
    Mat<double> A = A0;
    dla::gemm(host, Op::N, Op::N, 2.0, A, B0, beta, A);  // C is A
    Mat<double> want = 2.0 * A0 * B0 + beta * A0;
    EXPECT_LE((A - want).norm(), 1e-13 * want.norm()) << "C = A, beta " << beta;
    Mat<double> B = B0;
    dla::gemm(host, Op::T, Op::N, 2.0, A0, B, beta, B);  // C is B
    want = 2.0 * A0.transpose() * B0 + beta * B0;
    EXPECT_LE((B - want).norm(), 1e-13 * want.norm()) << "C = B, beta " << beta;
    A = A0;
    dla::gemm(host, Op::N, Op::T, 1.0, A, A, beta, A);  // C is A and B
    want = A0 * A0.transpose() + beta * A0;
    EXPECT_LE((A - want).norm(), 1e-13 * want.norm()) << "C = A = B, beta " << beta;
  }
  // A view of C's memory with an offset (C is a block of the same buffer).
  std::vector<float> buf = {1, 2, 3, 4, 5, 6, 7, 8, 9};  // 3x3, column-major
  dla::gemm(host, Op::N, Op::N, 1.f, dla::HostView<const float>(buf.data(), 2, 2, 3),
            dla::HostView<const float>(buf.data() + 1, 2, 2, 3), 0.f,
            dla::HostView<float>(buf.data() + 4, 2, 2, 3));
  // A = [1 4; 2 5], B = [2 5; 3 6]: A B = [14 29; 19 40].
  EXPECT_EQ(buf, (std::vector<float>{1, 2, 3, 4, 14, 19, 7, 29, 40}));
}

// The solvers' FP32 product mode: a process-wide setting with a readable name
// (host code: the same in builds with and without CUDA).
TEST(GemmMode, SolverSettingRoundTrips) {
  const Fp32Gemm before = dla::cuda::solver_fp32_gemm();
  EXPECT_STREQ(dla::cuda::to_string(Fp32Gemm::Native), "native");
  EXPECT_STREQ(dla::cuda::to_string(Fp32Gemm::Tf32x3), "tf32x3");
  dla::cuda::set_solver_fp32_gemm(Fp32Gemm::Native);
  EXPECT_EQ(dla::cuda::solver_fp32_gemm(), Fp32Gemm::Native);
  dla::cuda::set_solver_fp32_gemm(Fp32Gemm::Tf32x3);
  EXPECT_EQ(dla::cuda::solver_fp32_gemm(), Fp32Gemm::Tf32x3);
  EXPECT_THROW(dla::cuda::set_solver_fp32_gemm(Fp32Gemm(7)), dla::InvalidArgument);
  EXPECT_EQ(dla::cuda::solver_fp32_gemm(), Fp32Gemm::Tf32x3);
  dla::cuda::set_solver_fp32_gemm(before);
}

// ------------------------------------------------------------------ argument errors
TEST(GemmArgs, LapackStyleInfo) {
  if (!dla::cuda_compiled()) {
    EXPECT_THROW(dla::cuda::sgemm(nullptr, Op::N, Op::N, 1, 1, 1, 1.f, nullptr, 1, nullptr, 1,
                                  0.f, nullptr, 1),
                 dla::NotCompiled);
    return;
  }
  // Argument checks happen before any device work: null pointers are never touched.
  auto s = [](Op a, Op b, index_t m, index_t n, index_t k, index_t lda, index_t ldb, index_t ldc) {
    return dla::cuda::sgemm(nullptr, a, b, m, n, k, 1.f, nullptr, lda, nullptr, ldb, 0.f, nullptr,
                            ldc);
  };
  EXPECT_EQ(s(Op(char('X')), Op::N, 1, 1, 1, 1, 1, 1), -1);
  EXPECT_EQ(s(Op::N, Op(char('C')), 1, 1, 1, 1, 1, 1), -2);
  EXPECT_EQ(s(Op::N, Op::N, -1, 1, 1, 1, 1, 1), -3);
  EXPECT_EQ(s(Op::N, Op::N, 1, -1, 1, 1, 1, 1), -4);
  EXPECT_EQ(s(Op::N, Op::N, 1, 1, -1, 1, 1, 1), -5);
  EXPECT_EQ(s(Op::N, Op::N, 10, 5, 7, 9, 7, 10), -8);   // lda < m
  EXPECT_EQ(s(Op::T, Op::N, 10, 5, 7, 6, 7, 10), -8);   // lda < k for A^T
  EXPECT_EQ(s(Op::N, Op::N, 10, 5, 7, 10, 6, 10), -10);  // ldb < k
  EXPECT_EQ(s(Op::N, Op::T, 10, 5, 7, 10, 4, 10), -10);  // ldb < n for B^T
  EXPECT_EQ(s(Op::N, Op::N, 10, 5, 7, 10, 7, 9), -13);   // ldc < m
  EXPECT_EQ(s(Op::N, Op::N, 0, 5, 7, 0, 7, 1), -8);      // lda >= 1 even when empty
  EXPECT_EQ(s(Op::N, Op::N, 0, 0, 0, 1, 1, 1), 0);       // empty: nothing to do
  EXPECT_EQ(s(Op::N, Op::N, 0, 5, 7, 1, 7, 1), 0);
  EXPECT_EQ(dla::cuda::dgemm(nullptr, Op::N, Op::N, 3, -2, 1, 1.0, nullptr, 3, nullptr, 1, 0.0,
                             nullptr, 3),
            -4);
  EXPECT_THROW(dla::cuda::sgemm_variant("no_such_kernel", nullptr, Op::N, Op::N, 1, 1, 1, 1.f,
                                        nullptr, 1, nullptr, 1, 0.f, nullptr, 1),
               dla::InvalidArgument);
  EXPECT_EQ(dla::cuda::sgemm_variants(), kVariants);
}

// sgemmt / ssyrk: gemm's checks shifted by the leading uplo, syrk's own numbering.
TEST(GemmArgs, TriangularAndSyrkInfo) {
  if (!dla::cuda_compiled()) {
    EXPECT_THROW(dla::cuda::sgemmt(nullptr, dla::Uplo::Lower, Op::N, Op::N, 1, 1, 1, 1.f, nullptr,
                                   1, nullptr, 1, 0.f, nullptr, 1),
                 dla::NotCompiled);
    EXPECT_THROW(dla::cuda::dsyrk(nullptr, dla::Uplo::Lower, Op::N, 1, 1, 1.0, nullptr, 1, 0.0,
                                  nullptr, 1),
                 dla::NotCompiled);
    return;
  }
  auto t = [](dla::Uplo u, Op a, index_t m, index_t n, index_t k, index_t lda, index_t ldc) {
    return dla::cuda::sgemmt(nullptr, u, a, Op::N, m, n, k, 1.f, nullptr, lda, nullptr, k, 0.f,
                             nullptr, ldc);
  };
  const dla::Uplo L = dla::Uplo::Lower, U = dla::Uplo::Upper;
  EXPECT_EQ(t(dla::Uplo(char('X')), Op::N, 1, 1, 1, 1, 1), -1);
  EXPECT_EQ(t(L, Op(char('C')), 1, 1, 1, 1, 1), -2);
  EXPECT_EQ(t(U, Op::N, -1, 1, 1, 1, 1), -4);
  EXPECT_EQ(t(L, Op::N, 10, 5, 7, 9, 10), -9);   // lda < m
  EXPECT_EQ(t(U, Op::N, 10, 5, 7, 10, 9), -14);  // ldc < m
  EXPECT_EQ(t(L, Op::N, 0, 5, 7, 1, 1), 0);      // empty
  auto y = [](dla::Uplo u, Op tr, index_t n, index_t k, index_t lda, index_t ldc) {
    return dla::cuda::ssyrk(nullptr, u, tr, n, k, 1.f, nullptr, lda, 0.f, nullptr, ldc);
  };
  EXPECT_EQ(y(dla::Uplo(char('X')), Op::N, 1, 1, 1, 1), -1);
  EXPECT_EQ(y(L, Op(char('C')), 1, 1, 1, 1), -2);
  EXPECT_EQ(y(L, Op::N, -1, 1, 1, 1), -3);
  EXPECT_EQ(y(U, Op::T, 1, -1, 1, 1), -4);
  EXPECT_EQ(y(L, Op::N, 10, 3, 9, 10), -7);  // lda < n
  EXPECT_EQ(y(U, Op::T, 10, 3, 2, 10), -7);  // lda < k for A^T
  EXPECT_EQ(y(L, Op::N, 10, 3, 10, 9), -10);
  EXPECT_EQ(dla::cuda::dsyrk(nullptr, L, Op::N, 0, 3, 1.0, nullptr, 1, 0.0, nullptr, 1), 0);
}

#if DLA_HAVE_CUDA
#include "gemm_test_gpu.inc"
#endif

}  // namespace
