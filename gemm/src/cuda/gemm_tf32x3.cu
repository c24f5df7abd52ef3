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
// Structure: the mma kernel family of gemm_mma.cuh with the math policy
// Tf32x3Math below, named configs "tf32x3_<BM>x<BN>x<BK>_s<STAGES>". No
// split-K: the dispatcher sends the shapes that would need it, and those
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
#include "gemm_mma.cuh"

namespace dla::cuda::detail {
namespace {

// One BK-deep stage: per k8 step the B fragments of the warp's NTL n tiles
// and, per m tile, the A fragment, each split into hi and lo parts; per group
// of 4 n tiles fresh fragments t8 (small terms first), then acc += t8 with
// FP32 rounding to nearest (see the header).
struct Tf32x3Math {
  using T = float;
  static constexpr int kMinMajor = 8;
  static constexpr const char* kWhat = "sgemm (Fp32Gemm::Tf32x3, TF32 tensor cores)";

  template <class Cfg, class OA, class OB>
  __device__ __forceinline__ static void stage(float (&acc)[Cfg::MT][Cfg::NTL][4],
                                               const float* as, const float* bs, int wrow,
                                               int wcol, int lg, int lt) {
    constexpr int MT = Cfg::MT, NTL = Cfg::NTL;
    static_assert(NTL % 4 == 0, "n tiles go in groups of 4 fresh fragments");
#pragma unroll Cfg::KUNROLL
    for (int k8 = 0; k8 < Cfg::BK; k8 += 8) {
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
#pragma unroll
        for (int j0 = 0; j0 < NTL; j0 += 4)
          mma_tf32x3_n4(&acc[i][j0], ah, al, &bh[j0], &bl[j0]);
      }
    }
  }
};

// Configs: WARPS_M, WARPS_N, MT, NT, BK, STAGES, MINB, KUNROLL.
template <int WARPS_M, int WARPS_N, int MT, int NT, int BK, int STAGES, int MINB, int KUNROLL>
using Tf32x3 = MmaGemm<Tf32x3Math, WARPS_M, WARPS_N, MT, NT, BK, STAGES, MINB, KUNROLL>;

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
