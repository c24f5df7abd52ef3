#pragma once
// High-level batched solvers: many small dense systems at once.
//
// A Batch<T> holds `count` matrices stored one after another (column-major).
// On the CUDA backend the whole batch goes to the device once, is factored by
// the dla::cuda::*_batched kernels (see batched_cuda.hpp), and comes back; on
// the host every matrix is factored with Eigen, in parallel with OpenMP when
// the build has it.
//
// Members are numbered from 0 in messages ("matrix 17 of 1000" is batch[17]).
#include <cstdint>
#include <vector>

#include "dla/core/batch.hpp"
#include "dla/core/context.hpp"
#include "dla/core/types.hpp"
#include "dla/solvers/method.hpp"

namespace dla {

template <class T>
struct BatchLU {
  Batch<T> factors;                 // L (unit, below the diagonal) and U, per matrix
  std::vector<std::int32_t> ipiv;   // count * n, 1-based row indices per matrix (LAPACK)
  std::vector<std::int32_t> info;   // per matrix: 0, or k > 0 when U(k,k) is exactly zero
  Backend backend = Backend::Host;  // where the factorization ran
};

// LU with partial pivoting of every matrix (square, any n >= 0). Singular
// members are reported in info (their factorization still completes), nothing
// throws for them. Throws InvalidArgument for non-square matrices or NaN/Inf
// entries (naming the member).
template <class T>
BatchLU<T> lu_factor_batched(const Context& ctx, const Batch<T>& A);

// Solves A_b X_b = B_b for every member b. A: count x n x n, B: count x n x k
// (k >= 1). method: LU, Cholesky (reads the lower triangle), or Auto
// (Cholesky when every matrix is symmetric with a positive diagonal; members
// that fail Cholesky are redone with LU; otherwise LU for all).
// Failures: with info == nullptr, the first failing member throws
// SingularMatrix (index() = the 1-based zero pivot) or NotPositiveDefinite
// (minor() = the order of the failing minor), the message naming the member,
// e.g. "solve_batched: matrix 17 of 1000: U(3,3) is exactly zero". With an
// info vector, it is resized to count and filled (0 = ok, else the LAPACK info
// of the factorization that was used last for that member), failed members'
// solutions are NaN, and nothing throws for them.
// DimensionMismatch when the batches do not fit; InvalidArgument for NaN/Inf
// (with Method::Cholesky only in the lower triangle, the part it reads).
template <class T>
Batch<T> solve_batched(const Context& ctx, const Batch<T>& A, const Batch<T>& B,
                       Method method = Method::LU, std::vector<std::int32_t>* info = nullptr);

extern template BatchLU<float> lu_factor_batched<float>(const Context&, const Batch<float>&);
extern template BatchLU<double> lu_factor_batched<double>(const Context&, const Batch<double>&);
extern template Batch<float> solve_batched<float>(const Context&, const Batch<float>&,
                                                  const Batch<float>&, Method,
                                                  std::vector<std::int32_t>*);
extern template Batch<double> solve_batched<double>(const Context&, const Batch<double>&,
                                                    const Batch<double>&, Method,
                                                    std::vector<std::int32_t>*);

}  // namespace dla
