// Benchmark suite "getrf": dla::cuda::sgetrf / sgesv against cusolverDnSgetrf
// (with pivoting) (+ getrs) on the same random matrices in the same run;
// dgetrf rows against cusolverDnDgetrf at 4096 and 8192. Rates count
// 2/3 n^3 (getrf) and 2/3 n^3 + 2 n^2 nrhs (gesv). The timed region restores A
// from a pristine copy first; the copy's own median time is subtracted.
// The note carries dla's rate as a fraction of dla's own SGEMM at the
// trailing-update shape (n x n x nb), and at n >= 8192 (at every size given
// with --sizes) the time split (panel / swaps / trsm / gemm) of a profiled run
// (DLA_GETRF_PROFILE, no look-ahead, so the split sums to more than the
// overlapped time).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "dla/core/cuda_check.hpp"
#include "dla/core/device_matrix.hpp"
#include "dla/gemm/gemm_cuda.hpp"
#include "bench_device.cuh"
#include "dla/solvers/lu_cuda.hpp"

namespace dla::bench {
namespace {

template <class T>
struct LuApi;
template <>
struct LuApi<float> {
  static constexpr const char* name = "s";
  static int getrf(stream_t s, index_t n, float* A, std::int32_t* p, int* info, void* ws,
                   std::size_t bytes) {
    return cuda::sgetrf(s, n, n, A, n, p, info, ws, bytes);
  }
  static int getrs(stream_t s, index_t n, index_t r, const float* A, const std::int32_t* p, float* B) {
    return cuda::sgetrs(s, Op::N, n, r, A, n, p, B, n);
  }
  static std::size_t ws(index_t n, const float* A) { return cuda::sgetrf_buffer_size(n, n, A, n); }
  static void vbuf(cusolverDnHandle_t h, int n, float* A, int* lw) {
    cusolverDnSgetrf_bufferSize(h, n, n, A, n, lw);
  }
  static void vgetrf(cusolverDnHandle_t h, int n, float* A, float* w, int* p, int* info) {
    cusolverDnSgetrf(h, n, n, A, n, w, p, info);
  }
  static void vgetrs(cusolverDnHandle_t h, int n, int r, const float* A, const int* p, float* B,
                     int* info) {
    cusolverDnSgetrs(h, CUBLAS_OP_N, n, r, A, n, p, B, n, info);
  }
  static void trmv(cublasHandle_t h, cublasFillMode_t up, cublasDiagType_t d, int n, const float* A,
                   float* x) {
    cublasStrmv(h, up, CUBLAS_OP_N, d, n, A, n, x, 1);
  }
  static int laswp(stream_t s, index_t n, float* x, const std::int32_t* p) {
    return cuda::slaswp(s, 1, x, n, 0, n, p, true);
  }
};
template <>
struct LuApi<double> {
  static constexpr const char* name = "d";
  static int getrf(stream_t s, index_t n, double* A, std::int32_t* p, int* info, void* ws,
                   std::size_t bytes) {
    return cuda::dgetrf(s, n, n, A, n, p, info, ws, bytes);
  }
  static int getrs(stream_t s, index_t n, index_t r, const double* A, const std::int32_t* p,
                   double* B) {
    return cuda::dgetrs(s, Op::N, n, r, A, n, p, B, n);
  }
  static std::size_t ws(index_t n, const double* A) { return cuda::dgetrf_buffer_size(n, n, A, n); }
  static void vbuf(cusolverDnHandle_t h, int n, double* A, int* lw) {
    cusolverDnDgetrf_bufferSize(h, n, n, A, n, lw);
  }
  static void vgetrf(cusolverDnHandle_t h, int n, double* A, double* w, int* p, int* info) {
    cusolverDnDgetrf(h, n, n, A, n, w, p, info);
  }
  static void vgetrs(cusolverDnHandle_t h, int n, int r, const double* A, const int* p, double* B,
                     int* info) {
    cusolverDnDgetrs(h, CUBLAS_OP_N, n, r, A, n, p, B, n, info);
  }
  static void trmv(cublasHandle_t h, cublasFillMode_t up, cublasDiagType_t d, int n,
                   const double* A, double* x) {
    cublasDtrmv(h, up, CUBLAS_OP_N, d, n, A, n, x, 1);
  }
  static int laswp(stream_t s, index_t n, double* x, const std::int32_t* p) {
    return cuda::dlaswp(s, 1, x, n, 0, n, p, true);
  }
};



// ||P A v - L (U v)|| / (||A|| ||v|| n eps): O(n^2) probe of the factors.
template <class T>
double factor_error(VendorHandles& h, stream_t s, index_t n, const T* A0, const T* F,
                    const std::int32_t* ipiv, T* v, T* y, T* r) {
  fill_uniform<T><<<256, 256, 0, reinterpret_cast<cudaStream_t>(s)>>>(v, n, 5);
  DLA_CUDA_CHECK_LAUNCH();
  DLA_CUDA_CHECK(cudaMemcpyAsync(y, v, sizeof(T) * n, cudaMemcpyDeviceToDevice,
                                 reinterpret_cast<cudaStream_t>(s)));
  LuApi<T>::trmv(h.blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT, int(n), F, y);
  LuApi<T>::trmv(h.blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT, int(n), F, y);
  check_gemm(h.blas, int(n), 1, T(1), A0, v, T(0), r);
  LuApi<T>::laswp(s, n, r, ipiv);  // r = P A v
  check_sub(h.blas, int(n), y, r);
  const double an = check_nrm2(h.blas, n * n, A0);
  return check_nrm2(h.blas, n, r) /
         (an * check_nrm2(h.blas, n, v) * double(n) * eps<T>());
}


std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// One size: dla's rows (with the solvers' FP32 products in `math` for float)
// next to cuSOLVER's, which is timed again in every call.
template <class T>
void run_size(const Options& o, Report& rep, VendorHandles& h, stream_t s, index_t n, bool with_gesv,
              bool with_notes, cuda::Fp32Gemm math = cuda::Fp32Gemm::Native) {
  if constexpr (std::is_same_v<T, float>) cuda::set_solver_fp32_gemm(math);
  const std::string variant = std::is_same_v<T, float> ? cuda::to_string(math) : "dla";
  const index_t nrhs = 16;
  const cudaStream_t cs = reinterpret_cast<cudaStream_t>(s);
  DeviceBuffer<T> A0(n * n), A(n * n), B0(n * nrhs), B(n * nrhs), v(n), y(n), r(n * nrhs);
  DeviceBuffer<std::int32_t> piv(n);
  DeviceBuffer<int> info(1), vinfo(1);
  // dla's workspace, with the aligned copy where A (lda = n) is misaligned
  // (getrf_pads, lu_cuda.hpp); allocated outside the timing.
  const std::size_t ws_bytes = LuApi<T>::ws(n, A.data());
  DeviceBuffer<char> ws(static_cast<index_t>(ws_bytes));
  fill_uniform<T><<<1024, 256, 0, cs>>>(A0.data(), n * n, o.seed);
  DLA_CUDA_CHECK_LAUNCH();
  fill_uniform<T><<<256, 256, 0, cs>>>(B0.data(), n * nrhs, o.seed + 1);
  DLA_CUDA_CHECK_LAUNCH();
  auto restore = [&] {
    DLA_CUDA_CHECK(cudaMemcpyAsync(A.data(), A0.data(), sizeof(T) * n * n, cudaMemcpyDeviceToDevice, cs));
  };
  auto restore_b = [&] {
    DLA_CUDA_CHECK(cudaMemcpyAsync(B.data(), B0.data(), sizeof(T) * n * nrhs, cudaMemcpyDeviceToDevice, cs));
  };
  int lwork = 0;
  LuApi<T>::vbuf(h.sol, int(n), A.data(), &lwork);
  DeviceBuffer<T> work(std::max(lwork, 1));
  const int repeat = n >= 8192 ? std::max(3, std::min(o.repeat, 5)) : o.repeat;
  const std::string pre = LuApi<T>::name;
  const std::string shape = "n=" + std::to_string(n);
  const double flops = 2.0 / 3.0 * double(n) * n * n;
  progress(pre + "getrf " + shape);

  const double t_copy = time_ms(s, repeat, restore);
  const double t_dla = time_ms(s, repeat, [&] {
    restore();
    LuApi<T>::getrf(s, n, A.data(), piv.data(), info.data(), ws.data(), ws_bytes);
  }) - t_copy;
  int hinfo = -1;
  DLA_CUDA_CHECK(cudaMemcpyAsync(&hinfo, info.data(), sizeof(int), cudaMemcpyDeviceToHost, cs));
  DLA_CUDA_CHECK(cudaStreamSynchronize(cs));
  double err = factor_error<T>(h, s, n, A0.data(), A.data(), piv.data(), v.data(), y.data(), r.data());
  if (hinfo != 0) err = kNaN;
  const double t_ven = time_ms(s, repeat, [&] {
    restore();
    LuApi<T>::vgetrf(h.sol, int(n), A.data(), work.data(), piv.data(), vinfo.data());
  }) - t_copy;
  // The vendor's factors, probed the same way (A and piv hold them now).
  DLA_CUDA_CHECK(cudaStreamSynchronize(cs));
  const double vendor_err =
      factor_error<T>(h, s, n, A0.data(), A.data(), piv.data(), v.data(), y.data(), r.data());

  Row row;
  row.suite = "getrf";
  row.variant = variant;
  row.op = pre + "getrf";
  row.shape = shape;
  row.ms = t_dla;
  row.rate = tflops(flops, t_dla);
  row.vendor_ms = t_ven;
  row.vendor_rate = tflops(flops, t_ven);
  row.ratio = t_ven / t_dla;
  row.error = err;
  row.error_limit = 50;
  row.vendor = "cusolver";
  row.note = "cusolver error " + fmt("%.2g", vendor_err);
  if (!columns_aligned16(A.data(), n, sizeof(T)) && cuda::getrf_pads(n, n))
    row.note += "; aligned copy, ld " + std::to_string(aligned_ld(n));
  if (with_notes) {
    const index_t nb = cuda::getrf_block_size(n, n);
    double t_gemm;
    if constexpr (std::is_same_v<T, float>)
      t_gemm = time_ms(s, repeat, [&] {
        cuda::sgemm(s, Op::N, Op::N, n - nb, n - nb, nb, -1.f, A.data() + nb, n, A.data() + nb * n,
                    n, 1.f, A.data() + nb + nb * n, n, math);
      });
    else
      t_gemm = time_ms(s, repeat, [&] {
        cuda::dgemm(s, Op::N, Op::N, n - nb, n - nb, nb, -1.0, A.data() + nb, n, A.data() + nb * n,
                    n, 1.0, A.data() + nb + nb * n, n);
      });
    const double gemm_rate = tflops(2.0 * double(n - nb) * (n - nb) * nb, t_gemm);
    row.note += "; nb=" + std::to_string(nb) + " own " + pre + "gemm(n,n,nb)=" +
                fmt("%.1f", gemm_rate) + " TFLOP/s, getrf at " +
                fmt("%.0f", 100.0 * row.rate / gemm_rate) + "% of it";
    if (n >= 8192 || !o.sizes.empty()) {
      setenv("DLA_GETRF_PROFILE", "1", 1);
      restore();
      LuApi<T>::getrf(s, n, A.data(), piv.data(), info.data(), ws.data(), ws_bytes);
      unsetenv("DLA_GETRF_PROFILE");
      const auto p = cuda::getrf_last_profile();
      row.note += "; no-lookahead split ms: panel " + fmt("%.1f", p.panel_ms) + " swaps " +
                  fmt("%.1f", p.swap_ms) + " trsm " + fmt("%.1f", p.trsm_ms) + " gemm " +
                  fmt("%.1f", p.gemm_ms) + " total " + fmt("%.1f", p.total_ms);
    }
  }
  rep.add(row);

  if (!with_gesv) return;
  progress(pre + "gesv " + shape);
  const double gflops = flops + 2.0 * double(n) * n * nrhs;
  auto restore_both = [&] { restore(); restore_b(); };
  const double t_copy2 = time_ms(s, repeat, restore_both);
  const double t_dla2 = time_ms(s, repeat, [&] {
    restore_both();
    LuApi<T>::getrf(s, n, A.data(), piv.data(), info.data(), ws.data(), ws_bytes);
    LuApi<T>::getrs(s, n, nrhs, A.data(), piv.data(), B.data());
  }) - t_copy2;
  DLA_CUDA_CHECK(cudaStreamSynchronize(cs));
  const double err2 = solve_error<T>(h, n, nrhs, A0.data(), B.data(), B0.data(), r.data());
  const double t_ven2 = time_ms(s, repeat, [&] {
    restore_both();
    LuApi<T>::vgetrf(h.sol, int(n), A.data(), work.data(), piv.data(), vinfo.data());
    LuApi<T>::vgetrs(h.sol, int(n), int(nrhs), A.data(), piv.data(), B.data(), vinfo.data());
  }) - t_copy2;
  DLA_CUDA_CHECK(cudaStreamSynchronize(cs));
  const double vendor_err2 = solve_error<T>(h, n, nrhs, A0.data(), B.data(), B0.data(), r.data());
  Row g;
  g.suite = "getrf";
  g.variant = variant;
  g.op = pre + "gesv";
  g.shape = shape + ",nrhs=" + std::to_string(nrhs);
  g.ms = t_dla2;
  g.rate = tflops(gflops, t_dla2);
  g.vendor_ms = t_ven2;
  g.vendor_rate = tflops(gflops, t_ven2);
  g.ratio = t_ven2 / t_dla2;
  g.error = err2;
  g.error_limit = 50;
  g.vendor = "cusolver";
  g.note = "cusolver error " + fmt("%.2g", vendor_err2);
  rep.add(g);
}

void suite_getrf(const Options& o, Report& rep) {
  std::vector<index_t> sizes = o.sizes;
  if (sizes.empty()) {
    sizes = o.quick ? std::vector<index_t>{1024, 2048}
                    : std::vector<index_t>{1024, 2048, 4096, 8192, 16384};
  }
  cudaStream_t cs;
  DLA_CUDA_CHECK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
  const stream_t s = reinterpret_cast<stream_t>(cs);
  {
    VendorHandles h(s);
    // FP32 rows in both modes of the solvers' products (gemm_cuda.hpp: Fp32Gemm),
    // native first; the mode in force before the suite is restored.
    const cuda::Fp32Gemm before = cuda::solver_fp32_gemm();
    for (index_t n : sizes) {
      if (o.wants("sgetrf") || o.wants("sgesv"))
        for (cuda::Fp32Gemm m : {cuda::Fp32Gemm::Native, cuda::Fp32Gemm::Tf32x3})
          if (o.wants_mode(cuda::to_string(m)))
            run_size<float>(o, rep, h, s, n, o.wants("sgesv"), true, m);
      cuda::set_solver_fp32_gemm(before);
      const bool dsize = o.sizes.empty() ? (n == 4096 || n == 8192) : n <= 8192;
      if (dsize && o.wants("dgetrf")) run_size<double>(o, rep, h, s, n, false, false);
    }
  }
  DLA_CUDA_CHECK(cudaStreamDestroy(cs));
}

}  // namespace

DLA_BENCH_SUITE("getrf",
                "LU with partial pivoting: sgetrf/sgesv (and dgetrf) vs cusolverDn, n=1024..16384 "
                "(--quick: 1024, 2048); variants sgetrf, sgesv, dgetrf, and for the FP32 product "
                "mode tf32x3, native (default both)",
                suite_getrf);

}  // namespace dla::bench
