#pragma once
// Pieces shared by the tiled GEMM kernel families (gemm_tuned.cu: FP32 on the
// CUDA cores; gemm_mma.cuh with gemm_tf32x3.cu and gemm_double.cu, and
// gemm_tf32x3_wgmma.cu: the tensor cores): the cp.async copy of an operand
// tile into shared memory (TcOperand, float or double), the k loop's
// pipeline, the mma kernels' epilogue, the mapping from a block index to its
// output tile (rasterized for L2 reuse, or only the tiles that meet a
// triangle), and the host side of a launch (its tile count, the
// shared-memory opt-in). Internal to gemm/src/cuda; the TF32 operand split
// and the mma.sync product are in dla/core/cuda_tf32.cuh.
#include <climits>
#include <mutex>
#include <string>

#include "dla/core/cuda_cp_async.cuh"
#include "dla/core/cuda_tf32.cuh"
#include "dla/core/error.hpp"
#include "gemm_kernels.cuh"

namespace dla::cuda::detail {

// One operand's BO x BK tile (o along m or n, p along k) in shared memory and
// one thread's plan for copying it there. Element (o, p) of the operand is
// X[p + o*ld] when KCONTIG, else X[o + p*ld]; out-of-range elements (o >= O
// or p >= K) become zero. A shared "row" runs along the contiguous dimension
// (p when KCONTIG, o otherwise). Thread t copies the 16-byte pieces (or, when
// !vec, the elements) t, t + NT, ...: consecutive lanes read consecutive
// addresses. The thread keeps one pointer, stepped by a constant per k tile.
// T: float (the FP32 kernels) or double (DGEMM on the FP64 tensor cores).
// Row padding, for conflict-free fragment loads (lane 4 g + t reads element
// (o0 + g, k0 + t)): float rows of BK + 4 / BO + 8 put the lanes on banks
// 4 g + t / 8 t + g; double rows of BK + 4 / BO + 4 put the 16 lanes of each
// half warp (one 64-bit wavefront) on 8-byte words 4 g + t / 4 t + g (mod 16).
template <int BO, int BK, int NT, bool KCONTIG, class T = float>
struct TcOperand {
  using Elem = T;
  static constexpr int kVec = 16 / int(sizeof(T));  // elements per 16-byte piece
  static constexpr int LD = KCONTIG ? BK + 4 : BO + (sizeof(T) == 4 ? 8 : 4);  // per shared row
  static constexpr int kElems = KCONTIG ? BO * LD : BK * LD;  // one stage
  static constexpr int kRowElems = KCONTIG ? BK : BO;
  static constexpr int kStepV = NT / (kRowElems / kVec), kItV = BO * BK / kVec / NT;  // pieces
  static constexpr int kStepS = NT / kRowElems, kItS = BO * BK / NT;                  // elements
  static_assert((BO * BK / kVec) % NT == 0 && NT % (kRowElems / kVec) == 0 &&
                NT % kRowElems == 0);

  __device__ __forceinline__ static T at(const T* S, int o, int p) {
    return KCONTIG ? S[o * LD + p] : S[p * LD + o];
  }

  const T* ptr;     // the thread's first element in the next k tile to copy
  index_t dit;      // pointer step between the thread's rows of one tile
  index_t dk;       // pointer step per k tile
  int sdst, sstep;  // shared offset of the first element, step between rows
  int o, p;         // the thread's first element in the tile
  bool vec;

  __device__ __forceinline__ TcOperand(const T* X, index_t ld, bool vec_ok, index_t o0, int t)
      : vec(vec_ok) {
    const int along = vec ? kVec * (t % (kRowElems / kVec)) : t % kRowElems;
    const int row = vec ? t / (kRowElems / kVec) : t / kRowElems;
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
  __device__ __forceinline__ void copy(T* S, index_t o_left, index_t k_left, const T* X) {
    T* dst = S + sdst;
    const bool full = o_left >= BO && k_left >= BK;
    if (vec) {
      if (full) {  // the main loop's path, kept apart from the edge logic
#pragma unroll
        for (int it = 0; it < kItV; ++it) cp_async16n(dst + it * sstep, ptr + it * dit, 16);
      } else {
        // A piece reads only the elements left in its row (the memory past
        // the operand's last row or column may not exist) and zero-fills the rest.
#pragma unroll 1
        for (int it = 0; it < kItV; ++it) {
          const index_t rrow = (KCONTIG ? o : p) + index_t(it) * kStepV;
          const index_t rem = (KCONTIG ? k_left - p : o_left - o);
          const bool row_in = rrow < (KCONTIG ? o_left : k_left);
          const int bytes = !row_in           ? 0
                            : rem >= kVec    ? 16
                            : rem > 0        ? int(rem) * int(sizeof(T))
                                             : 0;
          cp_async16n(dst + it * sstep, bytes > 0 ? ptr + it * dit : X, bytes);
        }
      }
    } else {
      if (full) {
#pragma unroll
        for (int it = 0; it < kItS; ++it) cp_async_elem(dst + it * sstep, ptr + it * dit, true);
      } else {
#pragma unroll 1
        for (int it = 0; it < kItS; ++it) {
          const index_t rrow = (KCONTIG ? o : p) + index_t(it) * kStepS;
          const bool in = KCONTIG ? (rrow < o_left && p < k_left) : (o < o_left && rrow < k_left);
          cp_async_elem(dst + it * sstep, in ? ptr + it * dit : X, in);
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
  using T = typename OA::Elem;
  OA a;
  OB b;
  index_t m_left, n_left;  // rows of op(A) and columns of op(B) from the tile's first
  __device__ __forceinline__ TcOperands(const GemmArgs<T>& g, bool vecA, bool vecB, index_t i0,
                                        index_t j0, int t)
      : a(g.A, g.lda, vecA, i0, t), b(g.B, g.ldb, vecB, j0, t), m_left(g.m - i0),
        n_left(g.n - j0) {}
  __device__ __forceinline__ void copy(T* As, T* Bs, int stage, index_t p0, const GemmArgs<T>& g) {
    a.copy(As + stage * OA::kElems, m_left, g.k - p0, g.A);
    b.copy(Bs + stage * OB::kElems, n_left, g.k - p0, g.B);
  }
};

// The k loop of the tiled kernels (gemm_tuned.cu, gemm_mma.cuh): a
// STAGES-deep cp.async pipeline over ktiles k tiles. copy(stage, kt) issues
// the copies of k tile kt into pipeline stage `stage`; compute(stage)
// consumes a stage. Before a stage is computed, the copy of the tile STAGES - 1
// ahead is issued into the stage computed last, so STAGES - 1 tiles are in
// flight during each compute.
template <int STAGES, class Copy, class Compute>
__device__ __forceinline__ void cp_async_pipeline(index_t ktiles, Copy&& copy, Compute&& compute) {
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) copy(s, index_t(s));
    cp_async_commit();
  }
  int st = 0, wst = STAGES - 1;  // stage to compute, stage to fill
  for (index_t kt = 0; kt < ktiles; ++kt) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    const index_t nk = kt + STAGES - 1;
    if (nk < ktiles) copy(wst, nk);
    cp_async_commit();
    wst = wst + 1 == STAGES ? 0 : wst + 1;
    compute(st);
    st = st + 1 == STAGES ? 0 : st + 1;
  }
  cp_async_wait<0>();
}

// Epilogue of the mma kernels (gemm_mma.cuh): C = alpha*acc + beta*C (beta == 0 never reads
// C) for a warp's MT x NTL tiles of 16 x 8 (acc[i][j][r]: row lg + 8 (r >> 1),
// column 2 lt + (r & 1) of tile (i, j), lane = 4 lg + lt; the warp tile at
// (wrow, wcol) of the block tile at (i0, j0)). A diagonal tile of a
// triangular launch stores only its elements in the triangle. With beta != 0
// the C loads of one 16-row slice (4 NTL elements) go out before its stores:
// the compiler keeps a load of C behind an earlier store to C, so element by
// element each would wait a memory round trip.
template <int MT, int NTL, class T>
__device__ __forceinline__ void mma_store_c(const GemmArgs<T>& g, const T (&acc)[MT][NTL][4],
                                            index_t i0, index_t j0, int wrow, int wcol, int lg,
                                            int lt) {
  const bool diag_tile = g.tri != kTriAll && i0 == j0;
  auto in_c = [&](int i, int j, int r, index_t& off) {
    const index_t row = i0 + wrow + i * 16 + lg + 8 * (r >> 1);
    const index_t col = j0 + wcol + j * 8 + 2 * lt + (r & 1);
    off = row + col * g.ldc;
    return row < g.m && col < g.n && !(diag_tile && !in_tri(g.tri, row, col));
  };
#pragma unroll
  for (int i = 0; i < MT; ++i) {
    T old[NTL][4];
#pragma unroll
    for (int j = 0; j < NTL; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        index_t off;
        old[j][r] = g.beta != T(0) && in_c(i, j, r, off) ? g.C[off] : T(0);
      }
#pragma unroll
    for (int j = 0; j < NTL; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        index_t off;
        if (!in_c(i, j, r, off)) continue;
        const T v = g.alpha * acc[i][j][r];
        g.C[off] = g.beta == T(0) ? v : v + g.beta * old[j][r];
      }
  }
}

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
template <class T>
LaunchTiles launch_tiles(const GemmArgs<T>& g, int bm, int bn) {
  constexpr const char* kWhat = sizeof(T) == 4 ? "sgemm" : "dgemm";
  const index_t tm = (g.m + bm - 1) / bm, tn = (g.n + bn - 1) / bn;
  index_t tiles = tm * tn;
  if (g.tri != kTriAll) {
    if (bm != bn) throw InvalidArgument(std::string(kWhat) + "t: tile config must be square");
    tiles = tri_tile_count(tm, tn, g.tri);
  }
  if (tiles > index_t(INT32_MAX) / 2)
    throw InvalidArgument(std::string(kWhat) + ": " + std::to_string(tiles) + " tiles of " + std::to_string(bm) +
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
