#pragma once
// Internals shared by the batched kernels: how a kernel finds matrix b
// (strided or pointer array), and the launchers each size class provides.
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "dla/core/cuda_check.hpp"
#include "dla/core/types.hpp"

namespace dla::cuda::batched {

// Matrix b lives at base + b * stride.
template <class T>
struct Strided {
  T* base;
  index_t stride;
  __device__ T* operator()(index_t b) const { return base + b * stride; }
};
// Matrix b lives at ptrs[b].
template <class T>
struct PtrArray {
  T* const* ptrs;
  __device__ T* operator()(index_t b) const { return ptrs[b]; }
};

// No right-hand sides: the getrf instance of a kernel that can also solve.
struct NoRhs {
  __device__ float* operator()(index_t) const { return nullptr; }
};

// |x| for pivot search; NaN ranks below every number (never chosen over one).
template <class T>
__device__ __forceinline__ T pivot_magnitude(T x) {
  return x != x ? T(-1) : (x < T(0) ? -x : x);
}

// Unsigned keys that order like pivot_magnitude, for warp reductions: 0 = not
// a candidate, 1 = NaN (below every number), else |x|'s bits + 2 (IEEE
// magnitudes order as unsigned integers).
__device__ __forceinline__ unsigned pivot_key(float x, bool cand) {
  if (!cand) return 0u;
  return x != x ? 1u : (__float_as_uint(x) & 0x7fffffffu) + 2u;
}
__device__ __forceinline__ unsigned long long pivot_key(double x, bool cand) {
  if (!cand) return 0ull;
  return x != x ? 1ull
                : (static_cast<unsigned long long>(__double_as_longlong(x)) & 0x7fffffffffffffffull) +
                      2ull;
}
__device__ __forceinline__ unsigned warp_max(unsigned v) { return __reduce_max_sync(~0u, v); }
__device__ __forceinline__ unsigned long long warp_max(unsigned long long v) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    const unsigned long long o = __shfl_xor_sync(~0u, v, off);
    v = o > v ? o : v;
  }
  return v;
}
// The warp's pivot (the whole warp calls it): the largest key, ties to the
// lowest position holding it (the host's "first maximum"); INT_MAX when no
// lane of the warp is a candidate. One REDUX each in FP32.
template <class Key>
__device__ __forceinline__ void warp_pivot(Key key, int pos, Key& best, int& best_pos) {
  best = warp_max(key);
  best_pos = __reduce_min_sync(~0u, (key != 0 && key == best) ? pos : INT_MAX);
}

// Division by one value many times (the multipliers of a pivot column, the
// diagonal of a triangular solve): LAPACK's xGETF2 scales the column by 1/p
// when |p| >= sfmin and divides otherwise; this does the same, with a cheaper
// reciprocal in FP32. An IEEE FP32 division is ~10 instructions with a
// slow-path check, on the critical chain of every elimination step; here:
// rcp.approx (one MUFU.RCP, relative error <= 2^-23) and one Newton step (two
// FMAs), so 1/p is within 1 ulp and x * (1/p) within ~1.5 ulp of x / p. Only
// for pivots whose reciprocal is a normal number, 2^-126 <= |p| < 2^126
// (rcp.approx.ftz flushes a subnormal input to an infinite reciprocal, and a
// reciprocal below 2^-126 to zero: a pivot of 2^127 would give multipliers of
// zero). Every other pivot (subnormal, huge, Inf, NaN) is divided by, as
// before. FP64 always divides.
template <class T>
struct Divider {
  T p = T(1), inv = T(1);
  bool fast = false;
  Divider() = default;
  __device__ __forceinline__ explicit Divider(T piv) : p(piv) {
    if constexpr (sizeof(T) == 4) {
      const unsigned mag = __float_as_uint(piv) & 0x7fffffffu;
      fast = mag - 0x00800000u < 0x7e800000u - 0x00800000u;  // 2^-126 <= |p| < 2^126
      float r;
      asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(piv));
      inv = fmaf(r, fmaf(-piv, r, 1.0f), r);
    }
  }
  __device__ __forceinline__ T operator()(T x) const { return fast ? x * inv : x / p; }
};

// A value the compiler cannot see through. Register kernels form their store
// addresses from opaque copies of the matrix pointer and lda: otherwise the
// compiler keeps every load address (64-bit, one per column) live until the
// stores, which costs 64..128 registers and occupancy or spills.
template <class U>
__device__ __forceinline__ U opaque(U x) {
  static_assert(sizeof(U) == 8, "64-bit values only");
  asm volatile("" : "+l"(x));
  return x;
}

// The addresses p, p + step, p + 2 step, ... as a chain of 64-bit adds, for
// the register kernels' loads and stores of a whole row or column. Written as
// p[j * ld] in an unrolled loop, every address took a 64-bit multiply (~7
// SASS instructions per value, and a branch per guarded store): ~25% of the
// instructions of getrf for 100000 matrices of 32 (ncu, session 10). opaque()
// keeps the compiler from rewriting the chain back into multiplies.
template <class T>
struct Walk {
  T* p;
  index_t step;
  __device__ __forceinline__ T* next() {
    T* const q = p;
    p = opaque(p + step);
    return q;
  }
};

// Larger n than this goes to the block kernels.
constexpr index_t kRegisterMaxN = 32;
// getrf and gesv up to this n: a matrix in the registers of one thread
// (n <= 8) or of 2 or 4 threads (batched_tiny.cu).
constexpr int kTinyMaxN = 16;

// ---- launchers (explicitly instantiated for float/double x Strided/PtrArray) ----
// Register-resident kernels, 1 <= n <= 32.
template <class T, class Loc>
void getrf_small(stream_t s, int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                 index_t count);
// getrf + getrs (op N) in one kernel: A read once.
template <class T>
void gesv_small(stream_t s, int n, index_t nrhs, Strided<T> A, index_t lda, std::int32_t* ipiv,
                Strided<T> B, index_t ldb, std::int32_t* info, index_t count);
// A matrix in the registers of 1, 2 or 4 threads, 1 <= n <= kTinyMaxN (batched_tiny.cu).
template <class T, class Loc>
void getrf_tiny(stream_t s, int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                index_t count);
template <class T>
void gesv_tiny(stream_t s, int n, index_t nrhs, Strided<T> A, index_t lda, std::int32_t* ipiv,
               Strided<T> B, index_t ldb, std::int32_t* info, index_t count);
template <class T, class LocA, class LocB>
void getrs_small(stream_t s, int n, index_t nrhs, LocA A, index_t lda, const std::int32_t* ipiv,
                 LocB B, index_t ldb, index_t count);
template <class T, class Loc>
void potrf_small(stream_t s, bool upper, int n, Loc A, index_t lda, std::int32_t* info,
                 index_t count);
template <class T, class LocA, class LocB>
void potrs_small(stream_t s, bool upper, int n, index_t nrhs, LocA A, index_t lda, LocB B,
                 index_t ldb, index_t count);

// One block of ceil(n / 32) warps per matrix, a row per thread in NC (64, or
// 128 in FP32) registers, for kRegisterMaxN < n <= rows_max_n<T>()
// (batched_rows.cu).
template <class T>
constexpr index_t rows_max_n() { return sizeof(T) == 4 ? 128 : 64; }
template <class T, class Loc>
void getrf_rows(stream_t s, int n, Loc A, index_t lda, std::int32_t* ipiv, std::int32_t* info,
                index_t count);
template <class T, class Loc>
void potrf_rows(stream_t s, bool upper, int n, Loc A, index_t lda, std::int32_t* info,
                index_t count);

// One block per matrix (shared memory when the matrix fits, else in place), any n.
template <class T, class Loc>
void getrf_block(stream_t s, index_t n, Loc A, index_t lda, std::int32_t* ipiv,
                 std::int32_t* info, index_t count);
template <class T, class Loc>
void potrf_block(stream_t s, bool upper, index_t n, Loc A, index_t lda, std::int32_t* info,
                 index_t count);
// Blocked (32-column panels in shared memory, trailing update in global
// memory) for matrices that do not fit in shared memory; *_smem: bytes needed.
template <class T>
std::size_t getrf_blocked_smem(index_t n);
template <class T>
std::size_t potrf_blocked_smem(index_t n);
template <class T, class Loc>
void getrf_blocked(stream_t s, index_t n, Loc A, index_t lda, std::int32_t* ipiv,
                   std::int32_t* info, index_t count);
template <class T, class Loc>
void potrf_blocked(stream_t s, bool upper, index_t n, Loc A, index_t lda, std::int32_t* info,
                   index_t count);
// One warp per (matrix, right-hand side), the vector in registers, the factor
// streamed with columns loaded ahead (batched_solve.cu), n <= kLanesMaxN.
constexpr index_t kLanesMaxN = 256;
template <class T, class LocA, class LocB>
void getrs_lanes(stream_t s, bool trans, index_t n, index_t nrhs, LocA A, index_t lda,
                 const std::int32_t* ipiv, LocB B, index_t ldb, index_t count);
template <class T, class LocA, class LocB>
void potrs_lanes(stream_t s, bool upper, index_t n, index_t nrhs, LocA A, index_t lda, LocB B,
                 index_t ldb, index_t count);
// One warp per (matrix, right-hand side); needs n * sizeof(T) <= 48 KB.
// Calls the *_lanes kernels for n <= kLanesMaxN.
template <class T, class LocA, class LocB>
void getrs_warp(stream_t s, bool trans, index_t n, index_t nrhs, LocA A, index_t lda,
                const std::int32_t* ipiv, LocB B, index_t ldb, index_t count);
template <class T, class LocA, class LocB>
void potrs_warp(stream_t s, bool upper, index_t n, index_t nrhs, LocA A, index_t lda, LocB B,
                index_t ldb, index_t count);

// Opts a kernel in to `bytes` of dynamic shared memory when that and the
// kernel's static shared memory exceed the default 48 KB per block (the
// default limit counts both: 48 KB dynamic plus a few hundred static bytes
// fails to launch). Per device and kernel, the static size is read once and
// the opt-in is raised only when a launch needs more than before, so a
// launch costs a map lookup, not two driver calls.
template <class K>
void allow_smem(K kernel, std::size_t bytes) {
  if (bytes == 0) return;
  struct Seen {
    std::size_t static_bytes = 0, opted = 0;
  };
  static std::mutex mu;
  static std::map<std::pair<int, const void*>, Seen> seen;
  int dev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_pair(dev, reinterpret_cast<const void*>(kernel));
  auto it = seen.find(key);
  if (it == seen.end()) {
    cudaFuncAttributes fa{};
    DLA_CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel));
    it = seen.emplace(key, Seen{fa.sharedSizeBytes, 0}).first;
  }
  Seen& k = it->second;
  if (bytes + k.static_bytes > 48 * 1024 && bytes > k.opted) {
    DLA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        int(bytes)));
    k.opted = bytes;
  }
}

// Grid size for `items` units of `per_block` each, capped for grid-stride loops.
inline unsigned grid_for(index_t items, index_t per_block) {
  index_t g = (items + per_block - 1) / per_block;
  const index_t cap = index_t(1) << 30;
  if (g > cap) g = cap;
  return unsigned(g < 1 ? 1 : g);
}

}  // namespace dla::cuda::batched
