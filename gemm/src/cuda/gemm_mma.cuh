#pragma once
// The mma.sync GEMM kernel family: one kernel template, one "math" policy per
// product (gemm_tf32x3.cu: FP32 emulated by three TF32 products, Tf32x3Math;
// gemm_double.cu: FP64 on the FP64 tensor cores, Fp64Math).
//
// Structure (configs MmaGemm<Math, WARPS_M, WARPS_N, MT, NT, BK, STAGES, MINB,
// KUNROLL>): WARPS_M x WARPS_N warps, each owning MT x NT mma tiles of 16 x 8
// (a warp tile of 16 MT x 8 NT); a STAGES-deep cp.async pipeline of BK-deep
// operand tiles (cp_async_pipeline, TcOperand's shared layouts); block
// rasterization for L2 reuse (tile_coords) or, for the triangular launches
// (gemmt / syrk), only the tiles that meet the triangle (tri_coords), diagonal
// tiles stored masked (mma_store_c). No split-K.
//
// A Math policy provides:
//   using T;                         the element type (float or double)
//   kMinMajor, kWhat                 the compute capability it needs, and its
//                                    name in opt_in_once's errors
//   stage<Cfg, OA, OB>(acc, as, bs, wrow, wcol, lg, lt)
//                                    acc += the products of one BK-deep stage
//                                    (as / bs: the stage's A and B tiles; the
//                                    warp tile at (wrow, wcol); lane = 4 lg + lt)
// KUNROLL: how many k8 steps of a stage a policy unrolls (1: a rolled loop, for
// the configs at their register cap).
#include <mutex>

#include "gemm_tiling.cuh"

namespace dla::cuda::detail {

struct MmaGrid {
  int tiles_m, tiles_n;
  bool vecA, vecB;  // 16-byte copies of the operand (ld and pointer allow them)
};

template <class Math_, int WARPS_M_, int WARPS_N_, int MT_, int NT_, int BK_, int STAGES_,
          int MINB_, int KUNROLL_ = 1>
struct MmaGemm {
  using Math = Math_;
  using T = typename Math::T;
  static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, MT = MT_, NTL = NT_;
  static constexpr int BK = BK_, STAGES = STAGES_, MINB = MINB_, KUNROLL = KUNROLL_;
  static constexpr int NT = WARPS_M * WARPS_N * 32;  // threads
  static constexpr int WM = 16 * MT, WN = 8 * NTL;    // warp tile
  static constexpr int BM = WARPS_M * WM, BN = WARPS_N * WN;
  static constexpr int kGroup = 8;  // tile rows per rasterization group
  static_assert(BK % 8 == 0);

  // KA: A is k-contiguous (op T); KB: B is k-contiguous (op N).
  template <bool KA>
  using OA = TcOperand<BM, BK, NT, KA, T>;
  template <bool KB>
  using OB = TcOperand<BN, BK, NT, KB, T>;
  template <bool KA, bool KB>
  static constexpr int smem_bytes() {
    return STAGES * (OA<KA>::kElems + OB<KB>::kElems) * int(sizeof(T));
  }
  static void launch(stream_t s, const GemmArgs<T>& g);
  static void prepare(int which);  // which = op combination (launch)
};

template <class Cfg, bool KA, bool KB>
__global__ void __launch_bounds__(Cfg::NT, Cfg::MINB)
    mma_kernel(GemmArgs<typename Cfg::T> g, MmaGrid grid) {
  using T = typename Cfg::T;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  constexpr int MT = Cfg::MT, NTL = Cfg::NTL, WM = Cfg::WM, WN = Cfg::WN;
  using OA = typename Cfg::template OA<KA>;
  using OB = typename Cfg::template OB<KB>;
  extern __shared__ float4 mma_smem[];
  T* As = reinterpret_cast<T*>(mma_smem);
  T* Bs = As + STAGES * OA::kElems;
  const int t = threadIdx.x;

  int tile_m, tile_n;
  if (g.tri != kTriAll) tri_coords(blockIdx.x, grid.tiles_m, grid.tiles_n, g.tri, tile_m, tile_n);
  else tile_coords(blockIdx.x, grid.tiles_m, grid.tiles_n, Cfg::kGroup, tile_m, tile_n);
  const index_t i0 = index_t(tile_m) * BM, j0 = index_t(tile_n) * BN;

  const int warp = t / 32, lane = t % 32, lg = lane / 4, lt = lane % 4;
  const int wrow = (warp % Cfg::WARPS_M) * WM, wcol = (warp / Cfg::WARPS_M) * WN;

  T acc[MT][NTL][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NTL; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = T(0);

  TcOperands<OA, OB> ops(g, grid.vecA, grid.vecB, i0, j0, t);
  cp_async_pipeline<STAGES>(
      (g.k + BK - 1) / BK, [&](int stage, index_t kt) { ops.copy(As, Bs, stage, kt * BK, g); },
      [&](int stage) {
        Cfg::Math::template stage<Cfg, OA, OB>(acc, As + stage * OA::kElems,
                                               Bs + stage * OB::kElems, wrow, wcol, lg, lt);
      });
  mma_store_c<MT, NTL>(g, acc, i0, j0, wrow, wcol, lg, lt);
}

template <class Cfg>
using MmaKernel = void (*)(GemmArgs<typename Cfg::T>, MmaGrid);

// The four op combinations' instantiations, by `which` (launch).
template <class Cfg>
const MmaKernel<Cfg>* mma_kernels_of() {
  static const MmaKernel<Cfg> k[4] = {mma_kernel<Cfg, false, false>, mma_kernel<Cfg, false, true>,
                                      mma_kernel<Cfg, true, false>, mma_kernel<Cfg, true, true>};
  return k;
}

template <class Cfg>
int mma_smem_of(int which) {
  constexpr int b[4] = {Cfg::template smem_bytes<false, false>(),
                        Cfg::template smem_bytes<false, true>(),
                        Cfg::template smem_bytes<true, false>(),
                        Cfg::template smem_bytes<true, true>()};
  return b[which];
}

template <class Math, int WARPS_M, int WARPS_N, int MT, int NTL, int BK, int STAGES, int MINB,
          int KUNROLL>
void MmaGemm<Math, WARPS_M, WARPS_N, MT, NTL, BK, STAGES, MINB, KUNROLL>::prepare(int which) {
  static std::mutex mu;
  static unsigned long long done[4] = {0, 0, 0, 0};
  opt_in_once(mu, done[which], reinterpret_cast<const void*>(mma_kernels_of<MmaGemm>()[which]),
              mma_smem_of<MmaGemm>(which), Math::kMinMajor, Math::kWhat);
}

template <class Math, int WARPS_M, int WARPS_N, int MT, int NTL, int BK, int STAGES, int MINB,
          int KUNROLL>
void MmaGemm<Math, WARPS_M, WARPS_N, MT, NTL, BK, STAGES, MINB, KUNROLL>::launch(
    stream_t s, const GemmArgs<T>& g) {
  const int which = (g.ta ? 2 : 0) + (g.tb ? 0 : 1);
  const auto [tm, tn, tiles] = launch_tiles(g, BM, BN);
  constexpr int kVec = 16 / int(sizeof(T));  // elements per 16-byte copy
  const MmaGrid grid{int(tm), int(tn), g.lda % kVec == 0 && aligned16(g.A),
                     g.ldb % kVec == 0 && aligned16(g.B)};
  prepare(which);
  mma_kernels_of<MmaGemm>()[which]<<<unsigned(tiles), NT, mma_smem_of<MmaGemm>(which), s>>>(
      g, grid);
  DLA_CUDA_CHECK_LAUNCH();
}

}  // namespace dla::cuda::detail
