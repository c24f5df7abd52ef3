// DGEMM. On compute capability 9.0 and newer: the FP64 tensor cores
// (mma.sync.m16n8k8.f64, sm_90), named configs "dmma_<BM>x<BN>x<BK>_s<STAGES>".
// Elsewhere (and with DLA_DGEMM=simt, for comparison runs): the register-tiled
// CUDA-core kernel (64x64x8 block tile, 4x4 outputs per thread, 256 threads).
//
// The tensor-core kernel is the 3xTF32 kernel's structure (gemm_tf32x3.cu)
// without the operand split: WARPS_M x WARPS_N warps, each owning MT x NT mma
// tiles of 16 x 8; a STAGES-deep cp.async pipeline of BK-deep tiles
// (mma_mainloop); tiles rasterized for L2 reuse, or for dgemmt / dsyrk only
// those that meet the triangle, diagonal tiles stored masked (mma_store_c).
// Each m16n8k8 is 1024 FP64 fused multiply-adds; the products and sums are
// IEEE double with round to nearest, so results equal the CUDA-core kernel's
// up to the order of the k sum.
//
// Fragments (lane = 4 g + t): a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8,
// t+4) of the 16 x 8 A piece; b0 (t, g), b1 (t+4, g) of the 8 x 8 B piece;
// d (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1). Shared layouts and their
// padding are TcOperand's (gemm_tiling.cuh): conflict-free 64-bit fragment
// loads in each half warp. 16-byte cp.async needs ld % 2 == 0 and a 16-byte
// aligned pointer; other operands are copied 8 bytes at a time. Any shape,
// op pair, leading dimension and offset.
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "gemm_reg_tiled.cuh"
#include "gemm_tiling.cuh"

namespace dla::cuda::detail {
namespace {

// d += a b for one 16x8x8 piece (fragments as in the header).
__device__ __forceinline__ void mma_f64(double (&d)[4], const double (&a)[4],
                                        const double (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
  __trap();  // launch_dgemm never launches this kernel below compute capability 9.0
#endif
}

template <int WARPS_M_, int WARPS_N_, int MT_, int NT_, int BK_, int STAGES_, int MINB_>
struct Dmma {
  static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, MT = MT_, NTL = NT_;
  static constexpr int BK = BK_, STAGES = STAGES_, MINB = MINB_;
  static constexpr int NT = WARPS_M * WARPS_N * 32;  // threads
  static constexpr int WM = 16 * MT, WN = 8 * NTL;    // warp tile
  static constexpr int BM = WARPS_M * WM, BN = WARPS_N * WN;
  static constexpr int kGroup = 8;  // tile rows per rasterization group
  static_assert(BK % 8 == 0);

  template <bool KA, bool KB>
  static constexpr int smem_bytes() {
    return STAGES *
           (TcOperand<BM, BK, NT, KA, double>::kElems + TcOperand<BN, BK, NT, KB, double>::kElems) *
           int(sizeof(double));
  }
  static void launch(stream_t s, const GemmArgs<double>& g);
  static void prepare(int which);
};

struct DmmaGrid {
  int tiles_m, tiles_n;
  bool vecA, vecB;
};

// KA: A is k-contiguous (op T); KB: B is k-contiguous (op N).
template <class Cfg, bool KA, bool KB>
__global__ void __launch_bounds__(Cfg::NT, Cfg::MINB) dmma_kernel(GemmArgs<double> g,
                                                                  DmmaGrid grid) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  constexpr int MT = Cfg::MT, NTL = Cfg::NTL, WM = Cfg::WM, WN = Cfg::WN;
  using OA = TcOperand<BM, BK, Cfg::NT, KA, double>;
  using OB = TcOperand<BN, BK, Cfg::NT, KB, double>;
  extern __shared__ double2 smem_d2[];
  double* As = reinterpret_cast<double*>(smem_d2);
  double* Bs = As + STAGES * OA::kElems;
  const int t = threadIdx.x;

  int tile_m, tile_n;
  if (g.tri != kTriAll) tri_coords(blockIdx.x, grid.tiles_m, grid.tiles_n, g.tri, tile_m, tile_n);
  else tile_coords(blockIdx.x, grid.tiles_m, grid.tiles_n, Cfg::kGroup, tile_m, tile_n);
  const index_t i0 = index_t(tile_m) * BM, j0 = index_t(tile_n) * BN;

  const int warp = t / 32, lane = t % 32, lg = lane / 4, lt = lane % 4;
  const int wrow = (warp % Cfg::WARPS_M) * WM, wcol = (warp / Cfg::WARPS_M) * WN;

  double acc[MT][NTL][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NTL; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0;

  TcOperands<OA, OB> ops(g, grid.vecA, grid.vecB, i0, j0, t);
  mma_mainloop<STAGES, BK>(ops, As, Bs, g, [&](const double* as, const double* bs) {
#pragma unroll
    for (int k8 = 0; k8 < BK; k8 += 8) {
      double b[NTL][2];
#pragma unroll
      for (int j = 0; j < NTL; ++j)
#pragma unroll
        for (int r = 0; r < 2; ++r) b[j][r] = OB::at(bs, wcol + j * 8 + lg, k8 + lt + 4 * r);
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        double a[4];
#pragma unroll
        for (int r = 0; r < 4; ++r)
          a[r] = OA::at(as, wrow + i * 16 + lg + 8 * (r & 1), k8 + lt + 4 * (r >> 1));
#pragma unroll
        for (int j = 0; j < NTL; ++j) mma_f64(acc[i][j], a, b[j]);
      }
    }
  });
  mma_store_c<MT, NTL>(g, acc, i0, j0, wrow, wcol, lg, lt);
}

using DmmaKernel = void (*)(GemmArgs<double>, DmmaGrid);

template <class Cfg>
const DmmaKernel* kernels_of() {
  static const DmmaKernel k[4] = {dmma_kernel<Cfg, false, false>, dmma_kernel<Cfg, false, true>,
                                  dmma_kernel<Cfg, true, false>, dmma_kernel<Cfg, true, true>};
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

template <int WARPS_M, int WARPS_N, int MT, int NTL, int BK, int STAGES, int MINB>
void Dmma<WARPS_M, WARPS_N, MT, NTL, BK, STAGES, MINB>::prepare(int which) {
  static std::mutex mu;
  static unsigned long long done[4] = {0, 0, 0, 0};
  opt_in_once(mu, done[which], reinterpret_cast<const void*>(kernels_of<Dmma>()[which]),
              smem_of<Dmma>(which), 9, "dgemm (FP64 tensor cores)");
}

template <int WARPS_M, int WARPS_N, int MT, int NTL, int BK, int STAGES, int MINB>
void Dmma<WARPS_M, WARPS_N, MT, NTL, BK, STAGES, MINB>::launch(stream_t s,
                                                               const GemmArgs<double>& g) {
  const int which = (g.ta ? 2 : 0) + (g.tb ? 0 : 1);
  const auto [tm, tn, tiles] = launch_tiles(g, BM, BN);
  const DmmaGrid grid{int(tm), int(tn), g.lda % 2 == 0 && aligned16(g.A),
                      g.ldb % 2 == 0 && aligned16(g.B)};
  prepare(which);
  kernels_of<Dmma>()[which]<<<unsigned(tiles), NT, smem_of<Dmma>(which), s>>>(g, grid);
  DLA_CUDA_CHECK_LAUNCH();
}

//                WARPS_M, WARPS_N, MT, NT, BK, STAGES, MINB
using D128x128 = Dmma<2, 4, 4, 4, 16, 4, 1>;  // 256 threads, warp tile 64 x 32
using D64x64 = Dmma<2, 2, 2, 4, 16, 4, 2>;    // 128 threads, warp tile 32 x 32

// DLA_DGEMM=simt: the CUDA-core kernel everywhere (read per call: tests flip it).
bool simt_forced() {
  const char* e = std::getenv("DLA_DGEMM");
  return e != nullptr && std::strcmp(e, "simt") == 0;
}

}  // namespace

std::string dgemm_choice(index_t m, index_t n, int tri) {
  if (simt_forced() || device_limits().cc < 90) return "simt_64x64x8";
  // 128 x 128 tiles once they fill the device (a 64 x 64 tile has a quarter
  // of the work but the same pipeline fill and epilogue).
  const index_t tm = (m + 127) / 128, tn = (n + 127) / 128;
  const index_t tiles = tri == kTriAll ? tm * tn : tri_tile_count(tm, tn, tri);
  return tiles >= device_limits().sm_count ? "dmma_128x128x16_s4" : "dmma_64x64x16_s4";
}

void launch_dgemm(stream_t s, const GemmArgs<double>& g) {
  const std::string c = dgemm_choice(g.m, g.n, g.tri);
  if (c == "dmma_128x128x16_s4") D128x128::launch(s, g);
  else if (c == "dmma_64x64x16_s4") D64x64::launch(s, g);
  else launch_reg_tiled<double, 64, 64, 8, 4, 4>(s, g);
}

}  // namespace dla::cuda::detail
