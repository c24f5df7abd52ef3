// Entry points: argument checks, the trivial cases (alpha == 0, k == 0),
// the variant registry and the "auto" dispatch rule.
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "dla/core/error.hpp"
#include "dla/gemm/gemm_cuda.hpp"
#include "gemm_kernels.cuh"

namespace dla::cuda {
namespace detail {
namespace {

template <class T>
__global__ void scale_kernel(index_t m, index_t n, T beta, T* C, index_t ldc, int tri) {
  const index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x;
  if (i >= m) return;
  for (index_t j = blockIdx.y; j < n; j += gridDim.y) {
    if (!in_tri(tri, i, j)) continue;
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

const Tf32x3Config& tf32x3_by_name(const char* name) {
  for (const auto& c : tf32x3_configs())
    if (std::string(c.name) == name) return c;
  throw InvalidArgument(std::string("sgemm: no tf32x3 config ") + name);
}

}  // namespace

template <class T>
void scale_c(stream_t s, index_t m, index_t n, T beta, T* C, index_t ldc, int tri) {
  if (m == 0 || n == 0 || beta == T(1)) return;
  const dim3 grid(unsigned((m + 255) / 256), unsigned(std::min<index_t>(n, 65535)));
  scale_kernel<T><<<grid, 256, 0, s>>>(m, n, beta, C, ldc, tri);
  DLA_CUDA_CHECK_LAUNCH();
}
template void scale_c<float>(stream_t, index_t, index_t, float, float*, index_t, int);
template void scale_c<double>(stream_t, index_t, index_t, double, double*, index_t, int);

const DeviceLimits& device_limits() {
  static std::mutex mu;
  static std::vector<DeviceLimits> cache;
  int dev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() <= size_t(dev)) cache.resize(size_t(dev) + 1, DeviceLimits{0, 0, 0});
  if (cache[size_t(dev)].sm_count == 0) {
    cudaDeviceProp p{};
    DLA_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    cache[size_t(dev)] = {p.multiProcessorCount, int(p.sharedMemPerBlockOptin),
                          10 * p.major + p.minor};
  }
  return cache[size_t(dev)];
}

// What "auto" runs for one shape: THE dispatch rule (retune here from
// `dla bench gemm --variants all`).
struct AutoPlan {
  const TunedConfig* config = nullptr;  // a Native kernel, or
  const Tf32x3Config* tc = nullptr;     // a tensor-core one (Fp32Gemm::Tf32x3)
  KSplit split;
  bool pack_a = false, pack_b = false;  // copy the operand first (gemm_pack.cu)
};

static int env_int(const char* name, int fallback) {
  const char* e = std::getenv(name);
  return e != nullptr && *e != '\0' ? std::atoi(e) : fallback;
}

namespace {

// Whether to pack an operand that runs O long (m for A, n for B) against the
// other output dimension `other`, i.e. copy it m/n-contiguous with an aligned
// leading dimension so the tuned kernel copies it 16 bytes at a time.
// Packing reads and writes the operand once: about 2*O*K*4 bytes against
// 2*O*other*K flops, ~60/other of the GEMM's time (3 TB/s against 45 TFLOP/s).
// H200, same run (docs/gemm.md, session 5): 3001^3 NN 0.82x -> 0.89x (both
// operands unaligned), TN 4096^3 0.86x -> 0.91x, TT 0.92x -> 0.94x, NN
// 16384^3 0.90x -> 0.92x; NN 2048^3 0.91x -> 0.88x (the copy's share is
// larger there). DLA_GEMM_PACK=0 never packs, 1 packs only unaligned operands,
// 3 also k-contiguous ones from other >= 512 (tuning experiments).
bool worth_packing(bool kcontig, bool aligned, index_t O, index_t other) {
  static const int mode = env_int("DLA_GEMM_PACK", 2);
  if (mode == 0 || O < 128) return false;
  if (!aligned) return other >= 512;
  return kcontig && ((mode == 2 && other >= 4096) || (mode == 3 && other >= 512));
}

}  // namespace

AutoPlan plan_native(const GemmArgs<float>& g) {
  AutoPlan plan;
  plan.pack_a = worth_packing(g.ta, g.lda % 4 == 0 && aligned16(g.A), g.m, g.n);
  plan.pack_b = worth_packing(!g.tb, g.ldb % 4 == 0 && aligned16(g.B), g.n, g.m);
  const index_t m = g.m, n = g.n, k = g.k;
  const index_t sms = device_limits().sm_count;
  auto tiles = [&](index_t bm, index_t bn) { return ((m + bm - 1) / bm) * ((n + bn - 1) / bn); };
  if (g.tri != kTriAll) {
    // Triangular launches (sgemmt): square tiles, no split; 128x128 while the
    // tiles that meet the triangle fill the device, else 64x64.
    const index_t tri_tiles = tri_tile_count((m + 127) / 128, (n + 127) / 128, g.tri);
    plan.config = &tuned_by_name(tri_tiles >= sms ? "tuned_128x128x16_s3" : "tuned_64x64x16_s4");
    return plan;
  }
  const TunedConfig& big = tuned_by_name("tuned_128x128x16_s3");
  const index_t wave = index_t(big.blocks_per_sm) * sms;  // 128x128 blocks resident at once
  const index_t t128 = tiles(128, 128);
  // Large C (squares, LU trailing updates m, n >> k, tall-skinny with n >= 256):
  // 128x128 tiles fill the device. When the last wave is less than half full
  // and k is deep, its tiles are split along k so that it fills the device too
  // (3001^3: 576 tiles = 2 waves + 48 tiles, which run as 5 slices each).
  // (Tried and dropped: the tile rows beyond the last full wave in a second
  // launch with 64x64 tiles; H200: 3001^3 1.682 -> 1.656 ms, 4097^3 3.756 ->
  // 3.911 ms. docs/gemm.md.)
  if (t128 >= sms) {
    plan.config = &big;
    const index_t tail = t128 % wave;
    static const bool tail_split = env_int("DLA_GEMM_TAIL", 1) != 0;
    if (tail_split && tail > 0 && 2 * tail <= wave && k >= 1024) {
      const index_t s = std::min<index_t>({wave / tail, k / 512, 16});
      if (s > 1) plan.split = KSplit{int(s), t128 - tail};
    }
    return plan;
  }
  // Small C, deep K (e.g. 256x256x65536): split K over 128x128 tiles.
  if (k >= 2048) {
    plan.config = &big;
    const int s = default_split_k(big, m, n, k);
    if (s > 1 || tiles(64, 64) < sms) {
      plan.split = KSplit{s, 0};
      return plan;
    }
  }
  // Medium C, k deep enough (e.g. 1000^3: 64 tiles of 128^2): split K over
  // 128x128 tiles so that a wave is full (blocks = wave / tiles slices each;
  // a part-filled second round of blocks would cost a whole block time).
  // H200: 1000^3 0.102 ms (64x64 tiles, 256 blocks) -> 0.080-0.082 ms (4 slices).
  if (k >= 768) {
    static const int mid = env_int("DLA_GEMM_MID_SPLIT", 0);
    const index_t s = mid > 0 ? mid : std::min<index_t>(wave / t128, k / 192);
    if (s > 1) {
      plan.config = &big;
      plan.split = KSplit{int(s), 0};
      return plan;
    }
  }
  // Medium C (e.g. 1000^2): smaller tiles for more blocks.
  plan.config = &tuned_by_name(tiles(128, 64) >= sms ? "tuned_128x64x16_s4" : "tuned_64x64x16_s4");
  return plan;
}

// Fp32Gemm::Tf32x3: the tensor-core kernels where they win, Native elsewhere.
// Compute capability 9.0 (session 19, docs/gemm.md): the warpgroup-MMA kernel
// for k >= 256 wherever its 128 x 128 tiles fill the device (sgemmt: from
// kTriWgmmaTiles of them, session 35), aligned or not (1.5-1.8x cuBLAS on
// aligned shapes; with 4-byte copies 3001^3 1.18x and 4097^3 1.33x, where the
// Native plan with packing gets 0.99x / 0.97x).
// Elsewhere (and below that size) the mma.sync kernels (session 18), TFLOP/s
// tf32x3 / native: 4096^3 50.9 / 45.9, 16384^3 52.5 / 48.2 (128x256 tiles),
// 16384^2 x 256 47.0 / 44.9 (128x128); but 1000^3 16.6 / 24.0 (64 tiles),
// 3001^3 33.6 / 41.0 (unaligned: 4-byte copies), and the LU shapes with k = 64
// / 128 were slower too (pipeline fill and the epilogue weigh more); 64x64
// tiles won at 1000^3 (29.5). So: both operands 16-byte copyable, k >= 256
// and a device's worth of tiles: 128x256 for k >= 1024 when they fill the
// device, else 128x128, else 64x64 (not for sgemmt: its small launches sit on
// the factorizations' critical paths, measured there with Native). Otherwise
// the Native plan.
constexpr int kTriWgmmaTiles = 32;  // see plan_tf32x3

AutoPlan plan_tf32x3(const GemmArgs<float>& g) {
  const index_t sms = device_limits().sm_count;
  auto tiles = [&](index_t bm, index_t bn) {
    const index_t tm = (g.m + bm - 1) / bm, tn = (g.n + bn - 1) / bn;
    return g.tri != kTriAll ? tri_tile_count(tm, tn, g.tri) : tm * tn;
  };
  const bool aligned =
      g.lda % 4 == 0 && aligned16(g.A) && g.ldb % 4 == 0 && aligned16(g.B);
  const bool tri = g.tri != kTriAll;
  if (g.k < 256) return plan_native(g);
  AutoPlan plan;
  // DLA_GEMM_WGMMA=0 turns the warpgroup-MMA rule off (comparison runs).
  static const bool wgmma_on = env_int("DLA_GEMM_WGMMA", 1) != 0;
  // Triangular launches (sgemmt: the Cholesky's updates) take the wgmma
  // kernel from kTriWgmmaTiles of its 128 x 128 tiles, not only from a
  // device's worth: at 16384 the look-ahead's in-group updates (16256 x 128,
  // k = 256 .. 640: 127 tiles) ran on 507 CUDA-core 64 x 64 tiles for 44-136
  // us each, and took the SMs from the bulk update beside them. Session 35
  // (H200, spotrf tf32x3 ms, threshold a device's worth / 64 / 32 / 16, two
  // runs): 6144 3.10-3.12 / 2.97 / 2.95-2.96 / 2.94-2.96; 8192 5.30-5.31 /
  // 5.17-5.18 / 5.07-5.18 / 5.15-5.16; 12288 13.43-13.46 / 13.04-13.10 /
  // 12.94-13.03 / 13.00-13.07; 16384 27.11-27.15 / 25.70-25.73 / 25.50-25.57
  // / 25.61-25.74; 3000 and 4096 unchanged (their critical updates run on
  // potrf_update_kernel). DLA_GEMMT_WGMMA_TILES=t overrides it (0: a
  // device's worth, the rule before session 35).
  static const int tri_wgmma_env = env_int("DLA_GEMMT_WGMMA_TILES", kTriWgmmaTiles);
  const index_t wgmma_tiles = tri && tri_wgmma_env > 0 ? index_t(tri_wgmma_env) : sms;
  if (wgmma_on && tiles(128, 128) >= wgmma_tiles && tf32x3_wgmma_supported()) {
    plan.tc = &tf32x3_by_name("tf32x3_wgmma_128x128x32");
    return plan;
  }
  if (!aligned) return plan_native(g);
  if (!tri && g.k >= 1024 && tiles(128, 256) >= sms)
    plan.tc = &tf32x3_by_name("tf32x3_128x256x32_s3");
  else if (tiles(128, 128) >= sms)
    plan.tc = &tf32x3_by_name("tf32x3_128x128x32_s3");
  else if (!tri && tiles(64, 64) >= sms)
    plan.tc = &tf32x3_by_name("tf32x3_64x64x32_s4");
  else
    return plan_native(g);
  return plan;
}

AutoPlan plan_auto(const GemmArgs<float>& g, Fp32Gemm math) {
  return math == Fp32Gemm::Tf32x3 ? plan_tf32x3(g) : plan_native(g);
}

// Runs the plan: packs what it says into scratch memory, then the kernel.
void run_auto(stream_t s, GemmArgs<float> g, Fp32Gemm math) {
  const AutoPlan plan = plan_auto(g, math);
  auto ld32 = [](index_t rows) { return (rows + 31) / 32 * 32; };
  const index_t lda_p = ld32(g.m), ldb_p = ld32(g.n);
  Scratch pa(s, plan.pack_a ? std::size_t(lda_p) * std::size_t(g.k) * sizeof(float) : 0);
  Scratch pb(s, plan.pack_b ? std::size_t(ldb_p) * std::size_t(g.k) * sizeof(float) : 0);
  if (pa.get() != nullptr) {  // op(A) as m x k, m contiguous: op N
    float* a = static_cast<float*>(pa.get());
    pack_operand(s, g.ta, g.m, g.k, g.A, g.lda, a, lda_p);
    g.A = a; g.lda = lda_p; g.ta = false;
  }
  if (pb.get() != nullptr) {  // op(B)^T as n x k, n contiguous: op T
    float* b = static_cast<float*>(pb.get());
    pack_operand(s, !g.tb, g.n, g.k, g.B, g.ldb, b, ldb_p);
    g.B = b; g.ldb = ldb_p; g.tb = true;
  }
  if (plan.tc != nullptr) plan.tc->launch(s, g);
  else plan.config->launch(s, g, plan.split);
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
          index_t lda, const float* B, index_t ldb, float beta, float* C, index_t ldc,
          Fp32Gemm math) {
  return sgemm_variant(math == Fp32Gemm::Tf32x3 ? "auto_tf32x3" : "auto", s, opA, opB, m, n, k,
                       alpha, A, lda, B, ldb, beta, C, ldc);
}

int dgemm(stream_t s, Op opA, Op opB, index_t m, index_t n, index_t k, double alpha,
          const double* A, index_t lda, const double* B, index_t ldb, double beta, double* C,
          index_t ldc) {
  int info = 0;
  if (trivial<double>(s, opA, opB, m, n, k, alpha, lda, ldb, beta, C, ldc, info)) return info;
  detail::launch_dgemm(s, make_args<double>(opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
  return 0;
}

namespace {

template <class T>
int gemmt_impl(stream_t s, Uplo uplo, Op opA, Op opB, index_t m, index_t n, index_t k, T alpha,
               const T* A, index_t lda, const T* B, index_t ldb, T beta, T* C, index_t ldc,
               Fp32Gemm math = Fp32Gemm::Native) {
  if (uplo != Uplo::Lower && uplo != Uplo::Upper) return -1;
  // gemm's argument numbers, shifted by the leading uplo.
  if (const int info = detail::check_gemm_args(opA, opB, m, n, k, lda, ldb, ldc)) return info - 1;
  if (m == 0 || n == 0) return 0;
  const int tri = uplo == Uplo::Lower ? detail::kTriLower : detail::kTriUpper;
  if (alpha == T(0) || k == 0) {
    detail::scale_c<T>(s, m, n, beta, C, ldc, tri);
    return 0;
  }
  auto g = make_args<T>(opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  g.tri = tri;
  if constexpr (std::is_same_v<T, float>) detail::run_auto(s, g, math);
  else detail::launch_dgemm(s, g);
  return 0;
}

template <class T>
int syrk_impl(stream_t s, Uplo uplo, Op trans, index_t n, index_t k, T alpha, const T* A,
              index_t lda, T beta, T* C, index_t ldc, Fp32Gemm math = Fp32Gemm::Native) {
  if (uplo != Uplo::Lower && uplo != Uplo::Upper) return -1;
  if (trans != Op::N && trans != Op::T) return -2;
  if (n < 0) return -3;
  if (k < 0) return -4;
  if (lda < std::max<index_t>(1, trans == Op::N ? n : k)) return -7;
  if (ldc < std::max<index_t>(1, n)) return -10;
  // op(A) op(A)^T: A as both operands, the second with the other op.
  return gemmt_impl<T>(s, uplo, trans, trans == Op::N ? Op::T : Op::N, n, n, k, alpha, A, lda, A,
                       lda, beta, C, ldc, math);
}

}  // namespace

int sgemmt(stream_t s, Uplo uplo, Op opA, Op opB, index_t m, index_t n, index_t k, float alpha,
           const float* A, index_t lda, const float* B, index_t ldb, float beta, float* C,
           index_t ldc, Fp32Gemm math) {
  return gemmt_impl<float>(s, uplo, opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, math);
}
int dgemmt(stream_t s, Uplo uplo, Op opA, Op opB, index_t m, index_t n, index_t k, double alpha,
           const double* A, index_t lda, const double* B, index_t ldb, double beta, double* C,
           index_t ldc) {
  return gemmt_impl<double>(s, uplo, opA, opB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
int ssyrk(stream_t s, Uplo uplo, Op trans, index_t n, index_t k, float alpha, const float* A,
          index_t lda, float beta, float* C, index_t ldc, Fp32Gemm math) {
  return syrk_impl<float>(s, uplo, trans, n, k, alpha, A, lda, beta, C, ldc, math);
}
int dsyrk(stream_t s, Uplo uplo, Op trans, index_t n, index_t k, double alpha, const double* A,
          index_t lda, double beta, double* C, index_t ldc) {
  return syrk_impl<double>(s, uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
}

std::vector<std::string> sgemm_variants() {
  std::vector<std::string> v;
  for (const auto& sd : detail::kSeeds) v.push_back(sd.name);
  for (const auto& c : detail::tuned_configs()) v.push_back(c.name);
  for (const auto& c : detail::tf32x3_configs()) v.push_back(c.name);
  v.push_back("auto");
  v.push_back("auto_tf32x3");
  return v;
}

bool sgemm_variant_available(const std::string& variant) {
  const std::vector<std::string> all = sgemm_variants();
  if (std::find(all.begin(), all.end(), variant) == all.end()) return false;
  for (const auto& c : detail::tf32x3_wgmma_configs())
    if (variant == c.name) return detail::tf32x3_wgmma_supported();
  return true;
}

std::string sgemm_auto_choice(index_t m, index_t n, index_t k) {
  return sgemm_auto_choice(Op::N, Op::N, m, n, k, m, k);
}

namespace {

// The name of the plan for g (sgemm_auto_choice, sgemmt_auto_choice).
std::string plan_name(const detail::GemmArgs<float>& g, Fp32Gemm math) {
  const detail::AutoPlan p = detail::plan_auto(g, math);
  std::string r = p.tc != nullptr ? p.tc->name : p.config->name;
  if (p.split.slices > 1)
    r += p.split.whole > 0 ? " tail_split_k=" + std::to_string(p.split.slices)
                           : " split_k=" + std::to_string(p.split.slices);
  if (p.pack_a) r += " pack_a";
  if (p.pack_b) r += " pack_b";
  return r;
}

// Pointers as cudaMalloc returns them (aligned); only the leading dimensions matter.
alignas(16) float dummy_operand[4];

}  // namespace

std::string sgemm_auto_choice(Op opA, Op opB, index_t m, index_t n, index_t k, index_t lda,
                              index_t ldb, Fp32Gemm math) {
  float* d = dummy_operand;
  return plan_name(make_args<float>(opA, opB, m, n, k, 1.f, d, lda, d, ldb, 0.f, d, m), math);
}

std::string sgemmt_auto_choice(Uplo uplo, Op opA, Op opB, index_t m, index_t n, index_t k,
                               index_t lda, index_t ldb, Fp32Gemm math) {
  float* d = dummy_operand;
  auto g = make_args<float>(opA, opB, m, n, k, 1.f, d, lda, d, ldb, 0.f, d, m);
  g.tri = uplo == Uplo::Upper ? detail::kTriUpper : detail::kTriLower;
  return plan_name(g, math);
}

std::string dgemm_auto_choice(index_t m, index_t n) {
  return detail::dgemm_choice(m, n, detail::kTriAll);
}
std::string dgemmt_auto_choice(Uplo uplo, index_t m, index_t n) {
  return detail::dgemm_choice(m, n, uplo == Uplo::Upper ? detail::kTriUpper : detail::kTriLower);
}

int sgemm_variant(const std::string& variant, stream_t s, Op opA, Op opB, index_t m, index_t n,
                  index_t k, float alpha, const float* A, index_t lda, const float* B,
                  index_t ldb, float beta, float* C, index_t ldc) {
  detail::SgemmLauncher seed = nullptr;
  const detail::TunedConfig* tuned = nullptr;
  const detail::Tf32x3Config* tc = nullptr;
  for (const auto& sd : detail::kSeeds)
    if (variant == sd.name) seed = sd.launch;
  for (const auto& c : detail::tuned_configs())
    if (variant == c.name) tuned = &c;
  for (const auto& c : detail::tf32x3_configs())
    if (variant == c.name) tc = &c;
  if (!seed && !tuned && !tc && variant != "auto" && variant != "auto_tf32x3") {
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
    // DLA_GEMM_SPLIT=<n> forces the slices of a named config (tuning experiments).
    static const int forced = detail::env_int("DLA_GEMM_SPLIT", 0);
    const int slices = forced > 0 ? forced : detail::default_split_k(*tuned, m, n, k);
    tuned->launch(s, g, detail::KSplit{slices, 0});
  } else if (tc) {
    tc->launch(s, g);
  } else {
    detail::run_auto(s, g, variant == "auto" ? Fp32Gemm::Native : Fp32Gemm::Tf32x3);
  }
  return 0;
}

}  // namespace dla::cuda
