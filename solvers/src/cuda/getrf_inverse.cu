// inv(L11) for getrf's block row: X = L^-1 for a unit lower triangular L
// (n <= 256; the strictly upper part of L's storage is ignored).
//
// One warp per column c of X, its lanes over rows (lane l holds x[l + 32 t],
// NT = ceil(n/32) registers): forward substitution in column-sweep form,
// x_k final at step k, then x_i -= L(i,k) x_k for i > k. The chain per step
// is one shuffle and one FMA (~30 cycles), so a 128 x 128 inverse should take
// a few us; the columns of L are staged in shared memory ahead of the chain
// (a first version reading them from global memory in the chain took 37 us:
// one L2 round trip per step). It replaces a trsm on the identity whose leaf
// kernel took ~31 us for n = 128 on the H200, on the panel stream's critical
// path (docs/lu.md, session 6).
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "dla/core/cuda_check.hpp"
#include "getrf_internal.cuh"
#include "smem_vec.cuh"

namespace dla::cuda::detail {
namespace {

constexpr int kWarpsPerBlock = 4;

constexpr int kStages = 4;  // chunks of L in flight: 3 loading while one is used

template <class T>
constexpr int chunk_cols() { return 64 / int(sizeof(T)); }  // 16 float, 8 double
template <class T, int NT>
constexpr std::size_t smem_bytes() { return sizeof(T) * kStages * chunk_cols<T>() * 32 * NT; }

template <class T, int NT>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
invert_unit_lower_kernel(int n, const T* __restrict__ L, index_t ldl, T* __restrict__ X,
                         index_t ldx) {
  // L's columns pass through shared memory in chunks of CW columns, kStages
  // of them in flight (cp.async), so no step of the chain waits on a global
  // load. (A first version loaded L from global memory inside the chain:
  // 37 us for n = 128, one L2 round trip per step; a second one with two
  // register-staged buffers: 17 us, each chunk's loads still stalled a warp.)
  constexpr int CW = chunk_cols<T>();
  constexpr int kRows = 32 * NT;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* sL = reinterpret_cast<T*>(smem_raw);  // [kStages][CW][kRows]
  const int lane = threadIdx.x & 31;
  const int c0 = blockIdx.x * kWarpsPerBlock;
  const int c = c0 + (threadIdx.x >> 5);  // warps beyond n still load and sync
  const int nchunks = (n + CW - 1) / CW, first = c0 / CW;
  // Always commits one group (maybe empty) so the group count stays uniform.
  auto issue = [&](int ch) {
    if (ch < nchunks) {
      T* dst = sL + ((ch - first) % kStages) * (CW * kRows);
      for (int e = threadIdx.x; e < CW * kRows; e += 32 * kWarpsPerBlock) {
        const int kk = e / kRows, i = e - kk * kRows, k = ch * CW + kk;
        const bool ok = k < n && i < n && i > k;
        cp_async_elem<T>(dst + e, ok ? L + i + index_t(k) * ldl : L, ok);
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  T x[NT];
#pragma unroll
  for (int t = 0; t < NT; ++t) x[t] = lane + 32 * t == c ? T(1) : T(0);
  for (int q = 0; q < kStages - 1; ++q) issue(first + q);
  int done = 0;  // chunks processed
#pragma unroll
  for (int t = 0; t < NT; ++t) {
    // steps k < c0 change nothing (x_k = 0 in every column of the block)
    for (int s = 0; s < 32 / CW; ++s) {
      const int ch = t * (32 / CW) + s;
      if (ch < first || ch >= nchunks) continue;  // block-uniform
      asm volatile("cp.async.wait_group %0;" ::"n"(kStages - 2) : "memory");
      __syncthreads();  // chunk `done` visible; the buffer of chunk done-1 is free
      issue(ch + kStages - 1);
      const T* buf = sL + (done % kStages) * (CW * kRows);
#pragma unroll
      for (int kk = 0; kk < CW; ++kk) {
        const T xk = __shfl_sync(0xffffffffu, x[t], s * CW + kk);
#pragma unroll
        for (int t2 = t; t2 < NT; ++t2) x[t2] = fma(-buf[kk * kRows + lane + 32 * t2], xk, x[t2]);
      }
      ++done;
    }
  }
  if (c >= n) return;
#pragma unroll
  for (int t = 0; t < NT; ++t) {
    const int i = lane + 32 * t;
    if (i < n) X[i + index_t(c) * ldx] = x[t];
  }
}

template <class T, int NT>
void launch(cudaStream_t st, int n, const T* L, index_t ldl, T* X, index_t ldx) {
  static std::atomic<bool> attr_set[64] = {};
  int dev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  if (!attr_set[dev & 63].load(std::memory_order_relaxed)) {
    DLA_CUDA_CHECK(cudaFuncSetAttribute(invert_unit_lower_kernel<T, NT>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        int(smem_bytes<T, NT>())));
    attr_set[dev & 63].store(true, std::memory_order_relaxed);
  }
  const unsigned blocks = unsigned((n + kWarpsPerBlock - 1) / kWarpsPerBlock);
  invert_unit_lower_kernel<T, NT>
      <<<blocks, 32 * kWarpsPerBlock, smem_bytes<T, NT>(), st>>>(n, L, ldl, X, ldx);
  DLA_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
bool invert_unit_lower(stream_t s, index_t n, const T* L, index_t ldl, T* X, index_t ldx) {
  cudaStream_t st = reinterpret_cast<cudaStream_t>(s);
  if (n <= 0) return true;
  if (n <= 64) launch<T, 2>(st, int(n), L, ldl, X, ldx);
  else if (n <= 128) launch<T, 4>(st, int(n), L, ldl, X, ldx);
  else if (n <= 256) launch<T, 8>(st, int(n), L, ldl, X, ldx);
  else return false;
  return true;
}

template bool invert_unit_lower<float>(stream_t, index_t, const float*, index_t, float*, index_t);
template bool invert_unit_lower<double>(stream_t, index_t, const double*, index_t, double*,
                                        index_t);

}  // namespace dla::cuda::detail
