// Benchmark suite "batched": many small systems. dla::cuda::sgetrf_batched,
// sgesv_batched (nrhs = 1), spotrf_batched and sposv_batched against
// cublasSgetrfBatched (+ cublasSgetrsBatched) and cusolverDnSpotrfBatched
// (+ cusolverDnSpotrsBatched), same inputs, same stream, same run.
// Timed regions restore A (and B) from pristine copies first; the copies' own
// median time is subtracted. Rates are GB/s against the copy roofline: bytes =
// read + write of the matrices (and right-hand sides) once; the H200 copies at
// ~4.2 TB/s. Errors: max over all members, computed on the host in FP64 with
// O(n^2) probes (getrf: ||P A v - L U v|| / (||A|| ||v|| n eps); potrf: the same
// with L L^T; gesv/posv: ||A x - b|| / (||A|| ||x|| n eps)), limit 50.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "dla/core/cuda_check.hpp"
#include "dla/core/device_matrix.hpp"
#include "bench_device.cuh"
#include "dla/solvers/batched_cuda.hpp"

namespace dla::bench {
namespace {

constexpr double kCopyRoofline = 4.2e12;  // bytes/s, measured device-to-device copy rate

// count matrices n x n: general (uniform, diagonal + sqrt(n)/2 so pivoting
// still swaps) or SPD ((S + S^T)/2 + (3 sqrt(n) + 1) I).
__global__ void make_batch(float* A, index_t n, index_t count, bool spd, std::uint64_t seed) {
  const index_t total = n * n * count;
  for (index_t idx = index_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
       idx += index_t(gridDim.x) * blockDim.x) {
    const index_t b = idx / (n * n), e = idx % (n * n);
    index_t i = e % n, j = e / n;
    if (spd && i > j) { const index_t t = i; i = j; j = t; }
    double v = hash_uniform(seed * 0x100000001B3ull + std::uint64_t(b * n * n + i + j * n));
    if (i == j) v += spd ? 3.0 * sqrt(double(n)) + 1.0 : 0.5 * sqrt(double(n));
    A[idx] = float(v);
  }
}

constexpr double kEps = std::numeric_limits<float>::epsilon();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The probe vector v_i = 1 + i / n.
double probe(index_t i, index_t n) { return 1.0 + double(i) / double(n); }

// ||A||_1 of member b (column major, n x n); sym: A's lower triangle mirrored.
double norm1(const float* a, index_t n, bool sym) {
  double m = 0;
  for (index_t j = 0; j < n; ++j) {
    double c = 0;
    for (index_t i = 0; i < n; ++i) c += std::abs(double(sym && i < j ? a[j + i * n] : a[i + j * n]));
    m = std::max(m, c);
  }
  return m;
}
// y = A x with A n x n (sym: lower triangle mirrored).
void matvec(const float* a, index_t n, bool sym, const double* x, double* y) {
  for (index_t i = 0; i < n; ++i) y[i] = 0;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) y[i] += double(sym && i < j ? a[j + i * n] : a[i + j * n]) * x[j];
}
double worst_of(double worst, double e) { return std::isfinite(e) ? std::max(worst, e) : kInf; }

// max_b ||P A v - L U v||_1 / (||A||_1 ||v||_1 n eps); ipiv LAPACK style.
double lu_error(const std::vector<float>& A, const std::vector<float>& F, const std::vector<int>& piv,
                index_t n, index_t count) {
  double worst = 0;
  std::vector<double> v(n), av(n), uv(n), luv(n);
  double nv = 0;
  for (index_t i = 0; i < n; ++i) nv += v[i] = probe(i, n);
  for (index_t b = 0; b < count; ++b) {
    const float* a = A.data() + b * n * n;
    const float* f = F.data() + b * n * n;
    matvec(a, n, false, v.data(), av.data());
    for (index_t k = 0; k < n; ++k) {  // P (A v)
      const index_t p = piv[std::size_t(b * n + k)] - 1;
      if (p < 0 || p >= n) return kInf;
      std::swap(av[k], av[p]);
    }
    for (index_t i = 0; i < n; ++i) {
      uv[i] = 0;
      for (index_t j = i; j < n; ++j) uv[i] += double(f[i + j * n]) * v[j];
    }
    double r = 0;
    for (index_t i = 0; i < n; ++i) {
      luv[i] = uv[i];
      for (index_t j = 0; j < i; ++j) luv[i] += double(f[i + j * n]) * uv[j];
      r += std::abs(av[i] - luv[i]);
    }
    worst = worst_of(worst, r / (norm1(a, n, false) * nv * double(n) * kEps));
  }
  return worst;
}
// max_b ||A v - L L^T v||_1 / (||A||_1 ||v||_1 n eps), A symmetric from its lower triangle.
double chol_error(const std::vector<float>& A, const std::vector<float>& F, index_t n, index_t count) {
  double worst = 0;
  std::vector<double> v(n), av(n), ltv(n);
  double nv = 0;
  for (index_t i = 0; i < n; ++i) nv += v[i] = probe(i, n);
  for (index_t b = 0; b < count; ++b) {
    const float* a = A.data() + b * n * n;
    const float* f = F.data() + b * n * n;
    matvec(a, n, true, v.data(), av.data());
    for (index_t i = 0; i < n; ++i) {  // (L^T v)_i = sum_{j >= i} L(j, i) v_j
      ltv[i] = 0;
      for (index_t j = i; j < n; ++j) ltv[i] += double(f[j + i * n]) * v[j];
    }
    double r = 0;
    for (index_t i = 0; i < n; ++i) {
      double l = 0;
      for (index_t j = 0; j <= i; ++j) l += double(f[i + j * n]) * ltv[j];
      r += std::abs(av[i] - l);
    }
    worst = worst_of(worst, r / (norm1(a, n, true) * nv * double(n) * kEps));
  }
  return worst;
}
// max_b ||A x - b||_1 / (||A||_1 ||x||_1 n eps), one right-hand side per member.
double solve_error(const std::vector<float>& A, const std::vector<float>& X,
                   const std::vector<float>& B, index_t n, index_t count, bool sym) {
  double worst = 0;
  std::vector<double> x(n), ax(n);
  for (index_t b = 0; b < count; ++b) {
    const float* a = A.data() + b * n * n;
    double nx = 0;
    for (index_t i = 0; i < n; ++i) nx += std::abs(x[i] = X[std::size_t(b * n + i)]);
    matvec(a, n, sym, x.data(), ax.data());
    double r = 0;
    for (index_t i = 0; i < n; ++i) r += std::abs(ax[i] - double(B[std::size_t(b * n + i)]));
    worst = worst_of(worst, r / (norm1(a, n, sym) * nx * double(n) * kEps));
  }
  return worst;
}

template <class T>
std::vector<T> fetch(const DeviceBuffer<T>& d) {
  std::vector<T> h(std::size_t(d.size()));
  d.download(h.data(), d.size());
  return h;
}

int count_failed(const std::vector<int>& info) {
  return int(std::count_if(info.begin(), info.end(), [](int i) { return i != 0; }));
}

void run_case(const Options& o, Report& rep, cublasHandle_t blas, cusolverDnHandle_t sol,
              stream_t s, index_t n, index_t count) {
  const cudaStream_t cs = reinterpret_cast<cudaStream_t>(s);
  const index_t elems = n * n * count;
  DeviceBuffer<float> A0(elems), S0(elems), A(elems), B0(n * count), B(n * count);
  DeviceBuffer<int> piv(n * count), info(count), vpiv(n * count), vinfo(count);
  DeviceBuffer<float*> pa(count), pb(count);
  {
    std::vector<float*> ha(static_cast<std::size_t>(count)), hb(static_cast<std::size_t>(count));
    for (index_t b = 0; b < count; ++b) {
      ha[std::size_t(b)] = A.data() + b * n * n;
      hb[std::size_t(b)] = B.data() + b * n;
    }
    pa.upload(ha.data(), count);
    pb.upload(hb.data(), count);
  }
  make_batch<<<2048, 256, 0, cs>>>(A0.data(), n, count, false, o.seed + n);
  DLA_CUDA_CHECK_LAUNCH();
  make_batch<<<2048, 256, 0, cs>>>(S0.data(), n, count, true, o.seed + 2 * n);
  DLA_CUDA_CHECK_LAUNCH();
  fill_uniform<float><<<1024, 256, 0, cs>>>(B0.data(), n * count, o.seed + 3);
  DLA_CUDA_CHECK_LAUNCH();
  const std::vector<float> hA0 = fetch(A0), hS0 = fetch(S0), hB0 = fetch(B0);

  auto restore = [&](const DeviceBuffer<float>& src, bool with_b) {
    DLA_CUDA_CHECK(cudaMemcpyAsync(A.data(), src.data(), sizeof(float) * elems,
                                   cudaMemcpyDeviceToDevice, cs));
    if (with_b)
      DLA_CUDA_CHECK(cudaMemcpyAsync(B.data(), B0.data(), sizeof(float) * n * count,
                                     cudaMemcpyDeviceToDevice, cs));
  };
  const double t_copy_a = time_ms(s, o.repeat, [&] { restore(A0, false); });
  const double t_copy_ab = time_ms(s, o.repeat, [&] { restore(A0, true); });
  const std::string shape = "n=" + std::to_string(n) + ",count=" + std::to_string(count);
  const double mat_bytes = 2.0 * sizeof(float) * double(elems);
  const double rhs_bytes = 2.0 * sizeof(float) * double(n * count);
  const int ni = int(n), ci = int(count);
  int host_info = 0;

  auto add_row = [&](const char* op, const char* vendor, double t, double tv, double bytes,
                     double err, int failed, int vfailed) {
    Row r;
    r.suite = "batched";
    r.variant = "dla";
    r.op = op;
    r.shape = shape;
    r.unit = "GB/s";
    r.ms = t;
    r.rate = bytes / (t * 1e-3) / 1e9;
    r.vendor = vendor;
    r.vendor_ms = tv;
    r.vendor_rate = bytes / (tv * 1e-3) / 1e9;
    r.error = failed ? std::numeric_limits<double>::infinity() : err;
    r.error_limit = 50;
    char note[256];
    std::snprintf(note, sizeof note,
                  "%.0f%% of copy roofline (%.1f MB moved, %.3f ms at 4.2 TB/s); vendor %.0f%%; "
                  "failed members dla %d vendor %d",
                  100.0 * bytes / (t * 1e-3) / kCopyRoofline, bytes / 1e6,
                  bytes / kCopyRoofline * 1e3, 100.0 * bytes / (tv * 1e-3) / kCopyRoofline, failed,
                  vfailed);
    r.note = note;
    rep.add(r);
  };

  // ---- getrf
  progress("batched getrf " + shape);
  {
    const double t = time_ms(s, o.repeat, [&] {
      restore(A0, false);
      cuda::sgetrf_batched(s, n, A.data(), n, n * n, piv.data(), info.data(), count);
    }) - t_copy_a;
    const double err = lu_error(hA0, fetch(A), fetch(piv), n, count);
    const int failed = count_failed(fetch(info));
    const double tv = time_ms(s, o.repeat, [&] {
      restore(A0, false);
      cublasSgetrfBatched(blas, ni, pa.data(), ni, vpiv.data(), vinfo.data(), ci);
    }) - t_copy_a;
    add_row("getrf", "cublas", t, tv, mat_bytes, err, failed, count_failed(fetch(vinfo)));
  }
  // ---- gesv, nrhs = 1
  progress("batched gesv " + shape);
  {
    const double t = time_ms(s, o.repeat, [&] {
      restore(A0, true);
      cuda::sgesv_batched(s, n, 1, A.data(), n, n * n, piv.data(), B.data(), n, n, info.data(),
                          count);
    }) - t_copy_ab;
    const double err = solve_error(hA0, fetch(B), hB0, n, count, false);
    const int failed = count_failed(fetch(info));
    const double tv = time_ms(s, o.repeat, [&] {
      restore(A0, true);
      cublasSgetrfBatched(blas, ni, pa.data(), ni, vpiv.data(), vinfo.data(), ci);
      cublasSgetrsBatched(blas, CUBLAS_OP_N, ni, 1, pa.data(), ni, vpiv.data(), pb.data(), ni,
                          &host_info, ci);
    }) - t_copy_ab;
    add_row("gesv", "cublas", t, tv, mat_bytes + rhs_bytes, err, failed,
            count_failed(fetch(vinfo)));
  }
  // ---- potrf
  progress("batched potrf " + shape);
  {
    const double t = time_ms(s, o.repeat, [&] {
      restore(S0, false);
      cuda::spotrf_batched(s, Uplo::Lower, n, A.data(), n, n * n, info.data(), count);
    }) - t_copy_a;
    const double err = chol_error(hS0, fetch(A), n, count);
    const int failed = count_failed(fetch(info));
    const double tv = time_ms(s, o.repeat, [&] {
      restore(S0, false);
      cusolverDnSpotrfBatched(sol, CUBLAS_FILL_MODE_LOWER, ni, pa.data(), ni, vinfo.data(), ci);
    }) - t_copy_a;
    add_row("potrf", "cusolver", t, tv, mat_bytes, err, failed, count_failed(fetch(vinfo)));
  }
  // ---- posv, nrhs = 1
  progress("batched posv " + shape);
  {
    const double t = time_ms(s, o.repeat, [&] {
      restore(S0, true);
      cuda::sposv_batched(s, Uplo::Lower, n, 1, A.data(), n, n * n, B.data(), n, n, info.data(),
                          count);
    }) - t_copy_ab;
    const double err = solve_error(hS0, fetch(B), hB0, n, count, true);
    const int failed = count_failed(fetch(info));
    const double tv = time_ms(s, o.repeat, [&] {
      restore(S0, true);
      cusolverDnSpotrfBatched(sol, CUBLAS_FILL_MODE_LOWER, ni, pa.data(), ni, vinfo.data(), ci);
      cusolverDnSpotrsBatched(sol, CUBLAS_FILL_MODE_LOWER, ni, 1, pa.data(), ni, pb.data(), ni,
                              vinfo.data(), ci);
    }) - t_copy_ab;
    add_row("posv", "cusolver", t, tv, mat_bytes + rhs_bytes, err, failed,
            count_failed(fetch(vinfo)));
  }
}

index_t default_count(index_t n) {
  if (n <= 32) return 100000;
  if (n <= 64) return 10000;
  if (n <= 128) return 2000;
  return 500;
}

void suite_batched(const Options& o, Report& rep) {
  std::vector<std::pair<index_t, index_t>> cases;
  if (!o.sizes.empty()) {
    for (index_t n : o.sizes) cases.push_back({n, default_count(n)});
  } else if (o.quick) {
    cases = {{8, 10000}, {32, 10000}, {64, 1000}, {128, 200}};
  } else {
    cases = {{8, 100000}, {16, 100000}, {32, 100000}, {64, 10000}, {128, 2000}, {256, 500}};
  }
  cudaStream_t cs;
  DLA_CUDA_CHECK(cudaStreamCreate(&cs));
  const stream_t s = reinterpret_cast<stream_t>(cs);
  cublasHandle_t blas = nullptr;
  cusolverDnHandle_t sol = nullptr;
  cublasCreate(&blas);
  cublasSetStream(blas, cs);
  cusolverDnCreate(&sol);
  cusolverDnSetStream(sol, cs);
  for (auto [n, count] : cases) run_case(o, rep, blas, sol, s, n, count);
  DLA_CUDA_CHECK(cudaStreamSynchronize(cs));
  cusolverDnDestroy(sol);
  cublasDestroy(blas);
  DLA_CUDA_CHECK(cudaStreamDestroy(cs));
}

}  // namespace

DLA_BENCH_SUITE("batched", "many small systems: getrf/gesv/potrf/posv batched vs cuBLAS/cuSOLVER",
                suite_batched);

}  // namespace dla::bench
