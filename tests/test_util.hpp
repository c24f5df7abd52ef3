#pragma once
// Helpers shared by the test files.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <cstdlib>
#include <string>
#include <limits>
#include <random>

#include "dla/core/batch.hpp"
#include "dla/core/device_info.hpp"

// GPU tests call this first: without a device they skip with the reason, so CI
// (no GPU) stays green while the device machine runs them for real. With
// DLA_EXPECT_GPU=1 in the environment (scripts/gpu-check.sh sets it) a missing
// device is a failure, so a GPU run cannot pass by skipping.
#define DLA_REQUIRE_GPU()                                                               \
  do {                                                                                  \
    const bool dla_expect_ = std::getenv("DLA_EXPECT_GPU") &&                           \
                             std::string(std::getenv("DLA_EXPECT_GPU")) == "1";         \
    if (!::dla::cuda_compiled() || ::dla::device_count() == 0) {                        \
      const char* why_ = !::dla::cuda_compiled() ? "built without CUDA (DLA_CUDA=OFF)"  \
                                                 : "no CUDA device present";            \
      if (dla_expect_) FAIL() << "DLA_EXPECT_GPU=1 but " << why_;                       \
      GTEST_SKIP() << why_;                                                             \
    }                                                                                   \
  } while (0)

namespace dla::test {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

// Uniform random entries in [-1, 1).
template <class T>
Mat<T> random_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Mat<T> m(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = T(dist(gen));
  return m;
}

// Small whole numbers in [-lo, hi]: FP32 products and sums stay exact.
template <class T>
Mat<T> small_int_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed, int range = 2) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> dist(-range, range);
  Mat<T> m(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = T(dist(gen));
  return m;
}

template <class T>
T quiet_nan() { return std::numeric_limits<T>::quiet_NaN(); }

// A batch of random matrices: entries in [-1, 1), a different seed per member.
template <class T>
Batch<T> random_batch(index_t count, index_t rows, index_t cols, std::uint64_t seed) {
  Batch<T> b(count, rows, cols);
  for (index_t i = 0; i < count; ++i)
    b[i] = random_matrix<T>(rows, cols, seed * 1000003 + std::uint64_t(i));
  return b;
}

// A batch of symmetric positive definite matrices: (M + M^T)/2 + n I.
template <class T>
Batch<T> spd_batch(index_t count, index_t n, std::uint64_t seed) {
  Batch<T> b(count, n, n);
  for (index_t i = 0; i < count; ++i) {
    Mat<T> m = random_matrix<T>(n, n, seed * 7919 + std::uint64_t(i));
    Mat<T> s = (m + m.transpose()) / T(2);
    s.diagonal().array() += T(n);
    b[i] = s;
  }
  return b;
}

// Sets an environment variable for the scope of a test.
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) { had_ = true; old_ = old; }
    setenv(name, value, 1);
  }
  ~ScopedEnv() { had_ ? (void)setenv(name_.c_str(), old_.c_str(), 1) : (void)unsetenv(name_.c_str()); }
  std::string name_, old_;
  bool had_ = false;
};

}  // namespace dla::test
