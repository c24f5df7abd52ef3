// High-level triangular solve: shape checks, then Eigen (host) or the device
// trsm (CUDA, staging host matrices through DeviceMatrix).
#include "dla/solvers/trsm.hpp"

#include <string>
#include <type_traits>

#include "dla/core/device_matrix.hpp"
#include "dla/core/error.hpp"
#include "dla/solvers/trsm_cuda.hpp"
#include "host_tri_solve.hpp"

namespace dla {
namespace {

// Mode is the triangle of A, Flip the same triangle of A^T.
template <class T, int Mode, int Flip>
void host_solve_mode(Side side, Op opA, const Matrix<T>& A, Matrix<T>& B) {
  const auto tri = A.template triangularView<Mode>();
  const auto tri_t = A.transpose().template triangularView<Flip>();
  // Both sides divide by a subnormal diagonal entry (host_tri_solve.hpp), as
  // the device kernels do. BLAS trsm divides on the left; on the right it
  // multiplies by 1 / A(j, j), which overflows for such an entry.
  auto solve = [&](const auto& t, auto&& X) {
    if constexpr ((Mode & Eigen::UnitDiag) != 0) t.solveInPlace(X);
    else detail::solve_dividing(t, A.diagonal(), X);
  };
  if (side == Side::Left) {
    if (opA == Op::N) solve(tri, B);
    else solve(tri_t, B);
  } else {
    // X op(A) = B  <=>  op(A)^T X^T = B^T
    auto Bt = B.transpose();
    if (opA == Op::N) solve(tri_t, Bt);
    else solve(tri, Bt);
  }
}

template <class T>
void host_solve(Side side, Uplo uplo, Op opA, Diag diag, T alpha, const Matrix<T>& A,
                Matrix<T>& B) {
  if (alpha == T(0)) { B.setZero(); return; }
  if (alpha != T(1)) B *= alpha;
  if (uplo == Uplo::Lower) {
    if (diag == Diag::Unit) host_solve_mode<T, Eigen::UnitLower, Eigen::UnitUpper>(side, opA, A, B);
    else host_solve_mode<T, Eigen::Lower, Eigen::Upper>(side, opA, A, B);
  } else {
    if (diag == Diag::Unit) host_solve_mode<T, Eigen::UnitUpper, Eigen::UnitLower>(side, opA, A, B);
    else host_solve_mode<T, Eigen::Upper, Eigen::Lower>(side, opA, A, B);
  }
}

}  // namespace

template <class T>
void triangular_solve(const Context& ctx, Side side, Uplo uplo, Op opA, Diag diag, T alpha,
                      const Matrix<T>& A, Matrix<T>& B) {
  // Enum values that are none of the named ones (casts from a bad char):
  // refused here, where the host path would take them as the other value.
  auto bad_enum = [](const char* name, char v) {
    return InvalidArgument("triangular_solve: " + std::string(name) +
                           " is none of its named values (character code " + std::to_string(int(v)) + ")");
  };
  if (!is_valid(side)) throw bad_enum("side", char(side));
  if (!is_valid(uplo)) throw bad_enum("uplo", char(uplo));
  if (!is_valid(opA)) throw bad_enum("opA", char(opA));
  if (!is_valid(diag)) throw bad_enum("diag", char(diag));
  if (A.rows() != A.cols())
    throw DimensionMismatch("triangular_solve: A is " + std::to_string(A.rows()) + "x" +
                            std::to_string(A.cols()) + ", must be square");
  const index_t k = side == Side::Left ? B.rows() : B.cols();
  if (A.rows() != k)
    throw DimensionMismatch("triangular_solve: A is " + std::to_string(A.rows()) + "x" +
                            std::to_string(A.cols()) + " but B is " + std::to_string(B.rows()) +
                            "x" + std::to_string(B.cols()) +
                            (side == Side::Left ? " (need A order == B rows)"
                                                : " (need A order == B cols)"));
  if (B.size() == 0) return;
  if (!ctx.is_cuda()) return host_solve<T>(side, uplo, opA, diag, alpha, A, B);
  ctx.activate();
  DeviceMatrix<T> dA(A, ctx.stream());
  DeviceMatrix<T> dB(B, ctx.stream());
  int info;
  if constexpr (std::is_same_v<T, float>)
    info = cuda::strsm(ctx.stream(), side, uplo, opA, diag, B.rows(), B.cols(), alpha, dA.data(),
                       dA.ld(), dB.data(), dB.ld());
  else
    info = cuda::dtrsm(ctx.stream(), side, uplo, opA, diag, B.rows(), B.cols(), alpha, dA.data(),
                       dA.ld(), dB.data(), dB.ld());
  if (info != 0) throw_bad_argument(std::is_same_v<T, float> ? "strsm" : "dtrsm", info);
  dB.download(host_view(B), ctx.stream());
}

template void triangular_solve<float>(const Context&, Side, Uplo, Op, Diag, float,
                                      const Matrix<float>&, Matrix<float>&);
template void triangular_solve<double>(const Context&, Side, Uplo, Op, Diag, double,
                                       const Matrix<double>&, Matrix<double>&);

}  // namespace dla
