// High-level GEMM: argument checks, then the host (Eigen) or CUDA path.
#include "dla/gemm/gemm.hpp"

#include <functional>
#include <string>

#include "dla/core/config.hpp"
#include "dla/core/device_matrix.hpp"
#include "dla/core/error.hpp"
#include "dla/gemm/gemm_cuda.hpp"

namespace dla {
namespace {

std::string shape(index_t r, index_t c) { return std::to_string(r) + "x" + std::to_string(c); }

// An Op other than N and T (a cast from a bad char) is refused, not taken as T.
void check_op(const char* name, Op op) {
  if (!is_valid(op))
    throw InvalidArgument("gemm: " + std::string(name) + " is not Op::N or Op::T (character code " +
                          std::to_string(int(static_cast<char>(op))) + ")");
}

// Checks the ops, then op(A) (m x k) * op(B) (k x n) against C (m x n).
template <class VA, class VB, class VC>
void check_shapes(Op opA, Op opB, const VA& A, const VB& B, const VC& C) {
  check_op("opA", opA);
  check_op("opB", opB);
  const index_t m = opA == Op::N ? A.rows : A.cols;
  const index_t ka = opA == Op::N ? A.cols : A.rows;
  const index_t kb = opB == Op::N ? B.rows : B.cols;
  const index_t n = opB == Op::N ? B.cols : B.rows;
  if (ka != kb || C.rows != m || C.cols != n)
    throw DimensionMismatch("gemm: op" + std::string(to_string(opA)) + "(A) is " + shape(m, ka) +
                            ", op" + to_string(opB) + "(B) is " + shape(kb, n) + ", C is " +
                            shape(C.rows, C.cols) + " (need A cols == B rows and C " +
                            shape(m, n) + ")");
}

// A host view's own shape: sizes >= 0 and ld >= max(1, rows), what BLAS and
// the device path (cuda::gemm's LAPACK-style info) require.
template <class V>
void check_view(const char* name, const V& v) {
  if (v.rows < 0 || v.cols < 0 || v.ld < (v.rows > 1 ? v.rows : 1))
    throw InvalidArgument("gemm: " + std::string(name) + " is " + shape(v.rows, v.cols) +
                          " with leading dimension " + std::to_string(v.ld) +
                          " (need sizes >= 0 and ld >= max(1, rows))");
}

// Whether two non-empty views' address ranges [first element, last element] meet.
template <class T>
bool overlaps(HostView<const T> X, HostView<const T> Y) {
  if (X.empty() || Y.empty()) return false;
  const std::less<const T*> lt;
  return !lt(X.ptr(X.rows - 1, X.cols - 1), Y.data) && !lt(Y.ptr(Y.rows - 1, Y.cols - 1), X.data);
}

template <class T>
void gemm_host(Op opA, Op opB, T alpha, HostView<const T> A, HostView<const T> B, T beta,
               HostView<T> C) {
  // C sharing memory with A or B (A = A * B in place): C is scaled below
  // before A and B are read, so multiply copies of them (the CUDA backend's
  // staging through the device does the same).
  if (overlaps<T>(C, A)) {
    const Matrix<T> a = eigen_map(A);
    return gemm_host<T>(opA, opB, alpha, host_view(a), B, beta, C);
  }
  if (overlaps<T>(C, B)) {
    const Matrix<T> b = eigen_map(B);
    return gemm_host<T>(opA, opB, alpha, A, host_view(b), beta, C);
  }
  auto c = eigen_map(C);
  if (C.empty()) return;
  if (beta == T(0)) c.setZero();  // BLAS: beta == 0 never reads C (NaN must not leak)
  else if (beta != T(1)) c *= beta;
  const index_t k = opA == Op::N ? A.cols : A.rows;
  if (alpha == T(0) || k == 0) return;
  auto a = eigen_map(A);
  auto b = eigen_map(B);
  if (opA == Op::N && opB == Op::N) c.noalias() += alpha * a * b;
  else if (opA == Op::N) c.noalias() += alpha * a * b.transpose();
  else if (opB == Op::N) c.noalias() += alpha * a.transpose() * b;
  else c.noalias() += alpha * a.transpose() * b.transpose();
}

template <class T>
void gemm_device(const Context& ctx, Op opA, Op opB, T alpha, DeviceView<const T> A,
                 DeviceView<const T> B, T beta, DeviceView<T> C) {
  if (!ctx.is_cuda())
    throw InvalidArgument("gemm: device matrices need a Context on the CUDA backend");
  check_shapes(opA, opB, A, B, C);
  ctx.activate();
  const index_t k = opA == Op::N ? A.cols : A.rows;
  const int info = cuda::gemm(ctx.stream(), opA, opB, C.rows, C.cols, k, alpha, A.data, A.ld,
                                  B.data, B.ld, beta, C.data, C.ld);
  if (info != 0) throw_bad_argument(std::is_same_v<T, float> ? "sgemm" : "dgemm", info);
}

template <class T>
void gemm_any(const Context& ctx, Op opA, Op opB, T alpha, HostView<const T> A,
              HostView<const T> B, T beta, HostView<T> C) {
  check_view("A", A);
  check_view("B", B);
  check_view("C", C);
  check_shapes(opA, opB, A, B, C);
  if (!ctx.is_cuda()) return gemm_host(opA, opB, alpha, A, B, beta, C);
  // Host data on the CUDA backend: stage through the device.
  DeviceMatrix<T> dA(A.rows, A.cols), dB(B.rows, B.cols), dC(C.rows, C.cols);
  dA.upload(A, ctx.stream());
  dB.upload(B, ctx.stream());
  if (beta != T(0)) dC.upload(C, ctx.stream());
  gemm_device<T>(ctx, opA, opB, alpha, dA.view(), dB.view(), beta, dC.view());
  dC.download(C, ctx.stream());
}

}  // namespace

void gemm(const Context& ctx, Op opA, Op opB, float alpha, HostView<const float> A,
          HostView<const float> B, float beta, HostView<float> C) {
  gemm_any<float>(ctx, opA, opB, alpha, A, B, beta, C);
}
void gemm(const Context& ctx, Op opA, Op opB, double alpha, HostView<const double> A,
          HostView<const double> B, double beta, HostView<double> C) {
  gemm_any<double>(ctx, opA, opB, alpha, A, B, beta, C);
}
void gemm(const Context& ctx, Op opA, Op opB, float alpha, DeviceView<const float> A,
          DeviceView<const float> B, float beta, DeviceView<float> C) {
  gemm_device<float>(ctx, opA, opB, alpha, A, B, beta, C);
}
void gemm(const Context& ctx, Op opA, Op opB, double alpha, DeviceView<const double> A,
          DeviceView<const double> B, double beta, DeviceView<double> C) {
  gemm_device<double>(ctx, opA, opB, alpha, A, B, beta, C);
}

}  // namespace dla
