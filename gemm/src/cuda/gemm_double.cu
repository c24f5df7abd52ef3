// DGEMM. On compute capability 9.0 and newer (in a build with sm_90 code): the
// FP64 tensor cores (mma.sync.m16n8k8.f64), named configs
// "dmma_<BM>x<BN>x<BK>_s<STAGES>". Elsewhere (and with DLA_DGEMM=simt, for
// comparison runs): the register-tiled CUDA-core kernel (64x64x8 block tile,
// 4x4 outputs per thread, 256 threads).
//
// The tensor-core kernel is the mma kernel family of gemm_mma.cuh (shared
// with the 3xTF32 kernels) with the math policy Fp64Math below: no operand
// split, one m16n8k8 per 16 x 8 x 8 piece. Each is 1024 FP64 fused
// multiply-adds; the products and sums are IEEE double with round to nearest,
// so results equal the CUDA-core kernel's up to the order of the k sum.
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

#include "gemm_mma.cuh"
#include "gemm_reg_tiled.cuh"

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

// One BK-deep stage: per k8 step the B fragments of the warp's NTL n tiles,
// then per m tile the A fragment and NTL mma.
struct Fp64Math {
  using T = double;
  static constexpr int kMinMajor = 9;
  static constexpr const char* kWhat = "dgemm (FP64 tensor cores)";

  template <class Cfg, class OA, class OB>
  __device__ __forceinline__ static void stage(double (&acc)[Cfg::MT][Cfg::NTL][4],
                                               const double* as, const double* bs, int wrow,
                                               int wcol, int lg, int lt) {
#pragma unroll
    for (int k8 = 0; k8 < Cfg::BK; k8 += 8) {
      double b[Cfg::NTL][2];
#pragma unroll
      for (int j = 0; j < Cfg::NTL; ++j)
#pragma unroll
        for (int r = 0; r < 2; ++r) b[j][r] = OB::at(bs, wcol + j * 8 + lg, k8 + lt + 4 * r);
#pragma unroll
      for (int i = 0; i < Cfg::MT; ++i) {
        double a[4];
#pragma unroll
        for (int r = 0; r < 4; ++r)
          a[r] = OA::at(as, wrow + i * 16 + lg + 8 * (r & 1), k8 + lt + 4 * (r >> 1));
#pragma unroll
        for (int j = 0; j < Cfg::NTL; ++j) mma_f64(acc[i][j], a, b[j]);
      }
    }
  }
};

//                           WARPS_M, WARPS_N, MT, NT, BK, STAGES, MINB
using D128x128 = MmaGemm<Fp64Math, 2, 4, 4, 4, 16, 4, 1>;  // 256 threads, warp tile 64 x 32
using D64x64 = MmaGemm<Fp64Math, 2, 2, 2, 4, 16, 4, 2>;    // 128 threads, warp tile 32 x 32

// DLA_DGEMM=simt: the CUDA-core kernel everywhere (read per call: tests flip it).
bool simt_forced() {
  const char* e = std::getenv("DLA_DGEMM");
  return e != nullptr && std::strcmp(e, "simt") == 0;
}

// Whether the tensor-core kernel holds real code: the f64 m16n8k8 shape
// needs sm_90, so a build for older architectures only (a user-set
// CMAKE_CUDA_ARCHITECTURES) has the trap stub, even on a 9.0 device (PTX JIT).
bool dmma_compiled() {
  static const bool v = [] {
    cudaFuncAttributes a{};
    return cudaFuncGetAttributes(&a, mma_kernel<D64x64, false, false>) == cudaSuccess &&
           a.ptxVersion >= 90;
  }();
  return v;
}

enum class DgemmKernel { Simt, Dmma64, Dmma128 };

DgemmKernel pick_kernel(index_t m, index_t n, int tri) {
  if (simt_forced() || device_limits().cc < 90 || !dmma_compiled()) return DgemmKernel::Simt;
  // 128 x 128 tiles once they fill the device (a 64 x 64 tile has a quarter
  // of the work but the same pipeline fill and epilogue).
  const index_t tm = (m + 127) / 128, tn = (n + 127) / 128;
  const index_t tiles = tri == kTriAll ? tm * tn : tri_tile_count(tm, tn, tri);
  return tiles >= device_limits().sm_count ? DgemmKernel::Dmma128 : DgemmKernel::Dmma64;
}

}  // namespace

std::string dgemm_choice(index_t m, index_t n, int tri) {
  switch (pick_kernel(m, n, tri)) {
    case DgemmKernel::Dmma128: return "dmma_128x128x16_s4";
    case DgemmKernel::Dmma64: return "dmma_64x64x16_s4";
    default: return "simt_64x64x8";
  }
}

void launch_dgemm(stream_t s, const GemmArgs<double>& g) {
  switch (pick_kernel(g.m, g.n, g.tri)) {
    case DgemmKernel::Dmma128: D128x128::launch(s, g); break;
    case DgemmKernel::Dmma64: D64x64::launch(s, g); break;
    default: launch_reg_tiled<double, 64, 64, 8, 4, 4>(s, g);
  }
}

}  // namespace dla::cuda::detail
