// FP32 GEMM emulated on the tensor cores (3xTF32, Fp32Gemm::Tf32x3) with
// Hopper's warpgroup MMA (wgmma.mma_async, sm_90a only). The operand split
// is gemm_tf32x3.cu's (x = x_hi + x_lo, both TF32; each product is
// a_lo b_hi + a_hi b_lo + a_hi b_hi), issued as m64n128k8 warpgroup
// instructions instead of m16n8k8 warp instructions.
//
// Block: 256 threads = 2 warpgroups, a 128 x 128 tile of C, each warpgroup
// 64 rows x 128 columns; k tiles of 32 (4 steps of 8). Per k tile a
// warpgroup issues 12 wgmma (3 per step, small terms first) into a fresh
// FP32 fragment T (the first with scale-d 0), commits them, and while they
// run converts the next tile's B and issues the next copies; then it waits
// and adds T to the FP32 accumulator with one round-to-nearest FADD per
// element. Registers: acc 64 + T 64 per thread, one block per SM.
//
// Accuracy: the tensor cores truncate when they add into T, so T carries
// the error of at most 12 truncating additions over a 32-deep partial sum
// (relative to that partial sum), and acc gets k/32 rounded FP32 adds: both
// inside FP32 GEMM's worst-case bound 2 (k + 2) eps sum|a||b|. gemm_tf32x3.cu
// adds T every 8-deep step (3 truncating additions); here every 32 measured
// the same or lower errors on the H200 (tests/gemm_test_gpu.inc,
// GemmGpuTf32x3.AccuracyNextToNative: 2.4-3.7e-07 against Native's
// 2.6-4.3e-07 on random data) and runs 1.15-1.2x faster (docs/gemm.md,
// session 19: one add per step 66 TFLOP/s at 8192^3, per 2 steps 74, per
// tile 78, per tile with the conversion behind the wgmma 83). Adding the
// products straight into acc over all of k (no T) is what failed: 6-65x
// Native's error at k = 1000-8000 (session 18).
//
// Data path per k tile (one barrier per tile):
//  - both operands arrive raw (FP32) through a 4-stage cp.async pipeline
//    (TcOperand, gemm_tiling.cuh: 16-byte copies where the operand allows,
//    zero fill past the edges), so that three tiles are in flight while one
//    computes (a first version that loaded one tile ahead into registers:
//    62 against 66 TFLOP/s at 8192^3, one FP32 add per step in both).
//  - A from registers: wgmma's A fragment of warp q of a warpgroup is rows
//    16 q + g and 16 q + g + 8, k columns t and t + 4 of the step (lane =
//    4 g + t), like mma.m16n8k8's; each thread reads its 4 elements from the
//    raw tile (conflict-free, see TcOperand) and splits them.
//  - B goes to the tensor cores from shared memory as tf32 hi and lo halves,
//    each 128 rows (n) x 32 k of 128 bytes: wgmma's K-major layout with the
//    128-byte swizzle (16-byte chunk c of row n stored at chunk c ^ (n % 8)),
//    two buffers. During tile kt the block converts the raw B of tile kt + 1
//    into the other buffer: a thread takes 4 consecutive k of one n (one
//    16-byte store; its raw reads are one 16-byte load when B is
//    k-contiguous, else 4 loads along the raw tile's rows), conflict-free
//    both ways. tf32 wgmma reads shared operands K-major only; this copy is
//    where B op T (n contiguous) gets transposed.
//
// Edges and alignment are TcOperand's (any ld, any offset); the epilogue is
// the shared one (alpha, beta, the triangle of sgemmt).
#include <cstdint>
#include <mutex>

#include "dla/core/error.hpp"
#include "gemm_tiling.cuh"

// wgmma exists only in the sm_90a instruction set; this file is compiled for
// that target alone (gemm/CMakeLists.txt), and the host side refuses other
// devices before launching.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define DLA_HAVE_WGMMA 1
#endif

namespace dla::cuda::detail {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 32, kThreads = 256, kStages = 4;
constexpr int kBHalf = kBN * kBK * 4;  // bytes of one converted B half (hi or lo): 16 KB
constexpr int kGroup = 8;              // tile rows per rasterization group
template <bool K>
using RawTile = TcOperand<kBM, kBK, kThreads, K>;  // (kBM == kBN: one type for A and B)
// Shared memory: 2 buffers x {hi, lo} of converted B (1024-byte aligned
// swizzle atoms) first, then the raw stages of A and B; + 1024 for the alignment.
template <bool KA, bool KB>
constexpr int smem_bytes() {
  return 4 * kBHalf + kStages * (RawTile<KA>::kElems + RawTile<KB>::kElems) * 4 + 1024;
}

struct WgGrid {
  int tiles_m, tiles_n;
  bool vecA, vecB;  // 16-byte copies allowed (ld % 4 == 0, 16-byte aligned pointer)
};

#ifdef DLA_HAVE_WGMMA
// Shared-memory matrix descriptor of a K-major operand with the 128-byte
// swizzle: start address >> 4 (bits 0-13), leading byte offset (unused for
// swizzled K-major, 1), stride byte offset 1024 >> 4 (8 rows of 128 bytes,
// bits 32-45), swizzle mode 1 = 128 B (bits 62-63). The start must lie in a
// 1024-byte aligned atom; stepping k by 8 tf32 adds 32 bytes (2) to it.
__device__ __forceinline__ std::uint64_t sw128_desc(std::uint32_t saddr) {
  return std::uint64_t((saddr & 0x3FFFF) >> 4) | (std::uint64_t(1) << 16) |
         (std::uint64_t(1024 >> 4) << 32) | (std::uint64_t(1) << 62);
}

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wg_wait0() {
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}
// Keeps the compiler from moving accesses of r across the asynchronous MMA.
__device__ __forceinline__ void reg_fence(float& r) { asm volatile("" : "+f"(r)::"memory"); }

// d (64 x 128 per warpgroup, FP32) = a b (+ d when accumulate): a 64 x 8
// from registers (tf32), b 8 x 128 K-major in shared memory (descriptor).
__device__ __forceinline__ void wgmma_m64n128k8(float (&d)[64], const unsigned (&a)[4],
                                                std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %68, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "{%64, %65, %66, %67}, %69, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]),
        "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),
        "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]),
        "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(accumulate), "l"(db));
}
#endif  // DLA_HAVE_WGMMA

// Byte offset of the 16-byte chunk c (k = 4 c .. 4 c + 3) of row n in a
// 128-byte-swizzled B half.
__device__ __forceinline__ int b_chunk(int n, int c) { return n * 128 + ((c ^ (n & 7)) << 4); }

// KA: A is k-contiguous (op T); KB: B is k-contiguous (op N).
template <bool KA, bool KB>
__global__ void __launch_bounds__(kThreads, 1)
    tf32x3_wgmma_kernel(GemmArgs<float> g, WgGrid grid) {
#ifdef DLA_HAVE_WGMMA
  using OA = RawTile<KA>;
  using OB = RawTile<KB>;
  extern __shared__ unsigned char wg_smem_raw[];
  const std::uint32_t raw = static_cast<std::uint32_t>(__cvta_generic_to_shared(wg_smem_raw));
  const std::uint32_t sbase = (raw + 1023u) & ~1023u;  // swizzle atoms are 1024-byte aligned
  unsigned char* const sm = wg_smem_raw + (sbase - raw);
  // Converted B: half h (0 hi, 1 lo) of buffer b at sm + (2 b + h) kBHalf.
  float* const As = reinterpret_cast<float*>(sm + 4 * kBHalf);  // raw stages
  float* const Bs = As + kStages * OA::kElems;

  const int t = threadIdx.x, warp = t / 32, lane = t % 32, lg = lane / 4, lt = lane % 4;
  const int wg = warp / 4, wq = warp % 4;
  int tile_m, tile_n;
  if (g.tri != kTriAll) tri_coords(blockIdx.x, grid.tiles_m, grid.tiles_n, g.tri, tile_m, tile_n);
  else tile_coords(blockIdx.x, grid.tiles_m, grid.tiles_n, kGroup, tile_m, tile_n);
  const index_t i0 = index_t(tile_m) * kBM, j0 = index_t(tile_n) * kBN;
  const index_t ktiles = (g.k + kBK - 1) / kBK;
  const int arow = 64 * wg + 16 * wq + lg;  // the thread's A rows arow, arow + 8 in the tile

  TcOperands<OA, OB> ops(g, grid.vecA, grid.vecB, i0, j0, t);
  auto load_stage = [&](int stage, index_t p0) { ops.copy(As, Bs, stage, p0, g); };
  // Raw B of one stage -> converted buffer: piece q = t + 256 i is chunk c of
  // row n, (n, c) = (q / 8, q % 8) when B is k-contiguous (8 lanes read one
  // 128-byte raw row), else (q % 128, q / 128) (32 lanes, 32 rows).
  auto convert_b = [&](int stage, int buf) {
    const float* bs = Bs + stage * OB::kElems;
    unsigned char* hi = sm + (2 * buf) * kBHalf;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int q = t + kThreads * i;
      const int n = KB ? q / 8 : q % 128, c = KB ? q % 8 : q / 128;
      float v[4];
      if (KB) {
        const float4 x = *reinterpret_cast<const float4*>(&bs[n * OB::LD + 4 * c]);
        v[0] = x.x; v[1] = x.y; v[2] = x.z; v[3] = x.w;
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) v[e] = OB::at(bs, n, 4 * c + e);
      }
      uint4 h, l;
      split_tf32(v[0], h.x, l.x);
      split_tf32(v[1], h.y, l.y);
      split_tf32(v[2], h.z, l.z);
      split_tf32(v[3], h.w, l.w);
      const int off = b_chunk(n, c);
      *reinterpret_cast<uint4*>(hi + off) = h;
      *reinterpret_cast<uint4*>(hi + kBHalf + off) = l;
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // seen by wgmma (async proxy)
  };

  float acc[64], tmp[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) { acc[i] = 0.f; tmp[i] = 0.f; }

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < ktiles) load_stage(s, index_t(s) * kBK);
    cp_async_commit();
  }
  cp_async_wait<kStages - 2>();  // tile 0 landed
  __syncthreads();
  convert_b(0, 0);

  const std::uint64_t desc0 = sw128_desc(sbase);
#pragma unroll 1
  for (index_t kt = 0; kt < ktiles; ++kt) {
    // Tile kt + 1 landed (this thread's copies), then the barrier: everyone's
    // copies are visible, converted B of tile kt is visible, and every warp
    // is done with tile kt - 1 (its raw stage and converted buffer are free).
    cp_async_wait<kStages - 3>();
    __syncthreads();
    const index_t nk = kt + kStages - 1;

    // The tile's 4 steps: A fragments (g, t), (g + 8, t), (g, t + 4),
    // (g + 8, t + 4) of each step, split; then 12 wgmma into a fresh T.
    const float* as = As + int(kt % kStages) * OA::kElems;
    unsigned ah[4][4], al[4][4];
#pragma unroll
    for (int s = 0; s < 4; ++s)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        split_tf32(OA::at(as, arow + 8 * (r & 1), 8 * s + lt + 4 * (r >> 1)), ah[s][r], al[s][r]);
    const std::uint64_t dhi = desc0 + std::uint64_t((2 * int(kt & 1)) * kBHalf >> 4);
    const std::uint64_t dlo = dhi + std::uint64_t(kBHalf >> 4);
#pragma unroll
    for (int i = 0; i < 64; ++i) reg_fence(tmp[i]);
    wg_fence();
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      wgmma_m64n128k8(tmp, al[s], dhi + 2 * s, s == 0 ? 0 : 1);  // small terms first
      wgmma_m64n128k8(tmp, ah[s], dlo + 2 * s, 1);
      wgmma_m64n128k8(tmp, ah[s], dhi + 2 * s, 1);
    }
    wg_commit();
    // While the tensor cores run: the next loads and the next B conversion
    // (other stage, other buffer).
    if (nk < ktiles) load_stage(int(nk % kStages), nk * kBK);
    cp_async_commit();
    if (kt + 1 < ktiles) convert_b(int((kt + 1) % kStages), int((kt + 1) & 1));
    wg_wait0();
#pragma unroll
    for (int i = 0; i < 64; ++i) reg_fence(tmp[i]);
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] += tmp[i];
  }
  cp_async_wait<0>();

  // Epilogue: acc[4 j + r] is C(i0 + arow + 8 (r / 2), j0 + 8 j + 2 lt + r % 2).
  // With beta != 0 all 64 C loads are issued before the first store (into
  // tmp, free now): loads and stores interleaved element by element would
  // wait one memory round trip each, since the compiler cannot move a load
  // of C above a store to C. That cost the factorizations' updates (beta 1)
  // half their speed: 25-30 against 56 TFLOP/s with beta 0.
  const bool diag_tile = g.tri != kTriAll && i0 == j0;
  auto in_c = [&](int j, int r, index_t& off) {
    const index_t row = i0 + arow + 8 * (r >> 1);
    const index_t col = j0 + 8 * j + 2 * lt + (r & 1);
    off = row + col * g.ldc;
    return row < g.m && col < g.n && !(diag_tile && !in_tri(g.tri, row, col));
  };
  if (g.beta != 0.f) {
#pragma unroll
    for (int j = 0; j < 16; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        index_t off;
        tmp[4 * j + r] = in_c(j, r, off) ? g.C[off] : 0.f;
      }
  }
#pragma unroll
  for (int j = 0; j < 16; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      index_t off;
      if (!in_c(j, r, off)) continue;
      const float v = g.alpha * acc[4 * j + r];
      g.C[off] = g.beta == 0.f ? v : v + g.beta * tmp[4 * j + r];
    }
#else
  __trap();  // never launched: the host side checks for an sm_90 device first
#endif
}

using WgmmaKernel = void (*)(GemmArgs<float>, WgGrid);
const WgmmaKernel kKernels[4] = {tf32x3_wgmma_kernel<false, false>,
                                 tf32x3_wgmma_kernel<false, true>,
                                 tf32x3_wgmma_kernel<true, false>,
                                 tf32x3_wgmma_kernel<true, true>};

// This kernel's code exists for compute capability 9.0 only (sm_90a).
void require_sm90() {
  if (!tf32x3_wgmma_supported())
    throw DeviceError("sgemm tf32x3_wgmma_128x128x32 needs a compute capability 9.0 device "
                      "(Hopper wgmma); this one has " +
                      std::to_string(device_limits().cc / 10) + "." +
                      std::to_string(device_limits().cc % 10));
}

void launch_wgmma(stream_t s, const GemmArgs<float>& g) {
  require_sm90();
  const int which = (g.ta ? 2 : 0) + (g.tb ? 0 : 1);
  const auto [tm, tn, tiles] = launch_tiles(g, kBM, kBN);
  static constexpr int kSmem[4] = {smem_bytes<false, false>(), smem_bytes<false, true>(),
                                   smem_bytes<true, false>(), smem_bytes<true, true>()};
  static std::mutex mu;
  static unsigned long long done[4] = {0, 0, 0, 0};
  opt_in_once(mu, done[which], reinterpret_cast<const void*>(kKernels[which]), kSmem[which], 9,
              "sgemm (Fp32Gemm::Tf32x3, wgmma)");
  const WgGrid grid{int(tm), int(tn), g.lda % 4 == 0 && aligned16(g.A),
                    g.ldb % 4 == 0 && aligned16(g.B)};
  kKernels[which]<<<unsigned(tiles), kThreads, kSmem[which], s>>>(g, grid);
  DLA_CUDA_CHECK_LAUNCH();
}

}  // namespace

// Per call of auto_tf32x3: the capability comes from device_limits()'s cache.
bool tf32x3_wgmma_supported() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {  // no device (or driver)
    cudaGetLastError();
    return false;
  }
  return device_limits().cc == 90;
}

const std::vector<Tf32x3Config>& tf32x3_wgmma_configs() {
  static const std::vector<Tf32x3Config> v = {
      {"tf32x3_wgmma_128x128x32", kBM, kBN, kBK, kStages, 1, &launch_wgmma}};
  return v;
}

}  // namespace dla::cuda::detail
