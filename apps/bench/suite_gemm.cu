// `dla bench gemm`: dla SGEMM (auto and auto_tf32x3, or every variant with
// --variants all) and DGEMM next to cuBLAS (CUBLAS_PEDANTIC_MATH: plain
// FP32/FP64, no TF32) on the same inputs in the same run. The tf32x3 rows are
// FP32 emulated on the tensor cores (gemm_cuda.hpp: Fp32Gemm::Tf32x3); their
// error column is measured against the same FP32 reference and limit.
//
// Accuracy per row: e = max_ij |C_dla - C_cublas| / max_ij (|A||B|)_ij with
// |A||B| computed by cuBLAS on the absolute values. Limit: 10 sqrt(k) eps
// (random-sign data: rounding errors of a length-k dot product grow like
// sqrt(k) eps relative to |A||B|; the worst case 2(k+2)eps is far looser).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <string>
#include <vector>

#include "bench.hpp"
#include "dla/core/cuda_check.hpp"
#include "dla/core/error.hpp"
#include "dla/gemm/gemm_cuda.hpp"

namespace dla::bench {
namespace {

#define GEMM_CUBLAS_CHECK(expr)                                                          \
  do {                                                                                   \
    cublasStatus_t st_ = (expr);                                                         \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                                    \
      throw DeviceError(std::string("cuBLAS failed (") + std::to_string(int(st_)) + "): " #expr); \
  } while (0)

template <class T>
__global__ void fill_kernel(T* p, index_t n, std::uint64_t seed, bool absval) {
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < n;
       i += index_t(gridDim.x) * blockDim.x) {
    std::uint64_t z = (std::uint64_t(i) + seed * 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 31)) * 0x94D049BB133111EBull;
    z ^= z >> 29;
    const double u = double(z >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;  // [-1, 1)
    p[i] = T(absval ? std::fabs(u) : u);
  }
}

// out[0] = max |X - Y| (as ordered bits of a non-negative float), out[1] = max M.
template <class T>
__global__ void maxdiff_kernel(const T* X, const T* Y, const T* M, index_t n, unsigned long long* out) {
  double d = 0, m = 0;
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < n;
       i += index_t(gridDim.x) * blockDim.x) {
    const double di = fabs(double(X[i]) - double(Y[i]));
    d = (di > d || di != di) ? di : d;  // NaN wins
    m = fmax(m, double(M[i]));
  }
  atomicMax(out, (unsigned long long)__double_as_longlong(d != d ? INFINITY : d));
  atomicMax(out + 1, (unsigned long long)__double_as_longlong(m));
}

template <class T>
struct Buf {
  T* p = nullptr;
  explicit Buf(index_t n) { DLA_CUDA_CHECK(cudaMalloc(&p, sizeof(T) * std::size_t(std::max<index_t>(n, 1)))); }
  ~Buf() { cudaFree(p); }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
};

template <class T>
void fill(T* p, index_t n, std::uint64_t seed, bool absval, cudaStream_t s) {
  fill_kernel<T><<<1024, 256, 0, s>>>(p, n, seed, absval);
  DLA_CUDA_CHECK_LAUNCH();
}

struct Shape {
  Op a, b;
  index_t m, n, k;
  bool seeds;  // seed variants run here (with --variants all)
};

std::string opname(Op a, Op b) { return std::string(to_string(a)) + to_string(b); }
std::string shapename(index_t m, index_t n, index_t k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

cublasOperation_t cop(Op o) { return o == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }

template <class T>
void cublas_gemm(cublasHandle_t h, Op a, Op b, index_t m, index_t n, index_t k, T alpha,
                 const T* A, index_t lda, const T* B, index_t ldb, T beta, T* C, index_t ldc) {
  if constexpr (std::is_same_v<T, float>)
    GEMM_CUBLAS_CHECK(cublasSgemm(h, cop(a), cop(b), int(m), int(n), int(k), &alpha, A, int(lda),
                                  B, int(ldb), &beta, C, int(ldc)));
  else
    GEMM_CUBLAS_CHECK(cublasDgemm(h, cop(a), cop(b), int(m), int(n), int(k), &alpha, A, int(lda),
                                  B, int(ldb), &beta, C, int(ldc)));
}

// Runs every (variant, fn) on one shape: rotated inputs, timing, accuracy.
template <class T>
void bench_shape(const Options& opt, Report& report, cublasHandle_t h, cudaStream_t s,
                 const Shape& sh, const std::vector<std::string>& variants) {
  const index_t m = sh.m, n = sh.n, k = sh.k;
  const index_t lda = sh.a == Op::N ? m : k, ldb = sh.b == Op::N ? k : n;
  const index_t na = lda * (sh.a == Op::N ? k : m), nb = ldb * (sh.b == Op::N ? n : k), nc = m * n;
  const double bytes = double(sizeof(T)) * double(na + nb + nc);
  // Rotate through copies when one set would sit in the 60 MB L2.
  const int sets = bytes < 120e6 ? int(std::min(8.0, std::ceil(240e6 / bytes))) : 1;
  std::vector<std::unique_ptr<Buf<T>>> A, B, C;
  for (int r = 0; r < sets; ++r) {
    A.push_back(std::make_unique<Buf<T>>(na));
    B.push_back(std::make_unique<Buf<T>>(nb));
    C.push_back(std::make_unique<Buf<T>>(nc));
    fill(A.back()->p, na, opt.seed + 10 * r, false, s);
    fill(B.back()->p, nb, opt.seed + 10 * r + 1, false, s);
    fill(C.back()->p, nc, opt.seed + 10 * r + 2, false, s);
  }
  const double flops = 2.0 * double(m) * double(n) * double(k);
  const int repeat = flops * double(variants.size() + 1) > 4e13 ? std::min(opt.repeat, 3) : opt.repeat;
  const T one = 1, zero = 0;
  int it = 0;
  const std::string shp = shapename(m, n, k);
  progress("gemm " + opname(sh.a, sh.b) + " " + shp + " (" + std::to_string(sets) + " input sets)");

  // cuBLAS: time, reference result, and |A||B| for the error scale.
  const double vendor_ms = time_ms(s, repeat, [&] {
    const int r = it++ % sets;
    cublas_gemm<T>(h, sh.a, sh.b, m, n, k, one, A[r]->p, lda, B[r]->p, ldb, zero, C[r]->p, m);
  });
  Buf<T> ref(nc), mag(nc), out(nc);
  {
    Buf<T> absA(na), absB(nb);
    fill(absA.p, na, opt.seed, true, s);
    fill(absB.p, nb, opt.seed + 1, true, s);
    cublas_gemm<T>(h, sh.a, sh.b, m, n, k, one, absA.p, lda, absB.p, ldb, zero, mag.p, m);
    cublas_gemm<T>(h, sh.a, sh.b, m, n, k, one, A[0]->p, lda, B[0]->p, ldb, zero, ref.p, m);
    DLA_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  unsigned long long* dmax = nullptr;
  DLA_CUDA_CHECK(cudaMalloc(&dmax, 2 * sizeof(unsigned long long)));
  const double eps = std::numeric_limits<T>::epsilon();

  for (const std::string& v : variants) {
    auto call = [&](int r, T* c) {
      int info;
      if constexpr (std::is_same_v<T, float>)
        info = cuda::sgemm_variant(v, s, sh.a, sh.b, m, n, k, one, A[r]->p, lda, B[r]->p, ldb,
                                   zero, c, m);
      else
        info = cuda::dgemm(s, sh.a, sh.b, m, n, k, one, A[r]->p, lda, B[r]->p, ldb, zero, c, m);
      if (info != 0) throw_bad_argument("gemm bench", info);
    };
    Row row;
    row.suite = "gemm";
    row.variant = std::is_same_v<T, float> ? v : "dgemm";
    row.op = opname(sh.a, sh.b);
    row.shape = shp;
    row.vendor = std::is_same_v<T, float> ? "cublas_sgemm" : "cublas_dgemm";
    row.ms = time_ms(s, repeat, [&] {
      const int r = it++ % sets;
      call(r, C[r]->p);
    });
    row.rate = tflops(flops, row.ms);
    row.vendor_ms = vendor_ms;
    row.vendor_rate = tflops(flops, vendor_ms);
    // Accuracy on set 0; C poisoned first (beta = 0 must not read it).
    DLA_CUDA_CHECK(cudaMemsetAsync(out.p, 0xFF, sizeof(T) * std::size_t(nc), s));
    call(0, out.p);
    DLA_CUDA_CHECK(cudaMemsetAsync(dmax, 0, 2 * sizeof(unsigned long long), s));
    maxdiff_kernel<T><<<1024, 256, 0, s>>>(out.p, ref.p, mag.p, nc, dmax);
    DLA_CUDA_CHECK_LAUNCH();
    unsigned long long hmax[2];
    DLA_CUDA_CHECK(cudaMemcpyAsync(hmax, dmax, sizeof hmax, cudaMemcpyDeviceToHost, s));
    DLA_CUDA_CHECK(cudaStreamSynchronize(s));
    double dmx, mmx;
    std::memcpy(&dmx, &hmax[0], sizeof dmx);
    std::memcpy(&mmx, &hmax[1], sizeof mmx);
    row.error = mmx > 0 ? dmx / mmx : dmx;
    row.error_limit = 10.0 * std::sqrt(double(k)) * eps;
    if constexpr (std::is_same_v<T, double>) row.note = "dgemm = " + cuda::dgemm_auto_choice(m, n);
    if constexpr (std::is_same_v<T, float>)
      if (v == "auto" || v == "auto_tf32x3")
        row.note = v + " = " + cuda::sgemm_auto_choice(sh.a, sh.b, m, n, k, lda, ldb,
                                                       v == "auto" ? cuda::Fp32Gemm::Native
                                                                   : cuda::Fp32Gemm::Tf32x3);
    report.add(row);
  }
  cudaFree(dmax);
}

bool is_seed(const std::string& v) {
  return v.rfind("tuned_", 0) != 0 && v.rfind("tf32x3", 0) != 0 && v.rfind("auto", 0) != 0;
}

void run_gemm(const Options& opt, Report& report) {
  cudaStream_t s;
  DLA_CUDA_CHECK(cudaStreamCreate(&s));
  cublasHandle_t h;
  GEMM_CUBLAS_CHECK(cublasCreate(&h));
  GEMM_CUBLAS_CHECK(cublasSetStream(h, s));
  GEMM_CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));

  std::vector<Shape> shapes;
  std::vector<index_t> squares = opt.sizes;
  const bool custom = !squares.empty();
  if (!custom) squares = opt.quick ? std::vector<index_t>{1024, 2048}
                                   : std::vector<index_t>{1024, 2048, 4096, 8192, 16384};
  for (index_t q : squares) shapes.push_back({Op::N, Op::N, q, q, q, custom ? q <= 4096 : (q == 4096 || opt.quick)});
  if (!custom && !opt.quick) {
    for (auto [a, b] : {std::pair{Op::N, Op::T}, std::pair{Op::T, Op::N}, std::pair{Op::T, Op::T}})
      shapes.push_back({a, b, 4096, 4096, 4096, false});
    for (index_t q : {1000, 3001, 4097}) shapes.push_back({Op::N, Op::N, q, q, q, q != 4097});
    shapes.push_back({Op::N, Op::N, 8192, 8192, 256, false});    // LU trailing update
    shapes.push_back({Op::N, Op::N, 16384, 16384, 256, false});
    shapes.push_back({Op::N, Op::N, 16384, 16384, 512, false});
    shapes.push_back({Op::N, Op::N, 16384, 256, 16384, false});  // tall-skinny
    shapes.push_back({Op::N, Op::N, 256, 256, 65536, false});    // deep K: split-K
  }

  const std::vector<std::string> all = cuda::sgemm_variants();
  for (const Shape& sh : shapes) {
    std::vector<std::string> vs;
    for (const std::string& v : all) {
      const bool picked = opt.all_variants()
                              ? (!is_seed(v) || sh.seeds)
                              : (opt.variants.empty() ? v == "auto" || v == "auto_tf32x3"
                                                      : opt.wants(v));
      const bool too_slow = v == "naive" && std::max({sh.m, sh.n, sh.k}) > 4096;
      if (picked && !too_slow && cuda::sgemm_variant_available(v)) vs.push_back(v);
    }
    if (!vs.empty()) bench_shape<float>(opt, report, h, s, sh, vs);
  }
  // DGEMM next to cublasDgemm: squares, the other op pairs, an odd size and
  // the factorizations' update shapes (k = 256 / 384). With --sizes, those
  // squares when --variants names dgemm.
  std::vector<Shape> dshapes;
  if (custom) {
    if (!opt.variants.empty() && opt.wants("dgemm"))
      for (index_t q : squares) dshapes.push_back({Op::N, Op::N, q, q, q, false});
  } else if (opt.quick) {
    dshapes.push_back({Op::N, Op::N, 1024, 1024, 1024, false});
  } else {
    for (index_t q : {1000, 4096, 8192}) dshapes.push_back({Op::N, Op::N, q, q, q, false});
    for (auto [a, b] : {std::pair{Op::N, Op::T}, std::pair{Op::T, Op::N}})
      dshapes.push_back({a, b, 4096, 4096, 4096, false});
    dshapes.push_back({Op::N, Op::N, 4097, 4097, 4097, false});
    dshapes.push_back({Op::N, Op::T, 8192, 8192, 256, false});
    dshapes.push_back({Op::N, Op::N, 8192, 8192, 384, false});
  }
  for (const Shape& sh : dshapes) bench_shape<double>(opt, report, h, s, sh, {"dgemm"});

  cublasDestroy(h);
  cudaStreamDestroy(s);
}

}  // namespace

DLA_BENCH_SUITE("gemm", "SGEMM variants and DGEMM vs cuBLAS (pedantic FP32/FP64)", run_gemm);

}  // namespace dla::bench
