// Benchmark suite "potrf": dla::cuda::spotrf / sposv against cusolverDnSpotrf
// (+ potrs) on the same random SPD matrices in the same run; dpotrf rows
// against cusolverDnDpotrf. Rates count n^3/3 flops (potrf) and
// n^3/3 + 2 n^2 nrhs (posv). The timed region restores A from a pristine copy
// first; the copy's own median time is subtracted.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "dla/core/cuda_check.hpp"
#include "dla/core/device_matrix.hpp"
#include "dla/gemm/gemm_cuda.hpp"
#include "bench_device.cuh"
#include "dla/solvers/cholesky_cuda.hpp"
#include "dla/solvers/trsm_cuda.hpp"

namespace dla::bench {
namespace {

// A = (S + S^T)/2 + (3 sqrt(n) + 1) I with S uniform in [-1, 1): SPD, cond ~3.
template <class T>
__global__ void make_spd(T* A, index_t n, std::uint64_t seed) {
  const index_t total = n * n;
  for (index_t idx = index_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
       idx += index_t(gridDim.x) * blockDim.x) {
    const index_t i = idx % n, j = idx / n;
    const index_t a = i < j ? i : j, b = i < j ? j : i;
    double v = hash_uniform(seed * 0x100000001B3ull + std::uint64_t(a * n + b));
    if (i == j) v += 3.0 * sqrt(double(n)) + 1.0;
    A[idx] = T(v);
  }
}

template <class T>
struct Blas;
template <>
struct Blas<float> {
  static constexpr const char* name = "s";
  static std::size_t potrf_buf(index_t n, const float* A) { return cuda::spotrf_buffer_size(n, A, n); }
  static int potrf(stream_t s, index_t n, float* A, int* info, void* ws, std::size_t bytes) {
    return cuda::spotrf(s, Uplo::Lower, n, A, n, info, ws, bytes);
  }
  static int potrs(stream_t s, index_t n, index_t r, const float* A, float* B) {
    return cuda::spotrs(s, Uplo::Lower, n, r, A, n, B, n);
  }
  static void vpotrf_buf(cusolverDnHandle_t h, int n, float* A, int* lw) {
    cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, n, lw);
  }
  static void vpotrf(cusolverDnHandle_t h, int n, float* A, float* w, int lw, int* info) {
    cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, A, n, w, lw, info);
  }
  static void vpotrs(cusolverDnHandle_t h, int n, int r, const float* A, float* B, int* info) {
    cusolverDnSpotrs(h, CUBLAS_FILL_MODE_LOWER, n, r, A, n, B, n, info);
  }
  static void trmv(cublasHandle_t h, cublasOperation_t op, int n, const float* A, float* x) {
    cublasStrmv(h, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, n, A, n, x, 1);
  }
};
template <>
struct Blas<double> {
  static constexpr const char* name = "d";
  static std::size_t potrf_buf(index_t n, const double* A) { return cuda::dpotrf_buffer_size(n, A, n); }
  static int potrf(stream_t s, index_t n, double* A, int* info, void* ws, std::size_t bytes) {
    return cuda::dpotrf(s, Uplo::Lower, n, A, n, info, ws, bytes);
  }
  static int potrs(stream_t s, index_t n, index_t r, const double* A, double* B) {
    return cuda::dpotrs(s, Uplo::Lower, n, r, A, n, B, n);
  }
  static void vpotrf_buf(cusolverDnHandle_t h, int n, double* A, int* lw) {
    cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, n, lw);
  }
  static void vpotrf(cusolverDnHandle_t h, int n, double* A, double* w, int lw, int* info) {
    cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, A, n, w, lw, info);
  }
  static void vpotrs(cusolverDnHandle_t h, int n, int r, const double* A, double* B, int* info) {
    cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, r, A, n, B, n, info);
  }
  static void trmv(cublasHandle_t h, cublasOperation_t op, int n, const double* A, double* x) {
    cublasDtrmv(h, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, n, A, n, x, 1);
  }
};



// ||A v - L (L^T v)|| / (||A|| ||v|| n eps): O(n^2) probe of the factor.
template <class T>
double factor_error(VendorHandles& h, index_t n, const T* A0, const T* L, T* v, T* y, T* r) {
  fill_uniform<T><<<256, 256>>>(v, n, 5);
  DLA_CUDA_CHECK_LAUNCH();
  DLA_CUDA_CHECK(cudaMemcpy(y, v, sizeof(T) * n, cudaMemcpyDeviceToDevice));
  Blas<T>::trmv(h.blas, CUBLAS_OP_T, int(n), L, y);
  Blas<T>::trmv(h.blas, CUBLAS_OP_N, int(n), L, y);
  check_gemm(h.blas, int(n), 1, T(1), A0, v, T(0), r);
  check_sub(h.blas, int(n), y, r);
  const double an = check_nrm2(h.blas, n * n, A0);
  return check_nrm2(h.blas, n, r) / (an * check_nrm2(h.blas, n, v) * double(n) * eps<T>());
}


// One size: dla's rows (with the solvers' FP32 products in `math` for float)
// next to cuSOLVER's, which is timed again in every call.
template <class T>
void run_size(const Options& o, Report& rep, VendorHandles& h, stream_t s, index_t n, bool with_posv,
              bool with_split, cuda::Fp32Gemm math = cuda::Fp32Gemm::Native) {
  if constexpr (std::is_same_v<T, float>) cuda::set_solver_fp32_gemm(math);
  const std::string variant = std::is_same_v<T, float> ? cuda::to_string(math) : "blocked";
  const index_t nrhs = 16;
  DeviceBuffer<T> A0(n * n), A(n * n), B0(n * nrhs), B(n * nrhs), v(n), y(n), r(n * nrhs);
  DeviceBuffer<int> info(1);
  make_spd<T><<<1024, 256, 0, reinterpret_cast<cudaStream_t>(s)>>>(A0.data(), n, o.seed);
  DLA_CUDA_CHECK_LAUNCH();
  fill_uniform<T><<<256, 256, 0, reinterpret_cast<cudaStream_t>(s)>>>(B0.data(), n * nrhs,
                                                                      o.seed + 1);
  DLA_CUDA_CHECK_LAUNCH();
  const cudaStream_t cs = reinterpret_cast<cudaStream_t>(s);
  auto restore = [&] {
    DLA_CUDA_CHECK(cudaMemcpyAsync(A.data(), A0.data(), sizeof(T) * n * n,
                                   cudaMemcpyDeviceToDevice, cs));
  };
  auto restore_b = [&] {
    DLA_CUDA_CHECK(cudaMemcpyAsync(B.data(), B0.data(), sizeof(T) * n * nrhs,
                                   cudaMemcpyDeviceToDevice, cs));
  };
  int lwork = 0;
  Blas<T>::vpotrf_buf(h.sol, int(n), A.data(), &lwork);
  DeviceBuffer<T> work(std::max(lwork, 1));
  // dla's workspace, like cuSOLVER's: an aligned copy of A where lda = n is
  // misaligned (spotrf_buffer_size, potrf_pads); allocated outside the timing.
  const std::size_t dla_ws = Blas<T>::potrf_buf(n, A.data());
  DeviceBuffer<char> dwork(index_t(std::max<std::size_t>(dla_ws, 1)));
  void* const ws = dla_ws ? dwork.data() : nullptr;
  DeviceBuffer<int> vinfo(1);
  const std::string pre = Blas<T>::name;
  const double flops = double(n) * n * n / 3.0;
  const std::string shape = "n=" + std::to_string(n);
  progress(pre + "potrf " + shape);

  const double t_copy = time_ms(s, o.repeat, restore);
  const double t_dla = time_ms(s, o.repeat, [&] { restore(); Blas<T>::potrf(s, n, A.data(), info.data(), ws, dla_ws); }) - t_copy;
  int hinfo = -1;
  DLA_CUDA_CHECK(cudaStreamSynchronize(cs));
  DLA_CUDA_CHECK(cudaMemcpy(&hinfo, info.data(), sizeof(int), cudaMemcpyDeviceToHost));
  const double err = hinfo == 0 ? factor_error<T>(h, n, A0.data(), A.data(), v.data(), y.data(), r.data())
                                : kNaN;
  const double t_vendor = time_ms(s, o.repeat, [&] {
    restore();
    Blas<T>::vpotrf(h.sol, int(n), A.data(), work.data(), lwork, vinfo.data());
  }) - t_copy;
  // The vendor's factor, probed the same way (A holds it after the timed runs).
  DLA_CUDA_CHECK(cudaStreamSynchronize(cs));
  const double vendor_err = factor_error<T>(h, n, A0.data(), A.data(), v.data(), y.data(), r.data());

  Row row;
  row.suite = "potrf";
  row.variant = variant;
  row.op = pre + "potrf";
  row.shape = shape;
  row.ms = t_dla;
  row.rate = tflops(flops, t_dla);
  row.vendor = "cusolver";
  row.vendor_ms = t_vendor;
  row.vendor_rate = tflops(flops, t_vendor);
  row.ratio = t_vendor / t_dla;
  row.error = err;
  row.error_limit = 50;
  const index_t nb = cuda::potrf_block_size(n);
  // The rules' tensor_cores: the row's FP32 mode, or dpotrf's DGEMM kernels.
  const bool tc = std::is_same_v<T, float> ? math == cuda::Fp32Gemm::Tf32x3
                                           : cuda::potrf_tensor_core_updates(false);
  const index_t depth = cuda::potrf_update_depth(n, tc);
  const index_t kup = std::min(nb * depth, n);  // k of the bulk trailing updates
  int dev = 0, sms = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  DLA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const index_t side = cuda::potrf_side_sms(n, tc, sms);
  char sides[32] = "all";  // SMs of the look-ahead's bulk update
  if (side > 0) std::snprintf(sides, sizeof sides, "%lld", (long long)side);
  // The look-ahead's first groups may be deeper (potrf_group_depth).
  const index_t early = cuda::potrf_group_depth(n, 0, depth, std::is_same_v<T, float> && tc);
  char depths[64];
  if (early != depth)
    std::snprintf(depths, sizeof depths, "%lld (%lld while n - col > %lld)", (long long)depth,
                  (long long)early, (long long)cuda::potrf_early_groups_trailing());
  else
    std::snprintf(depths, sizeof depths, "%lld", (long long)depth);
  // The aligned copy, where spotrf makes one (the workspace's leading dimension).
  char pad[48] = "";
  if (dla_ws) std::snprintf(pad, sizeof pad, " pad_ld=%lld", (long long)aligned_ld(n));
  char note[512];
  std::snprintf(note, sizeof note, "nb=%lld depth=%s side_sms=%s%s info=%d; cusolver error %.2g",
                (long long)nb, depths, sides, pad, hinfo, vendor_err);
  row.note = note;
  if constexpr (std::is_same_v<T, float>) {
    // Our SGEMM at the typical bulk-update shape (n/2 x n/2 x depth nb, NT).
    const index_t m = std::max<index_t>(n / 2, 1);
    DeviceBuffer<T> C(m * m);
    const double t_g = time_ms(s, o.repeat, [&] {
      cuda::sgemm(s, Op::N, Op::T, m, m, kup, -1.0f, A0.data(), n, A0.data() + m, n, 1.0f,
                  C.data(), m, math);
    });
    const double g_rate = tflops(2.0 * m * m * kup, t_g);
    std::snprintf(note, sizeof note,
                  "nb=%lld depth=%s side_sms=%s%s info=%d; cusolver error %.2g; sgemm(%s) NT "
                  "%lldx%lldx%lld %.1f TFLOP/s, potrf = %.0f%% of it",
                  (long long)nb, depths, sides, pad, hinfo, vendor_err, cuda::to_string(math),
                  (long long)m, (long long)m, (long long)kup, g_rate, 100.0 * row.rate / g_rate);
    row.note = note;
    if (with_split) {
      // Estimated split from a separate timed run: the diagonal blocks (potrf
      // of one nb block, times the number of steps). The panel solves run
      // inside the diagonal kernels' time (fused panel, docs/cholesky.md), so
      // "rest" is the update plus what the panel and the launches add.
      const index_t steps = (n + nb - 1) / nb;
      const double t_diag1 = time_ms(s, o.repeat, [&] {
        DLA_CUDA_CHECK(cudaMemcpy2DAsync(A.data(), sizeof(T) * n, A0.data(), sizeof(T) * n,
                                         sizeof(T) * nb, nb, cudaMemcpyDeviceToDevice, cs));
        cuda::spotrf(s, Uplo::Lower, nb, A.data(), n, info.data(), nullptr);
      });
      const double t_diag = t_diag1 * double(steps);
      const double t_rest = std::max(0.0, t_dla - t_diag);
      char split[256];
      std::snprintf(split, sizeof split, "; split(est) diag %.1f ms, rest %.1f ms", t_diag,
                    t_rest);
      row.note += split;
    }
  }
  rep.add(row);

  if (!with_posv) return;
  progress(pre + "posv " + shape);
  const double t_bcopy = time_ms(s, o.repeat, [&] { restore(); restore_b(); });
  const double t_dposv = time_ms(s, o.repeat, [&] {
    restore();
    restore_b();
    Blas<T>::potrf(s, n, A.data(), info.data(), ws, dla_ws);
    Blas<T>::potrs(s, n, nrhs, A.data(), B.data());
  }) - t_bcopy;
  const double perr = solve_error<T>(h, n, nrhs, A0.data(), B.data(), B0.data(), r.data());
  const double t_vposv = time_ms(s, o.repeat, [&] {
    restore();
    restore_b();
    Blas<T>::vpotrf(h.sol, int(n), A.data(), work.data(), lwork, vinfo.data());
    Blas<T>::vpotrs(h.sol, int(n), int(nrhs), A.data(), B.data(), vinfo.data());
  }) - t_bcopy;
  DLA_CUDA_CHECK(cudaStreamSynchronize(cs));
  const double vendor_perr = solve_error<T>(h, n, nrhs, A0.data(), B.data(), B0.data(), r.data());
  Row p;
  p.suite = "potrf";
  p.variant = variant;
  p.op = pre + "posv";
  p.shape = shape + ",nrhs=" + std::to_string(nrhs);
  const double pflops = flops + 2.0 * double(n) * n * nrhs;
  p.ms = t_dposv;
  p.rate = tflops(pflops, t_dposv);
  p.vendor = "cusolver";
  p.vendor_ms = t_vposv;
  p.vendor_rate = tflops(pflops, t_vposv);
  p.ratio = t_vposv / t_dposv;
  p.error = perr;
  p.error_limit = 50;
  char pnote[64];
  std::snprintf(pnote, sizeof pnote, "cusolver error %.2g", vendor_perr);
  p.note = pnote;
  rep.add(p);
}

void suite_potrf(const Options& o, Report& rep) {
  std::vector<index_t> sizes = o.sizes;
  if (sizes.empty()) sizes = o.quick ? std::vector<index_t>{1024, 2048}
                                     : std::vector<index_t>{1024, 2048, 4096, 8192, 16384};
  cudaStream_t cs;
  DLA_CUDA_CHECK(cudaStreamCreate(&cs));
  const stream_t s = reinterpret_cast<stream_t>(cs);
  {
    VendorHandles h(s);
    // FP32 rows in both modes of the solvers' products (gemm_cuda.hpp: Fp32Gemm),
    // native first; the mode in force before the suite is restored.
    const cuda::Fp32Gemm before = cuda::solver_fp32_gemm();
    for (index_t n : sizes)
      for (cuda::Fp32Gemm m : {cuda::Fp32Gemm::Native, cuda::Fp32Gemm::Tf32x3})
        if (o.wants_mode(cuda::to_string(m)))
          run_size<float>(o, rep, h, s, n, true, !o.quick && (n == 8192 || n == 16384), m);
    cuda::set_solver_fp32_gemm(before);
    for (index_t n : sizes)
      if (!o.sizes.empty() || n == 4096 || n == 8192 || (o.quick && n == 1024))
        run_size<double>(o, rep, h, s, n, false, false);
  }
  DLA_CUDA_CHECK(cudaStreamSynchronize(cs));
  DLA_CUDA_CHECK(cudaStreamDestroy(cs));
}

}  // namespace

DLA_BENCH_SUITE("potrf",
                "Cholesky spotrf/sposv (and dpotrf) vs cuSOLVER; FP32 rows in both product "
                "modes, variants tf32x3 and native",
                suite_potrf);

}  // namespace dla::bench
