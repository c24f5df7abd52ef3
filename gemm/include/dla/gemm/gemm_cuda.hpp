#pragma once
// Low-level GEMM on device buffers and the caller's stream (BLAS semantics,
// column-major):  C = alpha * op(A) * op(B) + beta * C,  op(A) is m x k.
//
// Returns LAPACK-style info: 0 on success, -i when argument i is invalid
// (arguments counted from 1 as written below, stream excluded: opA = 1,
// opB = 2, m = 3, n = 4, k = 5, alpha = 6, A = 7, lda = 8, B = 9, ldb = 10,
// beta = 11, C = 12, ldc = 13). beta == 0 never reads C; alpha == 0 or k == 0
// scales C by beta without reading A or B. The call is asynchronous.
#include <string>
#include <vector>

#include "dla/core/types.hpp"

namespace dla::cuda {

// How an FP32 product runs on the device.
//  Native  FP32 fused multiply-adds on the CUDA cores: IEEE single precision,
//          what cuBLAS does in its pedantic math mode. The default of sgemm,
//          sgemmt and ssyrk.
//  Tf32x3  FP32 emulated on the tensor cores ("3xTF32"): every element x of A
//          and B is split into x_hi + x_lo, both TF32 (11 significant bits,
//          rounded to nearest), a b is computed as a_hi b_hi + a_hi b_lo +
//          a_lo b_hi, and each 8-deep (32-deep on Hopper) partial sum is
//          added to an FP32 accumulator with rounding to nearest. Each
//          product is within 6 eps |a b| of exact (eps = 2^-23), results stay
//          inside FP32 GEMM's error bound 2 (k + 2) eps sum|a||b|, and on
//          random data the measured error is at or below Native's (docs/gemm.md,
//          sessions 18-19);
//          results are not bitwise Native's. Where it differs: an Inf in A or
//          B gives NaN (x_lo = Inf - Inf) where Native may give +-Inf;
//          elements within 2^-12 of FLT_MAX overflow in x_hi; x_lo of
//          elements below ~2^-114 is subnormal and may lose bits. Large
//          products only (the tensor-core kernels); other shapes run Native
//          (sgemm_auto_choice says which). Compute capability 8.0+; on 9.0
//          (Hopper) a warpgroup-MMA kernel, 1.2-1.8x cuBLAS's FP32 SGEMM on
//          the H200 (2000^3 and larger). What dla's factorizations use there by default:
//          solver_fp32_gemm().
enum class Fp32Gemm { Native, Tf32x3 };
const char* to_string(Fp32Gemm m);  // "native", "tf32x3"

// What dla's own routines built on GEMM (strsm's blocked steps, getrf/getrs,
// potrf/potrs and the solvers on top) use for their FP32 products: process
// wide, read at each call. The environment variable DLA_FP32_GEMM=native|
// tf32x3 sets the initial value (anything else throws InvalidArgument at the
// first call); unset, it is Tf32x3 when the current device at the first call
// runs the Hopper warpgroup-MMA kernel (compute capability 9.0), else Native.
// On the H200 the factorizations run faster with it (spotrf 16384 about
// 1.3x, docs/gemm.md session 19) with the same backward errors; with only the
// older tensor-core kernels (other devices) they ran slower (session 18).
// Double precision is unaffected.
Fp32Gemm solver_fp32_gemm();
void set_solver_fp32_gemm(Fp32Gemm m);

int sgemm(stream_t stream, Op opA, Op opB, index_t m, index_t n, index_t k, float alpha,
          const float* A, index_t lda, const float* B, index_t ldb, float beta, float* C,
          index_t ldc, Fp32Gemm math = Fp32Gemm::Native);
int dgemm(stream_t stream, Op opA, Op opB, index_t m, index_t n, index_t k, double alpha,
          const double* A, index_t lda, const double* B, index_t ldb, double beta, double* C,
          index_t ldc);

// Overloads by element type, for code templated on float/double.
inline int gemm(stream_t s, Op opA, Op opB, index_t m, index_t n, index_t k, float alpha,
                const float* A, index_t lda, const float* B, index_t ldb, float beta, float* C,
                index_t ldc, Fp32Gemm math = Fp32Gemm::Native) {
  return sgemm(s, opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, math);
}
inline int gemm(stream_t s, Op opA, Op opB, index_t m, index_t n, index_t k, double alpha,
                const double* A, index_t lda, const double* B, index_t ldb, double beta,
                double* C, index_t ldc) {
  return dgemm(s, opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

// GEMM that computes and stores only one triangle of C ("gemmt"): the
// elements C(i, j) with i >= j (uplo Lower) or i <= j (Upper) of
// C = alpha * op(A) * op(B) + beta * C. C may be m x n (m != n: a trapezoid).
// Elements outside the triangle are neither read nor written, and tiles
// entirely outside it are not computed. Arguments are numbered as for sgemm
// plus one (uplo = 1, opA = 2, ..., ldc = 14).
int sgemmt(stream_t stream, Uplo uplo, Op opA, Op opB, index_t m, index_t n, index_t k,
           float alpha, const float* A, index_t lda, const float* B, index_t ldb, float beta,
           float* C, index_t ldc, Fp32Gemm math = Fp32Gemm::Native);
int dgemmt(stream_t stream, Uplo uplo, Op opA, Op opB, index_t m, index_t n, index_t k,
           double alpha, const double* A, index_t lda, const double* B, index_t ldb, double beta,
           double* C, index_t ldc);

// Symmetric rank-k update (BLAS syrk) on the uplo triangle of the n x n C:
// C = alpha * op(A) * op(A)^T + beta * C, op(A) = A (trans N, A is n x k) or
// A^T (trans T, A is k x n). Through sgemmt/dgemmt. Info: uplo = -1,
// trans = -2, n = -3, k = -4, lda = -7, ldc = -10.
int ssyrk(stream_t stream, Uplo uplo, Op trans, index_t n, index_t k, float alpha,
          const float* A, index_t lda, float beta, float* C, index_t ldc,
          Fp32Gemm math = Fp32Gemm::Native);
int dsyrk(stream_t stream, Uplo uplo, Op trans, index_t n, index_t k, double alpha,
          const double* A, index_t lda, double beta, double* C, index_t ldc);

// Overloads by element type, for code templated on float/double.
inline int gemmt(stream_t s, Uplo uplo, Op opA, Op opB, index_t m, index_t n, index_t k,
                 float alpha, const float* A, index_t lda, const float* B, index_t ldb,
                 float beta, float* C, index_t ldc, Fp32Gemm math = Fp32Gemm::Native) {
  return sgemmt(s, uplo, opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, math);
}
inline int gemmt(stream_t s, Uplo uplo, Op opA, Op opB, index_t m, index_t n, index_t k,
                 double alpha, const double* A, index_t lda, const double* B, index_t ldb,
                 double beta, double* C, index_t ldc) {
  return dgemmt(s, uplo, opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

// The SGEMM kernel variants by name: the seed progression of DESIGN.md
// ("naive", "smem32", "smem32_vec4", "volkov_nn", "reg128", "reg128_vec4_db"),
// the tuned configurations ("tuned_*"), the tensor-core 3xTF32 configurations
// ("tf32x3_*", Fp32Gemm::Tf32x3, never split along k; "tf32x3_wgmma_*" with
// Hopper's warpgroup MMA), "auto" (what sgemm()
// dispatches to) and "auto_tf32x3" (what sgemm(..., Fp32Gemm::Tf32x3) does).
std::vector<std::string> sgemm_variants();
// Whether the named variant runs on the current device: false for unknown
// names and for "tf32x3_wgmma_*" (Hopper warpgroup MMA, sm_90a code) on a
// device other than compute capability 9.0, where sgemm_variant throws
// DeviceError. auto and auto_tf32x3 run everywhere.
bool sgemm_variant_available(const std::string& variant);
// Same contract as sgemm(), with the kernel chosen by name; an unknown name
// throws InvalidArgument listing the known ones.
int sgemm_variant(const std::string& variant, stream_t stream, Op opA, Op opB, index_t m,
                  index_t n, index_t k, float alpha, const float* A, index_t lda, const float* B,
                  index_t ldb, float beta, float* C, index_t ldc);

// What "auto" runs for this shape on the current device, e.g.
// "tuned_128x128x16_s3", "tuned_128x128x16_s3 split_k=66" or
// "tuned_128x128x16_s3 tail_split_k=5 pack_a" (for benchmarks and docs);
// with Fp32Gemm::Tf32x3 a "tf32x3_*" config, or a Native plan for the
// shapes that need split-K (few output tiles, deep k).
// split_k: every output tile is computed as K slices by separate blocks;
// tail_split_k: only the tiles of the last, partial wave are. The slices'
// partial tiles go to scratch memory and one kernel sums them in a fixed
// order, so results are bitwise reproducible run to run. pack_a / pack_b: the
// operand is first copied into scratch memory with an aligned leading
// dimension (and m/n contiguous), because the kernel would otherwise have to
// copy it 4 bytes at a time (ld % 4 != 0, a pointer off 16 bytes). Scratch
// memory comes from a stream-ordered memory pool that dla creates per device;
// it keeps up to 256 MiB reserved between calls. If it cannot allocate, the
// GEMM runs without splitting or packing. The first overload assumes op N,
// N with lda = m, ldb = k.
std::string sgemm_auto_choice(index_t m, index_t n, index_t k);
std::string sgemm_auto_choice(Op opA, Op opB, index_t m, index_t n, index_t k, index_t lda,
                              index_t ldb, Fp32Gemm math = Fp32Gemm::Native);
// The same for sgemmt (and ssyrk): the kernel that updates the `uplo`
// triangle of the m x n product.
std::string sgemmt_auto_choice(Uplo uplo, Op opA, Op opB, index_t m, index_t n, index_t k,
                               index_t lda, index_t ldb, Fp32Gemm math = Fp32Gemm::Native);

// What dgemm (uplo omitted) and dgemmt / dsyrk (the `uplo` triangle) run for
// an m x n C on the current device: "dmma_128x128x16_s4" (FP64 tensor cores:
// compute capability 9.0+ and a build with sm_90 code; once the 128 x 128
// tiles fill the device),
// "dmma_64x64x16_s4" (fewer tiles), or "simt_64x64x8" (the CUDA-core kernel:
// older devices, or the environment variable DLA_DGEMM=simt, read per call).
std::string dgemm_auto_choice(index_t m, index_t n);
std::string dgemmt_auto_choice(Uplo uplo, index_t m, index_t n);

}  // namespace dla::cuda
