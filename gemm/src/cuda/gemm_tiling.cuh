#pragma once
// Pieces shared by the tiled GEMM kernel families (gemm_tuned.cu: FP32 on the
// CUDA cores; gemm_tf32x3.cu and gemm_tf32x3_wgmma.cu: FP32 emulated on the
// tensor cores): the TF32 operand split, the cp.async copy
// of an operand tile into shared memory (TcOperand), the mapping from a block
// index to its output tile (rasterized for L2 reuse, or only the tiles that
// meet a triangle), and the host side of a launch (its tile count, the
// shared-memory opt-in). Internal to gemm/src/cuda.
#include <climits>
#include <mutex>
#include <string>

#include "dla/core/cuda_cp_async.cuh"
#include "dla/core/error.hpp"
#include "gemm_kernels.cuh"

namespace dla::cuda::detail {

// x = hi + lo + r, hi and lo TF32 (their low 13 bits zero), |r| <= 2^-22 |x|
// (the operand split of the 3xTF32 kernels).
__device__ __forceinline__ void split_tf32(float x, unsigned& hi, unsigned& lo) {
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(hi) : "f"(x));
  const float rest = x - __uint_as_float(hi);
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(lo) : "f"(rest));
}

// One operand's BO x BK tile (o along m or n, p along k) in shared memory and
// one thread's plan for copying it there. Element (o, p) of the operand is
// X[p + o*ld] when KCONTIG, else X[o + p*ld]; out-of-range elements (o >= O
// or p >= K) become zero. A shared "row" runs along the contiguous dimension
// (p when KCONTIG, o otherwise). Thread t copies the 16-byte pieces (or, when
// !vec, the elements) t, t + NT, ...: consecutive lanes read consecutive
// addresses. The thread keeps one pointer, stepped by a constant per k tile.
template <int BO, int BK, int NT, bool KCONTIG>
struct TcOperand {
  static constexpr int LD = KCONTIG ? BK + 4 : BO + 8;     // floats per shared row
  static constexpr int kFloats = KCONTIG ? BO * LD : BK * LD;  // one stage
  static constexpr int kRowElems = KCONTIG ? BK : BO;
  static constexpr int kStepV = NT / (kRowElems / 4), kItV = BO * BK / 4 / NT;  // 16-byte pieces
  static constexpr int kStepS = NT / kRowElems, kItS = BO * BK / NT;            // elements
  static_assert((BO * BK / 4) % NT == 0 && NT % (kRowElems / 4) == 0 && NT % kRowElems == 0);

  __device__ __forceinline__ static float at(const float* S, int o, int p) {
    return KCONTIG ? S[o * LD + p] : S[p * LD + o];
  }

  const float* ptr;  // the thread's first element in the next k tile to copy
  index_t dit;       // pointer step between the thread's rows of one tile
  index_t dk;        // pointer step per k tile
  int sdst, sstep;   // shared offset of the first element, step between rows
  int o, p;          // the thread's first element in the tile
  bool vec;

  __device__ __forceinline__ TcOperand(const float* X, index_t ld, bool vec_ok, index_t o0, int t)
      : vec(vec_ok) {
    const int along = vec ? 4 * (t % (kRowElems / 4)) : t % kRowElems;
    const int row = vec ? t / (kRowElems / 4) : t / kRowElems;
    const int rstep = vec ? kStepV : kStepS;
    o = KCONTIG ? row : along;
    p = KCONTIG ? along : row;
    ptr = KCONTIG ? X + p + (o0 + o) * ld : X + (o0 + o) + p * ld;
    dit = index_t(rstep) * ld;  // a shared row is a column of X either way
    dk = KCONTIG ? index_t(BK) : index_t(BK) * ld;
    sdst = row * LD + along;
    sstep = rstep * LD;
  }

  // Copies the next k tile into S (one stage). o_left = O - o0, k_left = K - p0
  // (elements of the operand left from the tile's first row/column).
  __device__ __forceinline__ void copy(float* S, index_t o_left, index_t k_left, const float* X) {
    float* dst = S + sdst;
    const bool full = o_left >= BO && k_left >= BK;
    if (vec) {
      if (full) {  // the main loop's path, kept apart from the edge logic
#pragma unroll
        for (int it = 0; it < kItV; ++it) cp_async16n(dst + it * sstep, ptr + it * dit, 16);
      } else {
        // A piece reads only the 0-3 elements left in its row (the memory past
        // the operand's last row or column may not exist) and zero-fills the rest.
#pragma unroll 1
        for (int it = 0; it < kItV; ++it) {
          const index_t rrow = (KCONTIG ? o : p) + index_t(it) * kStepV;
          const index_t rem = (KCONTIG ? k_left - p : o_left - o);
          const bool row_in = rrow < (KCONTIG ? o_left : k_left);
          const int bytes = !row_in ? 0 : rem >= 4 ? 16 : rem > 0 ? int(rem) * 4 : 0;
          cp_async16n(dst + it * sstep, bytes > 0 ? ptr + it * dit : X, bytes);
        }
      }
    } else {
      if (full) {
#pragma unroll
        for (int it = 0; it < kItS; ++it) cp_async4(dst + it * sstep, ptr + it * dit, true);
      } else {
#pragma unroll 1
        for (int it = 0; it < kItS; ++it) {
          const index_t rrow = (KCONTIG ? o : p) + index_t(it) * kStepS;
          const bool in = KCONTIG ? (rrow < o_left && p < k_left) : (o < o_left && rrow < k_left);
          cp_async4(dst + it * sstep, in ? ptr + it * dit : X, in);
        }
      }
    }
    ptr += dk;
  }
};

// One block's copy plans for both operands (A: BM x BK, B: BN x BK) and the
// copy of one k tile into pipeline stage `stage` (As/Bs: the stages' bases).
template <class OA, class OB>
struct TcOperands {
  OA a;
  OB b;
  index_t m_left, n_left;  // rows of op(A) and columns of op(B) from the tile's first
  __device__ __forceinline__ TcOperands(const GemmArgs<float>& g, bool vecA, bool vecB,
                                        index_t i0, index_t j0, int t)
      : a(g.A, g.lda, vecA, i0, t), b(g.B, g.ldb, vecB, j0, t), m_left(g.m - i0),
        n_left(g.n - j0) {}
  __device__ __forceinline__ void copy(float* As, float* Bs, int stage, index_t p0,
                                       const GemmArgs<float>& g) {
    a.copy(As + stage * OA::kFloats, m_left, g.k - p0, g.A);
    b.copy(Bs + stage * OB::kFloats, n_left, g.k - p0, g.B);
  }
};

// Tile (tile_m, tile_n) of the tile-th block in rasterized order: groups of
// `group` tile rows walk across n together (L2 reuse of the A panel and B columns).
__device__ __forceinline__ void tile_coords(int tile, int tiles_m, int tiles_n, int group,
                                            int& tile_m, int& tile_n) {
  const int per_group = group * tiles_n;
  const int first_m = (tile / per_group) * group;
  const int gm = min(tiles_m - first_m, group);
  tile_m = first_m + (tile % per_group) % gm;
  tile_n = (tile % per_group) / gm;
}

// Triangular launches (g.tri, BM == BN): only the tiles that meet the
// triangle, numbered along tile columns for the lower part (column c holds
// the tiles_m - c tiles of rows c..) and along tile rows for the upper part
// (row c holds the tiles_n - c tiles of columns c..). The major index is the
// root of the quadratic start(c) = c L - c (c - 1) / 2 <= tile, corrected
// by at most a step or two for rounding.
__device__ __forceinline__ void tri_coords(int tile, int tiles_m, int tiles_n, int tri,
                                           int& tile_m, int& tile_n) {
  const long long L = tri == kTriLower ? tiles_m : tiles_n;
  const long long S = min(tiles_m, tiles_n);
  auto start = [L](long long c) { return c * L - c * (c - 1) / 2; };
  const double b = 2.0 * double(L) + 1.0;
  long long c = static_cast<long long>((b - sqrt(b * b - 8.0 * double(tile))) / 2.0);
  c = c < 0 ? 0 : c >= S ? S - 1 : c;
  while (c > 0 && start(c) > tile) --c;
  while (c + 1 < S && start(c + 1) <= tile) ++c;
  const int o = int(tile - start(c));
  tile_m = tri == kTriLower ? int(c) + o : int(c);
  tile_n = tri == kTriLower ? int(c) : int(c) + o;
}

// The output tiles of a bm x bn tiling of C: tm x tn, or for a triangular
// launch (which needs square tiles) only those that meet the triangle.
// Throws when they would not fit one launch.
struct LaunchTiles {
  index_t tm, tn, tiles;
};
inline LaunchTiles launch_tiles(const GemmArgs<float>& g, int bm, int bn) {
  const index_t tm = (g.m + bm - 1) / bm, tn = (g.n + bn - 1) / bn;
  index_t tiles = tm * tn;
  if (g.tri != kTriAll) {
    if (bm != bn) throw InvalidArgument("sgemmt: tile config must be square");
    tiles = tri_tile_count(tm, tn, g.tri);
  }
  if (tiles > index_t(INT32_MAX) / 2)
    throw InvalidArgument("sgemm: " + std::to_string(tiles) + " tiles of " + std::to_string(bm) +
                          "x" + std::to_string(bn) + " exceed one launch");
  return {tm, tn, tiles};
}

// Opts `kernel` in to `bytes` of dynamic shared memory and the largest
// carveout (so that its blocks per SM fit), once per device: `done` holds a
// bit per device (devices >= 64 redo it each call), guarded by `mu`. Throws
// DeviceError when the device allows less, or when its compute capability is
// below `min_major`.
inline void opt_in_once(std::mutex& mu, unsigned long long& done, const void* kernel, int bytes,
                        int min_major, const char* what) {
  int dev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  if (dev < 64 && (done & (1ull << dev))) return;
  if (min_major > 0) {
    int major = 0;
    DLA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    if (major < min_major)
      throw DeviceError(std::string(what) + " needs compute capability " +
                        std::to_string(min_major) + ".0 or newer; device " + std::to_string(dev) +
                        " has " + std::to_string(major) + ".x");
  }
  if (bytes > device_limits().smem_optin)
    throw DeviceError(std::string(what) + ": tile config needs " + std::to_string(bytes) +
                      " bytes of shared memory, the device allows " +
                      std::to_string(device_limits().smem_optin));
  DLA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  DLA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      int(cudaSharedmemCarveoutMaxShared)));
  if (dev < 64) done |= 1ull << dev;
}

}  // namespace dla::cuda::detail
