// Triangular solves: all 16 (side, uplo, op, diag) combinations against a
// float64 reference, host path (dla::triangular_solve on the Host backend) and
// device path (dla::cuda::strsm/dtrsm with odd leading dimensions and NaN in
// every element the routine must not read or write).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dla/core/context.hpp"
#include "dla/core/device_matrix.hpp"
#include "dla/core/error.hpp"
#include "dla/solvers/trsm.hpp"
#include "dla/solvers/trsm_cuda.hpp"
#include "test_util.hpp"

namespace {

using dla::Diag;
using dla::index_t;
using dla::Op;
using dla::Side;
using dla::Uplo;
using MatD = Eigen::MatrixXd;

struct Combo {
  Side side;
  Uplo uplo;
  Op op;
  Diag diag;
  std::string name() const {
    return std::string(1, char(side)) + char(uplo) + char(op) + char(diag);
  }
};

std::vector<Combo> all_combos() {
  std::vector<Combo> c;
  for (Side s : {Side::Left, Side::Right})
    for (Uplo u : {Uplo::Lower, Uplo::Upper})
      for (Op o : {Op::N, Op::T})
        for (Diag d : {Diag::NonUnit, Diag::Unit}) c.push_back({s, u, o, d});
  return c;
}

// A k x k matrix whose `uplo` triangle is well conditioned (strictly diagonally
// dominant, also with a unit diagonal); the other triangle is NaN, and with
// Diag::Unit so is the diagonal: none of it may be read.
MatD make_triangle(index_t k, Uplo uplo, Diag diag, std::uint64_t seed) {
  MatD A = dla::test::random_matrix<double>(k, k, seed);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (index_t j = 0; j < k; ++j)
    for (index_t i = 0; i < k; ++i) {
      const bool in = uplo == Uplo::Lower ? i > j : i < j;
      if (i == j) A(i, j) = diag == Diag::Unit ? nan : (1.5 + 0.5 * A(i, j)) * (A(i, j) < 0 ? -1 : 1);
      else if (in) A(i, j) = A(i, j) / double(k);
      else A(i, j) = nan;
    }
  return A;
}

// Dense op(A) with the NaN parts replaced by their meaning (0, unit diagonal).
MatD dense_op(const MatD& A, Uplo uplo, Op op, Diag diag) {
  const index_t k = A.rows();
  MatD T = MatD::Zero(k, k);
  for (index_t j = 0; j < k; ++j)
    for (index_t i = 0; i < k; ++i) {
      const bool in = uplo == Uplo::Lower ? i > j : i < j;
      if (i == j) T(i, j) = diag == Diag::Unit ? 1.0 : A(i, j);
      else if (in) T(i, j) = A(i, j);
    }
  return op == Op::N ? T : MatD(T.transpose());
}

// The float64 solution, by substitution on the dense op(A) (O(k^2) per
// vector, so the 4097-order cases stay cheap).
MatD reference(const Combo& c, double alpha, const MatD& A, const MatD& B) {
  const MatD opA = dense_op(A, c.uplo, c.op, c.diag);
  const bool lower_op = (c.uplo == Uplo::Lower) == (c.op == Op::N);
  // Side Right: X op(A) = alpha B  <=>  op(A)^T X^T = alpha B^T.
  const MatD M = c.side == Side::Left ? opA : MatD(opA.transpose());
  const MatD R = c.side == Side::Left ? MatD(alpha * B) : MatD(alpha * B.transpose());
  const bool lower = c.side == Side::Left ? lower_op : !lower_op;
  const MatD X = lower ? MatD(M.triangularView<Eigen::Lower>().solve(R))
                       : MatD(M.triangularView<Eigen::Upper>().solve(R));
  return c.side == Side::Left ? X : MatD(X.transpose());
}

template <class T>
double tolerance(index_t k) {
  return 20.0 * double(std::max<index_t>(k, 8)) * double(std::numeric_limits<T>::epsilon());
}

template <class T>
double rel_err(const dla::Matrix<T>& X, const MatD& ref) {
  if (X.array().isNaN().any()) return std::numeric_limits<double>::infinity();
  const double nr = ref.norm();
  return (X.template cast<double>() - ref).norm() / (nr > 0 ? nr : 1.0);
}

template <class T>
void host_case(const Combo& c, index_t m, index_t n, double alpha, std::uint64_t seed) {
  const index_t k = c.side == Side::Left ? m : n;
  const MatD A = make_triangle(k, c.uplo, c.diag, seed);
  const MatD B = dla::test::random_matrix<double>(m, n, seed + 1);
  const MatD ref = reference(c, alpha, A, B);
  const dla::Matrix<T> Af = A.cast<T>();
  dla::Matrix<T> X = B.cast<T>();
  dla::triangular_solve<T>(dla::Context::host(), c.side, c.uplo, c.op, c.diag, T(alpha), Af, X);
  EXPECT_LE(rel_err<T>(X, ref), tolerance<T>(k)) << c.name() << " m=" << m << " n=" << n;
}

const index_t kSizes[] = {1, 17, 127, 128, 129, 1000};

TEST(TrsmHost, AllCombosFloat) {
  std::uint64_t seed = 1;
  for (const Combo& c : all_combos())
    for (index_t k : kSizes) {
      const index_t other = k == 1000 ? 37 : 53;
      if (c.side == Side::Left) host_case<float>(c, k, other, 0.75, seed++);
      else host_case<float>(c, other, k, 0.75, seed++);
    }
}

TEST(TrsmHost, AllCombosDouble) {
  std::uint64_t seed = 100;
  for (const Combo& c : all_combos())
    for (index_t k : kSizes) {
      if (c.side == Side::Left) host_case<double>(c, k, 29, -1.25, seed++);
      else host_case<double>(c, 29, k, -1.25, seed++);
    }
}

// A subnormal diagonal entry A(i,i) = 2^(min_exponent - 12), whose reciprocal
// overflows; row and column i of the triangle are otherwise zero and B's row
// (Left) or column (Right) i holds A(i,i) times small integers, so X's is those
// integers. BLAS trsm divides by A(i,i) on the left side and gets them
// exactly; on the right it multiplies by 1/A(j,j), which overflows. dla's
// host path divides on both sides.
// (The reference is the same system with A(i,i) = 1 and those integers in B:
// Eigen's double solve has the same overflow.)
template <class T>
void subnormal_diagonal_case(const Combo& c, index_t k, std::uint64_t seed) {
  const index_t m = c.side == Side::Left ? k : 5, n = c.side == Side::Left ? 5 : k;
  MatD A = make_triangle(k, c.uplo, c.diag, seed);
  const index_t i = k / 2;
  const double tiny = std::ldexp(1.0, std::numeric_limits<T>::min_exponent - 12);
  for (index_t j = 0; j < k; ++j) {
    if (j == i) continue;
    if (c.uplo == Uplo::Lower ? i > j : i < j) A(i, j) = 0.0;
    if (c.uplo == Uplo::Lower ? j > i : j < i) A(j, i) = 0.0;
  }
  A(i, i) = 1.0;
  MatD B = dla::test::random_matrix<double>(m, n, seed + 1).cast<T>().template cast<double>();
  const MatD t = dla::test::small_int_matrix<double>(c.side == Side::Left ? n : m, 1, seed + 2);
  if (c.side == Side::Left) B.row(i) = t.transpose();
  else B.col(i) = t;
  const MatD ref = reference(c, 1.0, A, B);
  A(i, i) = tiny;
  if (c.side == Side::Left) B.row(i) *= tiny;
  else B.col(i) *= tiny;
  const dla::Matrix<T> Af = A.cast<T>();
  dla::Matrix<T> X = B.cast<T>();
  dla::triangular_solve<T>(dla::Context::host(), c.side, c.uplo, c.op, c.diag, T(1), Af, X);
  EXPECT_LE(rel_err<T>(X, ref), tolerance<T>(k)) << c.name() << " k=" << k;
}

TEST(TrsmHost, SubnormalDiagonal) {
  std::uint64_t seed = 300;
  for (const Combo& c : all_combos()) {
    if (c.diag == Diag::Unit) continue;
    for (index_t k : {index_t(1), index_t(17), index_t(129)}) {
      subnormal_diagonal_case<float>(c, k, seed++);
      subnormal_diagonal_case<double>(c, k, seed++);
    }
  }
}

TEST(TrsmHost, AlphaZeroGivesZero) {
  dla::Matrix<float> A = dla::Matrix<float>::Constant(5, 5, std::nanf(""));
  dla::Matrix<float> B = dla::test::random_matrix<float>(5, 3, 7);
  dla::triangular_solve<float>(dla::Context::host(), Side::Left, Uplo::Lower, Op::N,
                               Diag::NonUnit, 0.0f, A, B);
  EXPECT_EQ(B.cwiseAbs().maxCoeff(), 0.0f);
}

// Side, Uplo, Op or Diag values that are none of the named ones (casts from a
// bad char) are refused naming the argument; the host path took them as the
// "other" value (Right, Upper, T, NonUnit) and solved a different system.
TEST(TrsmHost, BadEnumsThrowInvalidArgument) {
  const dla::Matrix<double> A = dla::Matrix<double>::Identity(3, 3) * 2.0;
  auto expect_bad = [&](Side s, Uplo u, Op o, Diag d, const char* name) {
    dla::Matrix<double> B = dla::Matrix<double>::Ones(3, 3);
    try {
      dla::triangular_solve<double>(dla::Context::host(), s, u, o, d, 1.0, A, B);
      ADD_FAILURE() << "no throw for a bad " << name;
    } catch (const dla::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
    EXPECT_EQ(B, dla::Matrix<double>::Ones(3, 3)) << name << ": B written";
  };
  expect_bad(static_cast<Side>('x'), Uplo::Lower, Op::N, Diag::NonUnit, "side");
  expect_bad(Side::Left, static_cast<Uplo>('x'), Op::N, Diag::NonUnit, "uplo");
  expect_bad(Side::Left, Uplo::Lower, static_cast<Op>('C'), Diag::NonUnit, "opA");
  expect_bad(Side::Left, Uplo::Lower, Op::N, static_cast<Diag>('x'), "diag");
}

TEST(TrsmHost, ShapeMismatchThrows) {
  dla::Matrix<double> A = dla::Matrix<double>::Identity(4, 4);
  dla::Matrix<double> B(5, 3);
  EXPECT_THROW(dla::triangular_solve<double>(dla::Context::host(), Side::Left, Uplo::Lower, Op::N,
                                             Diag::NonUnit, 1.0, A, B),
               dla::DimensionMismatch);
  dla::Matrix<double> Ans(4, 3);
  dla::Matrix<double> B2(4, 3);
  EXPECT_THROW(dla::triangular_solve<double>(dla::Context::host(), Side::Right, Uplo::Lower,
                                             Op::N, Diag::NonUnit, 1.0, Ans, B2),
               dla::DimensionMismatch);
}

// ---- device path ----------------------------------------------------------

template <class T>
int dev_trsm(dla::stream_t s, const Combo& c, index_t m, index_t n, T alpha, const T* A,
             index_t lda, T* B, index_t ldb) {
  if constexpr (std::is_same_v<T, float>)
    return dla::cuda::strsm(s, c.side, c.uplo, c.op, c.diag, m, n, alpha, A, lda, B, ldb);
  else
    return dla::cuda::dtrsm(s, c.side, c.uplo, c.op, c.diag, m, n, alpha, A, lda, B, ldb);
}

// Packs M into a buffer with leading dimension ld, padding NaN.
template <class T>
std::vector<T> pack(const MatD& M, index_t ld) {
  std::vector<T> v(std::size_t(ld * std::max<index_t>(M.cols(), 1)),
                   std::numeric_limits<T>::quiet_NaN());
  for (index_t j = 0; j < M.cols(); ++j)
    for (index_t i = 0; i < M.rows(); ++i) v[std::size_t(i + j * ld)] = T(M(i, j));
  return v;
}

template <class T>
void device_case(const Combo& c, index_t m, index_t n, double alpha, std::uint64_t seed) {
  const index_t k = c.side == Side::Left ? m : n;
  const MatD A = make_triangle(k, c.uplo, c.diag, seed);
  const MatD B = dla::test::random_matrix<double>(m, n, seed + 1);
  const MatD ref = reference(c, alpha, A, B);
  const index_t lda = k + 3, ldb = m + 5;  // odd padding, poisoned
  const std::vector<T> hA = pack<T>(A, lda);
  std::vector<T> hB = pack<T>(B, ldb);
  dla::Context ctx(dla::Backend::Cuda);
  // Offset by one element: the device routine must not assume aligned pointers.
  dla::DeviceBuffer<T> dA(index_t(hA.size()) + 1), dB(index_t(hB.size()) + 1);
  const index_t na = index_t(hA.size()), nbuf = index_t(hB.size());
  dla::detail::copy_2d(dA.data() + 1, na, hA.data(), na, na, 1, sizeof(T),
                       dla::detail::kHostToDevice, ctx.stream());
  dla::detail::copy_2d(dB.data() + 1, nbuf, hB.data(), nbuf, nbuf, 1, sizeof(T),
                       dla::detail::kHostToDevice, ctx.stream());
  ASSERT_EQ(dev_trsm<T>(ctx.stream(), c, m, n, T(alpha), dA.data() + 1, lda, dB.data() + 1, ldb),
            0);
  dla::detail::copy_2d(hB.data(), nbuf, dB.data() + 1, nbuf, nbuf, 1, sizeof(T),
                       dla::detail::kDeviceToHost, ctx.stream());
  ctx.synchronize();
  dla::Matrix<T> X(m, n);
  bool padding_ok = true;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < ldb; ++i) {
      const T v = hB[std::size_t(i + j * ldb)];
      if (i < m) X(i, j) = v;
      else if (!std::isnan(v)) padding_ok = false;
    }
  EXPECT_TRUE(padding_ok) << c.name() << ": padding of B was written";
  EXPECT_LE(rel_err<T>(X, ref), tolerance<T>(k)) << c.name() << " m=" << m << " n=" << n;
}

TEST(TrsmDevice, AllCombosFloat) {
  DLA_REQUIRE_GPU();
  std::uint64_t seed = 1000;
  for (const Combo& c : all_combos())
    for (index_t k : kSizes)
      for (index_t other : {index_t(1), index_t(67), index_t(300)}) {
        if (c.side == Side::Left) device_case<float>(c, k, other, 0.75, seed++);
        else device_case<float>(c, other, k, 0.75, seed++);
      }
}

// Side Right with >= 1024 rows runs the thread-per-row leaf for orders <= 128
// (chunks of 32: orders 1, 31, 32, 33, 64, 65, 100, 128; above 128 it is
// recursed to, next to GEMMs: 129, 200, 256).
TEST(TrsmDevice, RowLeafManyVectors) {
  DLA_REQUIRE_GPU();
  std::uint64_t seed = 3000;
  for (const Combo& c : all_combos()) {
    if (c.side != Side::Right) continue;
    for (index_t k : {1, 31, 32, 33, 64, 65, 100, 128, 129, 200, 256})
      device_case<float>(c, 1500, k, 0.75, seed++);
    for (index_t k : {1, 33, 100, 128, 200})
      device_case<double>(c, 1100, k, -1.25, seed++);
  }
}

TEST(TrsmDevice, AllCombosDouble) {
  DLA_REQUIRE_GPU();
  std::uint64_t seed = 2000;
  for (const Combo& c : all_combos())
    for (index_t k : kSizes)
      for (index_t other : {index_t(1), index_t(67)}) {
        if (c.side == Side::Left) device_case<double>(c, k, other, -1.25, seed++);
        else device_case<double>(c, other, k, -1.25, seed++);
      }
}

// The shapes LU and Cholesky use: a wide panel solve, a tall right solve, and
// full solves with many right-hand sides.
TEST(TrsmDevice, FactorizationShapes) {
  DLA_REQUIRE_GPU();
  device_case<float>({Side::Left, Uplo::Lower, Op::N, Diag::Unit}, 256, 3000, 1.0, 11);
  device_case<float>({Side::Left, Uplo::Lower, Op::N, Diag::Unit}, 384, 1001, 1.0, 12);
  device_case<float>({Side::Right, Uplo::Lower, Op::T, Diag::NonUnit}, 3001, 256, 1.0, 13);
  device_case<float>({Side::Right, Uplo::Lower, Op::T, Diag::NonUnit}, 2000, 200, 1.0, 14);
  // Order 65..128 with more than 4096 vectors: split into two 64-leaves and a
  // GEMM (with fewer vectors float uses the single 128-leaf, covered above).
  device_case<float>({Side::Left, Uplo::Upper, Op::T, Diag::NonUnit}, 100, 5000, 0.5, 20);
  device_case<float>({Side::Right, Uplo::Lower, Op::N, Diag::Unit}, 4500, 128, 1.0, 21);
  // More than 65535 tiles of 16 vectors: the leaf kernel's grid-stride loop.
  device_case<float>({Side::Right, Uplo::Upper, Op::N, Diag::NonUnit}, 16 * 65535 + 17, 3, 1.0,
                     19);
  for (index_t nrhs : {index_t(1), index_t(3), index_t(1000)}) {
    device_case<float>({Side::Left, Uplo::Lower, Op::N, Diag::Unit}, 2000, nrhs, 1.0, 15);
    device_case<float>({Side::Left, Uplo::Upper, Op::N, Diag::NonUnit}, 2000, nrhs, 1.0, 16);
    device_case<float>({Side::Left, Uplo::Lower, Op::T, Diag::NonUnit}, 2000, nrhs, 1.0, 17);
    device_case<double>({Side::Left, Uplo::Lower, Op::N, Diag::NonUnit}, 1500, nrhs, 1.0, 18);
  }
}

// Side Left with <= 64 right-hand sides and order > 128: the one-launch
// chained sweep (trsm_sweep.cuh). Partial last blocks (129, 1000, 3001,
// 4097 are not multiples of 64), partial and several groups of 16 vectors
// (1, 5, 16, 17, 64), both orders of processing (lower / upper op(A)), Unit
// with a NaN diagonal, alpha != 1, misaligned pointers and poisoned padding.
TEST(TrsmDevice, FewRightHandSidesSweep) {
  DLA_REQUIRE_GPU();
  std::uint64_t seed = 5000;
  for (const Combo& c : all_combos()) {
    if (c.side != Side::Left) continue;
    for (index_t m : {index_t(129), index_t(1000), index_t(3001)})
      for (index_t n : {index_t(1), index_t(5), index_t(16), index_t(17), index_t(64)})
        device_case<float>(c, m, n, -0.75, seed++);
    for (index_t n : {index_t(1), index_t(17)}) {
      device_case<double>(c, 1000, n, 1.5, seed++);
      device_case<float>(c, 4097, n, 1.0, seed++);
    }
  }
}

// Two chained solves in flight at once on two streams: each call's counters
// are its own (stream-ordered allocation), so neither can wait for or publish
// into the other's chain.
TEST(TrsmDevice, FewRightHandSidesTwoStreams) {
  DLA_REQUIRE_GPU();
  const Combo c1{Side::Left, Uplo::Lower, Op::N, Diag::NonUnit};
  const Combo c2{Side::Left, Uplo::Lower, Op::T, Diag::NonUnit};
  const index_t m = 3001, n = 7;
  const MatD A = make_triangle(m, Uplo::Lower, Diag::NonUnit, 91);
  const dla::Matrix<float> Af = A.cast<float>();
  dla::Context s1(dla::Backend::Cuda), s2(dla::Backend::Cuda);
  for (std::uint64_t round = 0; round < 3; ++round) {
    const MatD B1 = dla::test::random_matrix<double>(m, n, 92 + 2 * round);
    const MatD B2 = dla::test::random_matrix<double>(m, n, 93 + 2 * round);
    dla::DeviceMatrix<float> dA1(Af, s1.stream()), dA2(Af, s2.stream());
    dla::DeviceMatrix<float> dB1(B1.cast<float>(), s1.stream());
    dla::DeviceMatrix<float> dB2(B2.cast<float>(), s2.stream());
    s1.synchronize();
    s2.synchronize();
    ASSERT_EQ(dev_trsm<float>(s1.stream(), c1, m, n, 1.0f, dA1.data(), dA1.ld(), dB1.data(),
                              dB1.ld()),
              0);
    ASSERT_EQ(dev_trsm<float>(s2.stream(), c2, m, n, 1.0f, dA2.data(), dA2.ld(), dB2.data(),
                              dB2.ld()),
              0);
    const dla::Matrix<float> X1 = dB1.to_host(s1.stream()), X2 = dB2.to_host(s2.stream());
    s1.synchronize();
    s2.synchronize();
    EXPECT_LE(rel_err<float>(X1, reference(c1, 1.0, A, B1)), tolerance<float>(m)) << round;
    EXPECT_LE(rel_err<float>(X2, reference(c2, 1.0, A, B2)), tolerance<float>(m)) << round;
  }
}

TEST(TrsmDevice, HighLevelMatchesHost) {
  DLA_REQUIRE_GPU();
  const Combo c{Side::Right, Uplo::Upper, Op::T, Diag::NonUnit};
  const MatD A = make_triangle(300, c.uplo, c.diag, 77);
  const dla::Matrix<float> Af = A.cast<float>();
  const dla::Matrix<float> B = dla::test::random_matrix<float>(129, 300, 78);
  dla::Matrix<float> Xh = B, Xd = B;
  dla::triangular_solve<float>(dla::Context::host(), c.side, c.uplo, c.op, c.diag, 2.0f, Af, Xh);
  dla::triangular_solve<float>(dla::Context(dla::Backend::Cuda), c.side, c.uplo, c.op, c.diag,
                               2.0f, Af, Xd);
  EXPECT_LE(rel_err<float>(Xd, Xh.cast<double>()), tolerance<float>(300));
}

TEST(TrsmDevice, ArgumentErrorsAndEmpty) {
  DLA_REQUIRE_GPU();
  dla::Context ctx(dla::Backend::Cuda);
  dla::DeviceBuffer<float> a(16), b(16);
  const Combo c{Side::Left, Uplo::Lower, Op::N, Diag::NonUnit};
  EXPECT_EQ(dev_trsm<float>(ctx.stream(), c, -1, 2, 1.0f, a.data(), 4, b.data(), 4), -5);
  EXPECT_EQ(dev_trsm<float>(ctx.stream(), c, 2, -1, 1.0f, a.data(), 4, b.data(), 4), -6);
  EXPECT_EQ(dev_trsm<float>(ctx.stream(), c, 4, 2, 1.0f, a.data(), 3, b.data(), 4), -9);
  EXPECT_EQ(dev_trsm<float>(ctx.stream(), c, 4, 2, 1.0f, a.data(), 4, b.data(), 3), -11);
  const Combo r{Side::Right, Uplo::Lower, Op::N, Diag::NonUnit};
  EXPECT_EQ(dev_trsm<float>(ctx.stream(), r, 2, 4, 1.0f, a.data(), 3, b.data(), 2), -9);
  EXPECT_EQ(dev_trsm<float>(ctx.stream(), c, 0, 5, 1.0f, nullptr, 1, nullptr, 1), 0);
  EXPECT_EQ(dev_trsm<float>(ctx.stream(), c, 3, 0, 1.0f, nullptr, 3, nullptr, 3), 0);
  ctx.synchronize();
}

}  // namespace
