// The tuned SGEMM that dispatch uses: 256 threads (8 warps), warp tiling,
// a STAGES-deep cp.async pipeline, float4 shared-memory reads, swizzled
// block order for L2 reuse, optional split-K. Templated on the tile config;
// every instantiation is a named variant ("tuned_<BM>x<BN>x<BK>_s<STAGES>").
//
// Each config is compiled once per op combination (whether A and B are
// k-contiguous is a template argument), so a kernel carries only its own copy
// paths: that alone made the 128x128 kernel 5% faster on the H200 than one
// kernel branching on the ops at run time (43.4 -> 45.4 TFLOP/s at 4096^3).
//
// Shared layout: both operands k-major, As[stage][BK][BM+4], Bs[stage][BK][BN+4].
// The operand that is contiguous along m (A, op N) or n (B, op T) is copied
// with 16-byte cp.async when the pointer is 16-byte aligned and ld % 4 == 0
// (zero-filled past k and past m/n in edge tiles); everything else (the
// k-contiguous operand, i.e. B in NN, A in TN/TT; unaligned sub-matrices)
// uses 4-byte cp.async with zero fill, which transposes into the k-major
// layout on the fly. (The dispatcher packs large operands of the second kind
// into the first: gemm_pack.cu.)
//
// Split-K (KSplit): a split tile's slices are consecutive blocks, each stores
// its raw partial tile to scratch memory, and splitk_reduce_kernel sums them
// in slice order: deterministic, unlike atomics. The reduction is launched as
// a programmatic dependent (PDL) of the GEMM kernel, so its launch overlaps
// the GEMM's last blocks.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <string>

#include "dla/core/cuda_launch.hpp"
#include "dla/core/error.hpp"

#include "gemm_kernels.cuh"
#include "gemm_tiling.cuh"

namespace dla::cuda::detail {
namespace {

constexpr int kPad = 4;

// One operand's BK x BO tile copy plan for one thread, with the op fixed at
// compile time. Element (o, p) of the operand (o along m or n, p along k) is
// X[p + o*ld] when KCONTIG, else X[o + p*ld]; it lands in S[p][o] (row
// length BO + kPad). Out-of-range elements (o >= O or p >= K) become zero.
//  - !KCONTIG, vec (ld % 4 == 0, 16-byte aligned, tile full along o):
//    16-byte copies, thread t: o = 4 (t % (BO/4)), p = t / (BO/4) + it * NT/(BO/4);
//  - !KCONTIG scalar: o = t % BO, p = t / BO + it * NT/BO;
//  - KCONTIG (transposed on the fly): p = t % BK, o = t / BK + it * NT/BK,
//    consecutive lanes read consecutive k.
// The thread keeps one pointer, stepped by a constant per k tile.
template <int BO, int BK, int NT, bool KCONTIG>
struct TileCopy {
  static constexpr int LD = BO + kPad;
  static constexpr int kStepS = KCONTIG ? NT / BK : NT / BO;
  static constexpr int kItS = KCONTIG ? BO / kStepS : BK / kStepS;
  static constexpr int kVecs = BK * BO / 4;
  static constexpr int kItV = (kVecs + NT - 1) / NT;
  static constexpr int kStepV = NT / (BO / 4);
  static_assert(KCONTIG ? NT % BK == 0 : NT % BO == 0);
  static_assert(kItS >= 1);

  const float* ptr;  // the thread's first element in the next k tile to copy
  index_t dit;       // pointer step between the thread's elements of one tile
  index_t dk;        // pointer step per k tile
  int sdst;          // shared offset (within a stage) of the thread's first element
  int o, p;          // the thread's first element in the tile
  bool vec;

  __device__ __forceinline__ TileCopy(const float* X, index_t ld, bool vec_ok, index_t o0,
                                      index_t p0, index_t O, int t) {
    vec = !KCONTIG && vec_ok;
    if (KCONTIG) {
      p = t % BK; o = t / BK;
      ptr = X + (p0 + p) + (o0 + o) * ld;
      dit = kStepS * ld; dk = BK;
    } else if (vec) {
      o = 4 * (t % (BO / 4)); p = t / (BO / 4);
      ptr = X + (o0 + o) + (p0 + p) * ld;
      dit = kStepV * ld; dk = BK * ld;
    } else {
      o = t % BO; p = t / BO;
      ptr = X + (o0 + o) + (p0 + p) * ld;
      dit = kStepS * ld; dk = index_t(BK) * ld;
    }
    sdst = p * LD + o;
  }

  // Copies the next k tile into S (one stage). o_left = O - o0, k_left = K - p0
  // (elements of the operand left from the tile's first row/column).
  __device__ __forceinline__ void copy(float* S, index_t o_left, index_t k_left,
                                       const float* X) {
    float* dst = S + sdst;
    const bool full = o_left >= BO && k_left >= BK;
    if (!KCONTIG && vec) {
      if (full) {  // the main loop's path: kept apart from the edge logic below
#pragma unroll
        for (int it = 0; it < kItV; ++it) {
          if (kVecs % NT != 0 && int(threadIdx.x) + it * NT >= kVecs) break;
          cp_async16n(dst + it * kStepV * LD, ptr + it * dit, 16);
        }
      } else {
        // Edge tiles along o read only the 0-3 elements left of the thread's
        // 4 (the memory past the operand's last row may not exist) and zero
        // the rest; past k, nothing.
        const index_t o_rem = o_left - o;
        const int obytes = o_rem >= 4 ? 16 : o_rem > 0 ? int(o_rem) * 4 : 0;
#pragma unroll 1
        for (int it = 0; it < kItV; ++it) {
          if (kVecs % NT != 0 && int(threadIdx.x) + it * NT >= kVecs) break;
          const int bytes = p + it * kStepV < k_left ? obytes : 0;
          cp_async16n(dst + it * kStepV * LD, bytes > 0 ? ptr + it * dit : X, bytes);
        }
      }
    } else {
      constexpr int kSd = KCONTIG ? kStepS : kStepS * LD;  // shared step per element
      if (full) {
#pragma unroll
        for (int it = 0; it < kItS; ++it) cp_async_elem(dst + it * kSd, ptr + it * dit, true);
      } else {
#pragma unroll 1
        for (int it = 0; it < kItS; ++it) {
          const bool in = KCONTIG ? (o + it * kStepS < o_left && p < k_left)
                                  : (o < o_left && p + it * kStepS < k_left);
          cp_async_elem(dst + it * kSd, in ? ptr + it * dit : X, in);
        }
      }
    }
    ptr += dk;
  }
};

// WARPS_M x WARPS_N warps; each warp TR x TC threads (TR*TC == 32); each
// thread TM x TN outputs as (TM/4) x (TN/4) subtiles of 4x4, subtile rows
// strided by TR*4 so a warp's float4 shared reads are contiguous.
template <int WARPS_M, int WARPS_N, int TR, int TC, int TM, int TN, int BK, int STAGES, int MINB>
struct Tuned {
  static_assert(TR * TC == 32 && TM % 4 == 0 && TN % 4 == 0);
  static constexpr int NT = WARPS_M * WARPS_N * 32;
  static constexpr int WM = TR * TM, WN = TC * TN;
  static constexpr int BM = WARPS_M * WM, BN = WARPS_N * WN;
  static constexpr int LDA = BM + kPad, LDB = BN + kPad;
  static constexpr int kSmemBytes = STAGES * BK * (LDA + LDB) * int(sizeof(float));
  static constexpr int kGroup = 8;  // tile rows per rasterization group
  static constexpr int MINB_ = MINB;
  static constexpr int BK_ = BK, STAGES_ = STAGES, TR_ = TR, TC_ = TC, TM_ = TM, TN_ = TN;
  static constexpr int WARPS_M_ = WARPS_M;

  static void launch(stream_t s, const GemmArgs<float>& g, KSplit split);
  // Opts the kernel for this op combination in to its shared memory (once per device).
  static void prepare(int which);
};


// The launch's shape and how its blocks divide the work (see KSplit).
struct TunedGrid {
  int tiles_m, tiles_n;
  int whole;        // tiles computed over all of k, stored to C
  int split_tiles;  // the tiles after them, each split into `slices` k-ranges
  int slices;
  index_t k_per_slice;
  float* work;  // split tiles' partial sums: [split tile][slice][BN][BM]
  bool vecA, vecB, vecC;
};

// KA: A is k-contiguous (op T); KB: B is k-contiguous (op N).
template <class Cfg, bool KA, bool KB>
__global__ void __launch_bounds__(Cfg::NT, Cfg::MINB_)
  tuned_kernel(GemmArgs<float> g, TunedGrid grid) {
constexpr int NT = Cfg::NT, WM = Cfg::WM, WN = Cfg::WN, BM = Cfg::BM, BN = Cfg::BN;
constexpr int LDA = Cfg::LDA, LDB = Cfg::LDB, kGroup = Cfg::kGroup, BK = Cfg::BK_;
constexpr int STAGES = Cfg::STAGES_, TR = Cfg::TR_, TC = Cfg::TC_, TM = Cfg::TM_, TN = Cfg::TN_;
constexpr int WARPS_M = Cfg::WARPS_M_;
  extern __shared__ float4 smem4[];
  float* As = reinterpret_cast<float*>(smem4);
  float* Bs = As + STAGES * BK * LDA;
  const int t = threadIdx.x;

  // Whole tiles first, then the split tiles slice by slice.
  const int bid = blockIdx.x;
  // Launched as a programmatic dependent (Tuned::launch): nothing of the
  // kernel before it is visible until it has finished. (A no-op otherwise.)
  asm volatile("griddepcontrol.wait;" ::: "memory");
  int tile = bid;
  index_t kbeg = 0, kend = g.k;
  if (bid >= grid.whole) {
    // A tile's slices are consecutive blocks.
    const int r = bid - grid.whole;
    tile = grid.whole + r / grid.slices;
    kbeg = (r % grid.slices) * grid.k_per_slice;
    kend = min(g.k, kbeg + grid.k_per_slice);
  }
  int tile_m, tile_n;
  if (g.tri != kTriAll) tri_coords(tile, grid.tiles_m, grid.tiles_n, g.tri, tile_m, tile_n);
  else tile_coords(tile, grid.tiles_m, grid.tiles_n, kGroup, tile_m, tile_n);
  const index_t i0 = index_t(tile_m) * BM, j0 = index_t(tile_n) * BN;
  const index_t ktiles = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;

  const int warp = t / 32, lane = t % 32;
  const int wm = warp % WARPS_M, wn = warp / WARPS_M;
  const int tr = lane % TR, tc = lane / TR;
  const int row0 = wm * WM + tr * 4, col0 = wn * WN + tc * 4;

  float acc[TM][TN];
#pragma unroll
  for (int r = 0; r < TM; ++r)
#pragma unroll
    for (int c = 0; c < TN; ++c) acc[r][c] = 0.f;

  TileCopy<BM, BK, NT, KA> ca(g.A, g.lda, grid.vecA, i0, kbeg, g.m, t);
  TileCopy<BN, BK, NT, KB> cb(g.B, g.ldb, grid.vecB, j0, kbeg, g.n, t);
  const index_t m_left = g.m - i0, n_left = g.n - j0;
  // Tiles are copied in order; k_left is the part of the slice left from the tile's start.
  auto load_stage = [&](int stage, index_t p0) {
    ca.copy(As + stage * BK * LDA, m_left, kend - p0, g.A);
    cb.copy(Bs + stage * BK * LDB, n_left, kend - p0, g.B);
  };

  // One k tile: rank-1 updates of the thread's TM x TN outputs.
  auto compute = [&](int stage) {
    const float* as = As + stage * BK * LDA + row0;
    const float* bs = Bs + stage * BK * LDB + col0;
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int x = 0; x < TM / 4; ++x)
        *reinterpret_cast<float4*>(a + 4 * x) =
            *reinterpret_cast<const float4*>(as + kk * LDA + x * TR * 4);
#pragma unroll
      for (int y = 0; y < TN / 4; ++y)
        *reinterpret_cast<float4*>(b + 4 * y) =
            *reinterpret_cast<const float4*>(bs + kk * LDB + y * TC * 4);
#pragma unroll
      for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
    }
  };
  cp_async_pipeline<STAGES>(
      ktiles, [&](int stage, index_t kt) { load_stage(stage, kbeg + kt * BK); }, compute);
  // The next kernel may start launching once every block is past its main
  // loop (programmatic dependent launch: the split-K reduction, a solver's
  // next kernel); its blocks wait for this grid to finish (griddepcontrol.wait).
  asm volatile("griddepcontrol.launch_dependents;");

  if (bid >= grid.whole) {
    // A slice of a split tile: the raw partial tile, every element (the
    // reduction guards the matrix edge), as float4 columns of the tile. (The
    // address is formed here, not kept live through the main loop: the
    // 128x128 configs sit at the 128-register cap of 2 blocks per SM.)
    const int r = bid - grid.whole;
    float* part = grid.work + index_t(r) * (BM * BN);  // [split tile][slice], as the blocks
#pragma unroll
    for (int x = 0; x < TM / 4; ++x)
#pragma unroll
      for (int c = 0; c < TN; ++c) {
        const int col = col0 + (c / 4) * TC * 4 + c % 4, row = row0 + x * TR * 4;
        *reinterpret_cast<float4*>(part + col * BM + row) =
            make_float4(acc[4 * x][c], acc[4 * x + 1][c], acc[4 * x + 2][c], acc[4 * x + 3][c]);
      }
    return;
  }
  // Epilogue: C = alpha*acc + beta*C (beta == 0 never reads C). A diagonal
  // tile of a triangular launch stores only its elements in the triangle.
  const bool diag_tile = g.tri != kTriAll && i0 == j0;
#pragma unroll
  for (int x = 0; x < TM / 4; ++x) {
    const index_t i = i0 + row0 + x * TR * 4;
#pragma unroll
    for (int c = 0; c < TN; ++c) {
      const index_t j = j0 + col0 + (c / 4) * TC * 4 + c % 4;
      if (j >= g.n || i >= g.m) continue;
      float* cp = g.C + i + j * g.ldc;
      if (grid.vecC && i + 3 < g.m && !diag_tile) {
        float4 v = make_float4(g.alpha * acc[4 * x][c], g.alpha * acc[4 * x + 1][c],
                               g.alpha * acc[4 * x + 2][c], g.alpha * acc[4 * x + 3][c]);
        if (g.beta != 0.f) {
          const float4 o = *reinterpret_cast<const float4*>(cp);
          v.x += g.beta * o.x; v.y += g.beta * o.y; v.z += g.beta * o.z; v.w += g.beta * o.w;
        }
        *reinterpret_cast<float4*>(cp) = v;
      } else if (i + 3 < g.m && !diag_tile) {
        // C not 16-byte addressable (ldc % 4 != 0 or C off 16 bytes): the
        // four loads first, then the four stores, so that they take one
        // round trip, not four (each conditional load waited for the store
        // before it). sgetrf 4097 in place, H100, session 50: the trailing
        // GEMM 5.9 -> 3.8 ms (4096: 3.2), 8193 21.1 -> 14.2 (docs/gemm.md).
        float o[4] = {0.f, 0.f, 0.f, 0.f};
        if (g.beta != 0.f) {
#pragma unroll
          for (int r = 0; r < 4; ++r) o[r] = cp[r];
        }
#pragma unroll
        for (int r = 0; r < 4; ++r) cp[r] = g.alpha * acc[4 * x + r][c] + g.beta * o[r];
      } else {
#pragma unroll
        for (int r = 0; r < 4; ++r)
          if (i + r < g.m && (!diag_tile || in_tri(g.tri, i + r, j)))
            cp[r] = g.beta == 0.f ? g.alpha * acc[4 * x + r][c]
                                  : g.alpha * acc[4 * x + r][c] + g.beta * cp[r];
      }
    }
  }
}

// Sums the slices of each split tile in slice order and stores
// C = alpha*sum + beta*C (beta == 0 never reads C). Every thread owns one
// float4 of a tile (blocks of 256 threads, BM*BN/1024 blocks per tile, so
// that even 4 split tiles spread over 64 SMs), and loads kAhead slices ahead:
// the sum is a chain of dependent adds, the loads are not (66 slices of
// 256x256x65536: 6 round trips to L2 instead of 66).
constexpr int kReduceThreads = 256;
constexpr int kAhead = 12;
template <int BM, int BN, int GROUP>
__global__ void __launch_bounds__(kReduceThreads)
  splitk_reduce_kernel(GemmArgs<float> g, TunedGrid grid) {
  // Launched as a programmatic dependent of the GEMM kernel: wait until it
  // has finished and its partial tiles are visible.
  asm volatile("griddepcontrol.wait;" ::: "memory");
  constexpr int kBlocksPerTile = BM * BN / (4 * kReduceThreads);
  static_assert(BM * BN % (4 * kReduceThreads) == 0);
  const int local = blockIdx.x / kBlocksPerTile;
  const int v = (blockIdx.x % kBlocksPerTile) * kReduceThreads + threadIdx.x;  // float4 index
  int tile_m, tile_n;
  tile_coords(grid.whole + local, grid.tiles_m, grid.tiles_n, GROUP, tile_m, tile_n);
  const int row = (4 * v) % BM, col = (4 * v) / BM;
  const index_t i = index_t(tile_m) * BM + row, j = index_t(tile_n) * BN + col;
  if (j >= g.n || i >= g.m) return;
  constexpr int slice_stride = BM * BN / 4;  // in float4
  const float4* __restrict__ p =
      reinterpret_cast<const float4*>(grid.work + index_t(local) * grid.slices * (BM * BN)) + v;
  float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
  int sl = 0;
  for (; sl + kAhead <= grid.slices; sl += kAhead) {
    float4 q[kAhead];
#pragma unroll
    for (int u = 0; u < kAhead; ++u) q[u] = p[(sl + u) * slice_stride];
#pragma unroll
    for (int u = 0; u < kAhead; ++u) {
      sum.x += q[u].x; sum.y += q[u].y; sum.z += q[u].z; sum.w += q[u].w;
    }
  }
  for (; sl < grid.slices; ++sl) {
    const float4 q = p[sl * slice_stride];
    sum.x += q.x; sum.y += q.y; sum.z += q.z; sum.w += q.w;
  }
  float* cp = g.C + i + j * g.ldc;
  if (grid.vecC && i + 3 < g.m) {
    float4 v = make_float4(g.alpha * sum.x, g.alpha * sum.y, g.alpha * sum.z, g.alpha * sum.w);
    if (g.beta != 0.f) {
      const float4 o = *reinterpret_cast<const float4*>(cp);
      v.x += g.beta * o.x; v.y += g.beta * o.y; v.z += g.beta * o.z; v.w += g.beta * o.w;
    }
    *reinterpret_cast<float4*>(cp) = v;
    return;
  }
  const float s4[4] = {sum.x, sum.y, sum.z, sum.w};
  if (i + 3 < g.m) {  // as in the tile epilogue: the loads, then the stores
    float o[4] = {0.f, 0.f, 0.f, 0.f};
    if (g.beta != 0.f) {
#pragma unroll
      for (int r = 0; r < 4; ++r) o[r] = cp[r];
    }
#pragma unroll
    for (int r = 0; r < 4; ++r) cp[r] = g.alpha * s4[r] + g.beta * o[r];
    return;
  }
#pragma unroll
  for (int r = 0; r < 4; ++r)
    if (i + r < g.m)
      cp[r] = g.beta == 0.f ? g.alpha * s4[r] : g.alpha * s4[r] + g.beta * cp[r];
}

using TunedKernel = void (*)(GemmArgs<float>, TunedGrid);

template <class Cfg>
const TunedKernel* kernels_of() {
  static const TunedKernel k[4] = {tuned_kernel<Cfg, false, false>, tuned_kernel<Cfg, false, true>,
                                   tuned_kernel<Cfg, true, false>, tuned_kernel<Cfg, true, true>};
  return k;
}

template <int WARPS_M, int WARPS_N, int TR, int TC, int TM, int TN, int BK, int STAGES, int MINB>
void Tuned<WARPS_M, WARPS_N, TR, TC, TM, TN, BK, STAGES, MINB>::prepare(int which) {
  static_assert(kSmemBytes <= 227 * 1024);
  static std::mutex mu;
  static unsigned long long done[4] = {0, 0, 0, 0};
  opt_in_once(mu, done[which], reinterpret_cast<const void*>(kernels_of<Tuned>()[which]),
              kSmemBytes, 0, "sgemm");
}

template <int WARPS_M, int WARPS_N, int TR, int TC, int TM, int TN, int BK, int STAGES, int MINB>
void Tuned<WARPS_M, WARPS_N, TR, TC, TM, TN, BK, STAGES, MINB>::launch(stream_t s,
  const GemmArgs<float>& g, KSplit split) {
  // A k-contiguous (op T) and B k-contiguous (op N) select the instantiation.
  const int which = (g.ta ? 2 : 0) + (g.tb ? 0 : 1);
  const auto [tm, tn, tiles] = launch_tiles(g, BM, BN);
  if (g.tri != kTriAll) split = KSplit{};  // triangular launches are never split
  index_t whole = tiles, slices = 1, kps = g.k;
  if (split.slices > 1 && split.whole < tiles) {
    whole = std::max<index_t>(split.whole, 0);
    kps = (g.k + split.slices - 1) / split.slices;
    kps = (kps + BK - 1) / BK * BK;
    slices = (g.k + kps - 1) / kps;
  }
  const index_t split_tiles = tiles - whole;
  const std::size_t work_bytes =
      slices > 1 ? std::size_t(slices * split_tiles) * (BM * BN) * sizeof(float) : 0;
  Scratch work(s, work_bytes);
  if (work_bytes > 0 && work.get() == nullptr) {  // no memory for the partials: no split
    whole = tiles; slices = 1; kps = g.k;
  }
  TunedGrid grid{int(tm), int(tn), int(whole), int(tiles - whole), int(slices), kps,
                 static_cast<float*>(work.get()),
                 g.lda % 4 == 0 && aligned16(g.A), g.ldb % 4 == 0 && aligned16(g.B),
                 g.ldc % 4 == 0 && aligned16(g.C)};
  const index_t blocks = grid.whole + index_t(grid.split_tiles) * grid.slices;
  if (blocks > index_t(INT32_MAX))
    throw InvalidArgument("sgemm: split-K grid of " + std::to_string(blocks) + " blocks");
  prepare(which);
  const TunedKernel kernel = kernels_of<Tuned>()[which];
  // Both kernels are launched as programmatic dependents of the kernel before
  // them on s, and wait for it (griddepcontrol.wait) before touching memory:
  // the same order as a plain launch, with the launch itself overlapping the
  // previous kernel's tail where that kernel allows it (the factorizations'
  // panel kernels do). DLA_GEMM_NO_PDL=1: plain launches (A/B runs).
  static const bool pdl = std::getenv("DLA_GEMM_NO_PDL") == nullptr;
  dla::detail::KernelLaunch launch(s, dim3(unsigned(blocks)), dim3(NT), kSmemBytes, pdl);
  launch(kernel, g, grid);
  if (grid.slices > 1) {
    constexpr int kReduceBlocks = BM * BN / (4 * kReduceThreads);
    launch.shape(dim3(unsigned(grid.split_tiles * kReduceBlocks)), dim3(kReduceThreads), 0);
    launch(splitk_reduce_kernel<BM, BN, kGroup>, g, grid);
  }
}

template <class Cfg>
TunedConfig make(const char* name) {
  return {name, Cfg::BM, Cfg::BN, Cfg::BK_, Cfg::STAGES_, Cfg::MINB_, &Cfg::launch};
}

}  // namespace

const std::vector<TunedConfig>& tuned_configs() {
  //                 WARPS_M, WARPS_N, TR, TC, TM, TN, BK, STAGES, MINB
  using T128x128x16s3 = Tuned<2, 4, 8, 4, 8, 8, 16, 3, 2>;
  using T128x128x16s4 = Tuned<2, 4, 8, 4, 8, 8, 16, 4, 2>;
  using T128x128x32s3 = Tuned<2, 4, 8, 4, 8, 8, 32, 3, 1>;
  using T128x128x8s4 = Tuned<2, 4, 8, 4, 8, 8, 8, 4, 2>;
  using T128x256x16s3 = Tuned<2, 4, 8, 4, 8, 16, 16, 3, 1>;
  using T128x256x8s4 = Tuned<2, 4, 8, 4, 8, 16, 8, 4, 1>;
  using T256x128x16s3 = Tuned<4, 2, 8, 4, 8, 16, 16, 3, 1>;
  using T256x128x8s4 = Tuned<4, 2, 8, 4, 8, 16, 8, 4, 1>;
  using T128x64x16s4 = Tuned<2, 4, 8, 4, 8, 4, 16, 4, 2>;
  using T64x64x16s4 = Tuned<2, 4, 8, 4, 4, 4, 16, 4, 2>;
  static const std::vector<TunedConfig> v = [] {
    std::vector<TunedConfig> c = {
        make<T128x128x16s3>("tuned_128x128x16_s3"), make<T128x128x16s4>("tuned_128x128x16_s4"),
        make<T128x128x32s3>("tuned_128x128x32_s3"),
        make<T128x128x8s4>("tuned_128x128x8_s4"),   make<T128x256x16s3>("tuned_128x256x16_s3"),
        make<T128x256x8s4>("tuned_128x256x8_s4"),   make<T256x128x16s3>("tuned_256x128x16_s3"),
        make<T256x128x8s4>("tuned_256x128x8_s4"),   make<T128x64x16s4>("tuned_128x64x16_s4"),
        make<T64x64x16s4>("tuned_64x64x16_s4")};
    return c;
  }();
  return v;
}

int default_split_k(const TunedConfig& c, index_t m, index_t n, index_t k) {
  const index_t tiles = ((m + c.bm - 1) / c.bm) * ((n + c.bn - 1) / c.bn);
  const index_t sms = device_limits().sm_count;
  if (tiles >= sms || k < 2048) return 1;
  // Enough slices to give every SM about two blocks, each slice >= 512 deep.
  index_t s = (2 * sms + tiles - 1) / tiles;
  s = std::min<index_t>(s, k / 512);
  s = std::min<index_t>(s, 128);
  return int(std::max<index_t>(s, 1));
}

}  // namespace dla::cuda::detail
