// Entry points: argument checks, the trivial cases (alpha == 0, k == 0),
// the variant registry and the "auto" dispatch rule.
#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "dla/core/error.hpp"
#include "dla/gemm/gemm_cuda.hpp"
#include "gemm_kernels.cuh"

namespace dla::cuda {
namespace detail {
namespace {

template <class T>
__global__ void scale_kernel(index_t m, index_t n, T beta, T* C, index_t ldc) {
  const index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x;
  if (i >= m) return;
  for (index_t j = blockIdx.y; j < n; j += gridDim.y) {
    T* c = C + i + j * ldc;
    *c = beta == T(0) ? T(0) : beta * *c;
  }
}

struct Seed {
  const char* name;
  SgemmLauncher launch;
};
const Seed kSeeds[] = {{"naive", launch_naive},
                       {"smem32", launch_smem32},
                       {"smem32_vec4", launch_smem32_vec4},
                       {"volkov_nn", launch_volkov_nn},
                       {"reg128", launch_reg128},
                       {"reg128_vec4_db", launch_reg128_vec4_db}};

const TunedConfig& tuned_by_name(const char* name) {
  for (const auto& c : tuned_configs())
    if (std::string(c.name) == name) return c;
  throw InvalidArgument(std::string("sgemm: no tuned config ") + name);
}

}  // namespace

template <class T>
void scale_c(stream_t s, index_t m, index_t n, T beta, T* C, index_t ldc) {
  if (m == 0 || n == 0 || beta == T(1)) return;
  const dim3 grid(unsigned((m + 255) / 256), unsigned(std::min<index_t>(n, 65535)));
  scale_kernel<T><<<grid, 256, 0, s>>>(m, n, beta, C, ldc);
  DLA_CUDA_CHECK_LAUNCH();
}
template void scale_c<float>(stream_t, index_t, index_t, float, float*, index_t);
template void scale_c<double>(stream_t, index_t, index_t, double, double*, index_t);

const DeviceLimits& device_limits() {
  static std::mutex mu;
  static std::vector<DeviceLimits> cache;
  int dev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() <= size_t(dev)) cache.resize(size_t(dev) + 1, DeviceLimits{0, 0});
  if (cache[size_t(dev)].sm_count == 0) {
    cudaDeviceProp p{};
    DLA_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    cache[size_t(dev)] = {p.multiProcessorCount, int(p.sharedMemPerBlockOptin)};
  }
  return cache[size_t(dev)];
}

// THE dispatch rule of "auto" (retune here from `dla bench gemm --variants all`).
// Returns the tuned config and the split-K factor for this shape.
const TunedConfig& choose_tuned(index_t m, index_t n, index_t k, int& split_k) {
  const index_t sms = device_limits().sm_count;
  auto tiles = [&](index_t bm, index_t bn) { return ((m + bm - 1) / bm) * ((n + bn - 1) / bn); };
  split_k = 1;
  // Large C (squares, LU trailing updates m, n >> k, tall-skinny with n >= 256):
  // 128x128 tiles fill the device. (Tried and dropped: the tile rows beyond the
  // last full wave in a second launch with 64x64 tiles; H200: 3001^3 1.682 ->
  // 1.656 ms, 4097^3 3.756 -> 3.911 ms. docs/gemm.md.)
  if (tiles(128, 128) >= sms) return tuned_by_name("tuned_128x128x16_s3");
  // Small C, deep K (e.g. 256x256x65536): split K over 128x128 tiles.
  if (k >= 2048) {
    const TunedConfig& c = tuned_by_name("tuned_128x128x16_s3");
    split_k = default_split_k(c, m, n, k);
    if (split_k > 1 || tiles(64, 64) < sms) return c;
  }
  // Medium C (e.g. 1000^2): smaller tiles for more blocks.
  if (tiles(128, 64) >= sms) return tuned_by_name("tuned_128x64x16_s4");
  return tuned_by_name("tuned_64x64x16_s4");
}

}  // namespace detail

namespace {

template <class T>
detail::GemmArgs<T> make_args(Op opA, Op opB, index_t m, index_t n, index_t k, T alpha,
                              const T* A, index_t lda, const T* B, index_t ldb, T beta, T* C,
                              index_t ldc) {
  return {opA == Op::T, opB == Op::T, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
}

// Checks arguments and handles the cases that need no product. Returns true
// when the call is complete (info set), false when a kernel must run.
template <class T>
bool trivial(stream_t s, Op opA, Op opB, index_t m, index_t n, index_t k, T alpha, index_t lda,
             index_t ldb, T beta, T* C, index_t ldc, int& info) {
  info = detail::check_gemm_args(opA, opB, m, n, k, lda, ldb, ldc);
  if (info != 0) return true;
  if (m == 0 || n == 0) return true;
  if (alpha == T(0) || k == 0) {
    detail::scale_c<T>(s, m, n, beta, C, ldc);
    return true;
  }
  return false;
}

}  // namespace

int sgemm(stream_t s, Op opA, Op opB, index_t m, index_t n, index_t k, float alpha, const float* A,
          index_t lda, const float* B, index_t ldb, float beta, float* C, index_t ldc) {
  return sgemm_variant("auto", s, opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

int dgemm(stream_t s, Op opA, Op opB, index_t m, index_t n, index_t k, double alpha,
          const double* A, index_t lda, const double* B, index_t ldb, double beta, double* C,
          index_t ldc) {
  int info = 0;
  if (trivial<double>(s, opA, opB, m, n, k, alpha, lda, ldb, beta, C, ldc, info)) return info;
  detail::launch_dgemm(s, make_args<double>(opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
  return 0;
}

std::vector<std::string> sgemm_variants() {
  std::vector<std::string> v;
  for (const auto& sd : detail::kSeeds) v.push_back(sd.name);
  for (const auto& c : detail::tuned_configs()) v.push_back(c.name);
  v.push_back("auto");
  return v;
}

std::string sgemm_auto_choice(index_t m, index_t n, index_t k) {
  int split = 1;
  const auto& c = detail::choose_tuned(m, n, k, split);
  return std::string(c.name) + (split > 1 ? " split_k=" + std::to_string(split) : "");
}

int sgemm_variant(const std::string& variant, stream_t s, Op opA, Op opB, index_t m, index_t n,
                  index_t k, float alpha, const float* A, index_t lda, const float* B,
                  index_t ldb, float beta, float* C, index_t ldc) {
  detail::SgemmLauncher seed = nullptr;
  const detail::TunedConfig* tuned = nullptr;
  for (const auto& sd : detail::kSeeds)
    if (variant == sd.name) seed = sd.launch;
  for (const auto& c : detail::tuned_configs())
    if (variant == c.name) tuned = &c;
  if (!seed && !tuned && variant != "auto") {
    std::string known;
    for (const auto& v : sgemm_variants()) known += (known.empty() ? "" : ", ") + v;
    throw InvalidArgument("sgemm_variant: unknown variant '" + variant + "' (known: " + known + ")");
  }
  int info = 0;
  if (trivial<float>(s, opA, opB, m, n, k, alpha, lda, ldb, beta, C, ldc, info)) return info;
  const auto g = make_args<float>(opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  if (seed) {
    seed(s, g);
  } else if (tuned) {
    tuned->launch(s, g, detail::default_split_k(*tuned, m, n, k));
  } else {
    int split = 1;
    const auto& c = detail::choose_tuned(m, n, k, split);
    c.launch(s, g, split);
  }
  return 0;
}

}  // namespace dla::cuda
