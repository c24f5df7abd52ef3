// FP32 GEMM emulated on the tensor cores ("3xTF32"): what Fp32Gemm::Tf32x3
// runs (gemm_cuda.hpp says when to use it and how it differs from Native).
//
// Each operand element x is split, in registers, into x_hi = tf32(x) and
// x_lo = tf32(x - x_hi) (cvt.rna: to nearest, ties away; x - x_hi is exact
// in FP32), so |x - x_hi - x_lo| <= 2^-22 |x|. Every 16x8x8 piece of the
// product is then three mma.sync.m16n8k8 TF32 instructions, small terms
// first, into a fresh FP32 fragment t = a_lo b_hi + a_hi b_lo + a_hi b_hi
// (a_lo b_lo, below 2^-22 |a b|, is dropped), and t is added to the FP32
// accumulator with an ordinary round-to-nearest FADD. Why the fresh fragment:
// the tensor cores truncate when they add to an accumulator, so with the
// three products added straight into acc the error grew like 3k/8 ulps of
// acc over k (measured on the H200, docs/gemm.md session 18: 2.8e-5 against
// Native's 4.3e-7, normwise relative, at k = 4000); with it, k/8 rounded
// adds remain and the measured errors are at or below Native's (the 8
// products of a step are summed before any rounding). Each product is
// within 3 * 2^-22 |a b| = 6 eps |a b| of exact, so results also stay inside
// FP32's worst-case bound 2 (k + 2) eps sum|a||b| (tests/gemm_test_gpu.inc
// checks every variant against it and against Native's measured error).
//
// Structure (one template, named configs "tf32x3_<BM>x<BN>x<BK>_s<STAGES>"):
// WARPS_M x WARPS_N warps, each owning MT x NT mma tiles of 16 x 8 (a warp
// tile of 16 MT x 8 NT); a STAGES-deep cp.async pipeline of BK-deep tiles;
// block rasterization for L2 reuse (tile_coords) or, for sgemmt, only the
// tiles that meet the triangle (tri_coords), diagonal tiles stored masked.
// No split-K: the dispatcher sends the shapes that would need it, and those
// where these kernels lose (small, unaligned), to the Native kernels
// (gemm_dispatch.cu: plan_tf32x3).
//
// Shared layout per operand, chosen by which dimension is contiguous in
// global memory, so that both are copied 16 bytes at a time:
//   along m/n (A op N, B op T): S[k][o], rows of BO + 8 floats;
//   along k   (A op T, B op N): S[o][k], rows of BK + 4 floats.
// A fragment load has lane 4 g + t read element (o0 + g, k0 + t): banks
// 8 t + g, resp. 4 g + t (mod 32), all distinct, so no conflicts either way.
// 16-byte cp.async needs ld % 4 == 0 and a 16-byte aligned pointer; other
// operands are copied 4 bytes at a time.
#include <mutex>

#include "gemm_tiling.cuh"

namespace dla::cuda::detail {
namespace {

// d += a b for one 16x8x8 piece: a row-major 16x8 (a0 (g, t), a1 (g+8, t),
// a2 (g, t+4), a3 (g+8, t+4)), b 8x8 by columns (b0 (t, g), b1 (t+4, g)),
// d (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1); lane = 4 g + t.
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4],
                                         const unsigned (&b)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// KUNROLL: k8 steps of a BK tile unrolled (1: a rolled loop; fewer live
// registers for the configs at their register cap).
template <int WARPS_M_, int WARPS_N_, int MT_, int NT_, int BK_, int STAGES_, int MINB_,
          int KUNROLL_>
struct Tf32x3 {
  static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, MT = MT_, NTL = NT_;
  static constexpr int BK = BK_, STAGES = STAGES_, MINB = MINB_, KUNROLL = KUNROLL_;
  static_assert(NTL % 4 == 0, "n tiles go in groups of 4 fresh fragments");
  static constexpr int NT = WARPS_M * WARPS_N * 32;  // threads
  static constexpr int WM = 16 * MT, WN = 8 * NTL;    // warp tile
  static constexpr int BM = WARPS_M * WM, BN = WARPS_N * WN;
  static constexpr int kGroup = 8;  // tile rows per rasterization group
  static_assert(BK % 8 == 0);

  template <bool KA, bool KB>
  static constexpr int smem_bytes() {
    return STAGES * (TcOperand<BM, BK, NT, KA>::kElems + TcOperand<BN, BK, NT, KB>::kElems) *
           int(sizeof(float));
  }
  static void launch(stream_t s, const GemmArgs<float>& g);
  static void prepare(int which);
};

struct Tf32x3Grid {
  int tiles_m, tiles_n;
  bool vecA, vecB;
};

// KA: A is k-contiguous (op T); KB: B is k-contiguous (op N).
template <class Cfg, bool KA, bool KB>
__global__ void __launch_bounds__(Cfg::NT, Cfg::MINB)
  tf32x3_kernel(GemmArgs<float> g, Tf32x3Grid grid) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  constexpr int MT = Cfg::MT, NTL = Cfg::NTL, WM = Cfg::WM, WN = Cfg::WN;
  using OA = TcOperand<BM, BK, Cfg::NT, KA>;
  using OB = TcOperand<BN, BK, Cfg::NT, KB>;
  extern __shared__ float4 smem4[];
  float* As = reinterpret_cast<float*>(smem4);
  float* Bs = As + STAGES * OA::kElems;
  const int t = threadIdx.x;

  int tile_m, tile_n;
  if (g.tri != kTriAll) tri_coords(blockIdx.x, grid.tiles_m, grid.tiles_n, g.tri, tile_m, tile_n);
  else tile_coords(blockIdx.x, grid.tiles_m, grid.tiles_n, Cfg::kGroup, tile_m, tile_n);
  const index_t i0 = index_t(tile_m) * BM, j0 = index_t(tile_n) * BN;

  const int warp = t / 32, lane = t % 32, lg = lane / 4, lt = lane % 4;
  const int wrow = (warp % Cfg::WARPS_M) * WM, wcol = (warp / Cfg::WARPS_M) * WN;

  float acc[MT][NTL][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NTL; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;

  TcOperands<OA, OB> ops(g, grid.vecA, grid.vecB, i0, j0, t);
  mma_mainloop<STAGES, BK>(ops, As, Bs, g, [&](const float* as, const float* bs) {
#pragma unroll Cfg::KUNROLL
    for (int k8 = 0; k8 < BK; k8 += 8) {
      unsigned bh[NTL][2], bl[NTL][2];
#pragma unroll
      for (int j = 0; j < NTL; ++j)
#pragma unroll
        for (int r = 0; r < 2; ++r)
          split_tf32(OB::at(bs, wcol + j * 8 + lg, k8 + lt + 4 * r), bh[j][r], bl[j][r]);
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        unsigned ah[4], al[4];
#pragma unroll
        for (int r = 0; r < 4; ++r)
          split_tf32(OA::at(as, wrow + i * 16 + lg + 8 * (r & 1), k8 + lt + 4 * (r >> 1)), ah[r],
                     al[r]);
        // Per group of 4 n tiles: fresh fragments t8 (small terms first), then
        // acc += t8 with FP32 rounding to nearest (see the header).
#pragma unroll
        for (int j0 = 0; j0 < NTL; j0 += 4) {
          float t8[4][4];
#pragma unroll
          for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r) t8[j][r] = 0.f;
#pragma unroll
          for (int j = 0; j < 4; ++j) mma_tf32(t8[j], al, bh[j0 + j]);
#pragma unroll
          for (int j = 0; j < 4; ++j) mma_tf32(t8[j], ah, bl[j0 + j]);
#pragma unroll
          for (int j = 0; j < 4; ++j) mma_tf32(t8[j], ah, bh[j0 + j]);
#pragma unroll
          for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[i][j0 + j][r] += t8[j][r];
        }
      }
    }
  });
  mma_store_c<MT, NTL>(g, acc, i0, j0, wrow, wcol, lg, lt);
}

using Tf32x3Kernel = void (*)(GemmArgs<float>, Tf32x3Grid);

template <class Cfg>
const Tf32x3Kernel* kernels_of() {
  static const Tf32x3Kernel k[4] = {
      tf32x3_kernel<Cfg, false, false>, tf32x3_kernel<Cfg, false, true>,
      tf32x3_kernel<Cfg, true, false>, tf32x3_kernel<Cfg, true, true>};
  return k;
}

template <class Cfg>
int smem_of(int which) {
  constexpr int b[4] = {Cfg::template smem_bytes<false, false>(),
                        Cfg::template smem_bytes<false, true>(),
                        Cfg::template smem_bytes<true, false>(),
                        Cfg::template smem_bytes<true, true>()};
  return b[which];
}

template <int WARPS_M, int WARPS_N, int MT, int NTL, int BK, int STAGES, int MINB, int KUNROLL>
void Tf32x3<WARPS_M, WARPS_N, MT, NTL, BK, STAGES, MINB, KUNROLL>::prepare(int which) {
  static std::mutex mu;
  static unsigned long long done[4] = {0, 0, 0, 0};
  opt_in_once(mu, done[which], reinterpret_cast<const void*>(kernels_of<Tf32x3>()[which]),
              smem_of<Tf32x3>(which), 8, "sgemm (Fp32Gemm::Tf32x3, TF32 tensor cores)");
}

template <int WARPS_M, int WARPS_N, int MT, int NTL, int BK, int STAGES, int MINB, int KUNROLL>
void Tf32x3<WARPS_M, WARPS_N, MT, NTL, BK, STAGES, MINB, KUNROLL>::launch(
    stream_t s, const GemmArgs<float>& g) {
  const int which = (g.ta ? 2 : 0) + (g.tb ? 0 : 1);
  const auto [tm, tn, tiles] = launch_tiles(g, BM, BN);
  const Tf32x3Grid grid{int(tm), int(tn), g.lda % 4 == 0 && aligned16(g.A),
                        g.ldb % 4 == 0 && aligned16(g.B)};
  prepare(which);
  kernels_of<Tf32x3>()[which]<<<unsigned(tiles), NT, smem_of<Tf32x3>(which), s>>>(g, grid);
  DLA_CUDA_CHECK_LAUNCH();
}

template <class Cfg>
Tf32x3Config make(const char* name) {
  return {name, Cfg::BM, Cfg::BN, Cfg::BK, Cfg::STAGES, Cfg::MINB, &Cfg::launch};
}

}  // namespace

const std::vector<Tf32x3Config>& tf32x3_configs() {
  //                  WARPS_M, WARPS_N, MT, NT, BK, STAGES, MINB, KUNROLL
  using T128x128 = Tf32x3<2, 4, 4, 4, 32, 3, 2, 1>;
  using T128x256 = Tf32x3<2, 4, 4, 8, 32, 3, 1, 1>;
  using T64x64 = Tf32x3<2, 2, 2, 4, 32, 4, 2, 4>;
  static const std::vector<Tf32x3Config> v = [] {
    std::vector<Tf32x3Config> c = {make<T128x128>("tf32x3_128x128x32_s3"),
                                   make<T128x256>("tf32x3_128x256x32_s3"),
                                   make<T64x64>("tf32x3_64x64x32_s4")};
    for (const auto& w : tf32x3_wgmma_configs()) c.push_back(w);  // Hopper (gemm_tf32x3_wgmma.cu)
    return c;
  }();
  return v;
}

}  // namespace dla::cuda::detail
