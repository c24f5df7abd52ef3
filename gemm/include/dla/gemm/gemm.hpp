#pragma once
// High-level GEMM: C = alpha * op(A) * op(B) + beta * C on the Context's
// backend. Host views run on the CUDA backend by staging through the device;
// device views require the CUDA backend. Shapes that do not fit throw
// DimensionMismatch naming them. Host views: C may share memory with A or B
// (A = A * B in place); device views must not overlap, as in BLAS.
#include <Eigen/Core>

#include "dla/core/context.hpp"
#include "dla/core/eigen_view.hpp"
#include "dla/core/matrix_view.hpp"

namespace dla {

void gemm(const Context& ctx, Op opA, Op opB, float alpha, HostView<const float> A,
          HostView<const float> B, float beta, HostView<float> C);
void gemm(const Context& ctx, Op opA, Op opB, double alpha, HostView<const double> A,
          HostView<const double> B, double beta, HostView<double> C);
void gemm(const Context& ctx, Op opA, Op opB, float alpha, DeviceView<const float> A,
          DeviceView<const float> B, float beta, DeviceView<float> C);
void gemm(const Context& ctx, Op opA, Op opB, double alpha, DeviceView<const double> A,
          DeviceView<const double> B, double beta, DeviceView<double> C);

// Eigen convenience: column-major dynamic matrices.
template <class T>
void gemm(const Context& ctx, Op opA, Op opB, T alpha,
          const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& A,
          const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& B, T beta,
          Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>& C) {
  gemm(ctx, opA, opB, alpha, host_view(A), host_view(B), beta, host_view(C));
}

}  // namespace dla
