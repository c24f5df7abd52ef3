// Row interchanges (LAPACK laswp) with the pivots in device memory.
//
// Two kernels:
//  * laswp_cols: one thread per column, the block's pivots staged in shared
//    memory; each thread applies the interchanges to its column in order. Used
//    for the getrf swaps (nb pivots on up to n columns, many columns in flight).
//  * swap plans (getrf's swaps): laswp_plan_kernel, one block, finds for
//    each row an interchange touches (the first npiv rows and the pivot
//    targets) the row whose content ends there, by undoing the interchanges
//    (one thread per row), and writes the list of (dst, src) moves of the
//    rows whose content changes (at most 2 x the pivots); laswp_apply_kernel then moves
//    those rows in many columns at once: all loads of a column, a barrier,
//    all stores, no dependency chain through global memory.
//  * laswp_smem: one block per column with the whole touched row range of the
//    column staged in shared memory (coalesced load/store), the interchanges
//    applied there. Used when there are few columns and many pivots (getrs on
//    a few right-hand sides), where the per-column dependency chain through
//    global memory would dominate.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "dla/core/cuda_check.hpp"
#include "dla/solvers/lu_cuda.hpp"
#include "getrf_internal.cuh"

namespace dla::cuda {
namespace detail {
namespace {

constexpr int kSwapThreads = 64;
constexpr int kPivChunk = 256;

template <class T>
__global__ void __launch_bounds__(kSwapThreads)
laswp_cols(T* A, index_t lda, index_t c0, index_t nc, index_t k1, index_t k2,
           const std::int32_t* ipiv, bool forward) {
  __shared__ std::int32_t s_piv[kPivChunk];
  const index_t c = index_t(blockIdx.x) * kSwapThreads + threadIdx.x;
  const bool act = c < nc;
  T* col = A + (c0 + (act ? c : 0)) * lda;
  const index_t npiv = k2 - k1;
  for (index_t base = 0; base < npiv; base += kPivChunk) {
    const int cnt = int(npiv - base < kPivChunk ? npiv - base : kPivChunk);
    __syncthreads();
    for (int t = threadIdx.x; t < cnt; t += kSwapThreads) {
      const index_t k = forward ? k1 + base + t : k2 - 1 - base - t;
      s_piv[t] = ipiv[k] - 1;
    }
    __syncthreads();
    if (act) {
      for (int t = 0; t < cnt; ++t) {
        const index_t k = forward ? k1 + base + t : k2 - 1 - base - t;
        const index_t p = s_piv[t];
        if (p != k) {
          const T x = col[k];
          const T y = col[p];
          col[k] = y;
          col[p] = x;
        }
      }
    }
  }
}

// Rows [0, nr) of each column, and the pivots, staged in shared memory;
// every pivot target must be < nr.
template <class T>
__global__ void laswp_smem(T* A, index_t lda, index_t nr, index_t k1, index_t k2,
                           const std::int32_t* ipiv, bool forward) {
  extern __shared__ unsigned char s_raw[];
  T* s_col = reinterpret_cast<T*>(s_raw);
  std::int32_t* s_piv = reinterpret_cast<std::int32_t*>(s_raw + sizeof(T) * nr);
  T* col = A + index_t(blockIdx.x) * lda;
  const index_t npiv = k2 - k1;
  for (index_t i = threadIdx.x; i < nr; i += blockDim.x) s_col[i] = col[i];
  for (index_t i = threadIdx.x; i < npiv; i += blockDim.x) s_piv[i] = ipiv[k1 + i] - 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (index_t t = 0; t < npiv; ++t) {
      const index_t i = forward ? t : npiv - 1 - t;
      const index_t k = k1 + i;
      const index_t p = s_piv[i];
      const T x = s_col[k];
      s_col[k] = s_col[p];
      s_col[p] = x;
    }
  }
  __syncthreads();
  for (index_t i = threadIdx.x; i < nr; i += blockDim.x) col[i] = s_col[i];
}


constexpr int kPlanThreads = 256;
constexpr int kPlanMakeThreads = 1024;

// Rows are relative to k1 (every pivot target is below m). Sparse: only the
// rows an interchange touches can move, i.e. rows t < npiv and the pivot
// targets. For each, one thread undoes the interchanges npiv-1 .. 0 to find
// the row whose content ends there (src). A target listed twice gives the
// same move twice, which the apply kernel tolerates (all loads, then all
// stores of equal values). Session 6: a dense version (an index array over
// all m - k1 rows, the interchanges replayed by one thread, then a scan) took
// 14 us for 128 pivots over 8192 rows on the H200, on getrf's critical path.
__global__ void __launch_bounds__(kPlanMakeThreads)
laswp_plan_kernel(index_t k1, int npiv, const std::int32_t* ipiv, int* plan) {
  __shared__ int piv[kPlanMaxPiv];  // relative pivot targets
  __shared__ int s_count;
  const int tid = threadIdx.x;
  for (int t = tid; t < npiv; t += kPlanMakeThreads) piv[t] = int(index_t(ipiv[k1 + t]) - 1 - k1);
  if (tid == 0) s_count = 0;
  __syncthreads();
  int* src = plan + 1;
  int* dst = plan + 1 + 2 * kPlanMaxPiv;
  list_moved_rows(piv, npiv, tid, kPlanMakeThreads, &s_count, dst, src);
  __syncthreads();
  if (tid == 0) plan[0] = s_count;
}

template <class T>
__global__ void __launch_bounds__(kPlanThreads)
laswp_apply_kernel(T* A, index_t lda, index_t k1, index_t c0, index_t nc, int cols_per_block,
                   const int* plan) {
  __shared__ int s_src[2 * kPlanMaxPiv], s_dst[2 * kPlanMaxPiv];
  __shared__ T s_val[2 * kPlanMaxPiv];
  const int tid = threadIdx.x;
  const int cnt = plan[0];
  for (int e = tid; e < cnt; e += kPlanThreads) {
    s_src[e] = plan[1 + e];
    s_dst[e] = plan[1 + 2 * kPlanMaxPiv + e];
  }
  __syncthreads();
  const index_t cbeg = index_t(blockIdx.x) * cols_per_block;
  for (int cc = 0; cc < cols_per_block; ++cc) {
    const index_t c = cbeg + cc;
    if (c >= nc) break;  // uniform over the block
    T* col = A + (c0 + c) * lda + k1;
    for (int e = tid; e < cnt; e += kPlanThreads) s_val[e] = col[s_src[e]];
    __syncthreads();
    for (int e = tid; e < cnt; e += kPlanThreads) col[s_dst[e]] = s_val[e];
    __syncthreads();
  }
}

}  // namespace

bool make_swap_plan(stream_t s, index_t m, index_t k1, index_t k2, const std::int32_t* ipiv,
                    int* plan) {
  const index_t npiv = k2 - k1, nrows = m - k1;
  if (plan == nullptr || npiv <= 0 || npiv > kPlanMaxPiv || nrows < npiv) return false;
  const char* e = std::getenv("DLA_GETRF_SIMPLE_SWAP");
  if (e && *e && std::string(e) != "0") return false;
  laswp_plan_kernel<<<1, kPlanMakeThreads, 0, reinterpret_cast<cudaStream_t>(s)>>>(
      k1, int(npiv), ipiv, plan);
  DLA_CUDA_CHECK_LAUNCH();
  return true;
}

template <class T>
void apply_swap_plan(stream_t s, T* A, index_t lda, index_t k1, index_t c0, index_t nc,
                     const int* plan) {
  if (nc <= 0) return;
  constexpr index_t kMaxBlocks = 2048;
  const int per = int((nc + kMaxBlocks - 1) / kMaxBlocks);
  const index_t blocks = (nc + per - 1) / per;
  laswp_apply_kernel<T><<<unsigned(blocks), kPlanThreads, 0, reinterpret_cast<cudaStream_t>(s)>>>(
      A, lda, k1, c0, nc, per, plan);
  DLA_CUDA_CHECK_LAUNCH();
}

template <class T>
void swap_rows(stream_t s, T* A, index_t lda, index_t m, index_t c0, index_t nc, index_t k1,
               index_t k2, const std::int32_t* ipiv, int* plan) {
  if (nc <= 0 || k2 <= k1) return;
  if (make_swap_plan(s, m, k1, k2, ipiv, plan)) apply_swap_plan<T>(s, A, lda, k1, c0, nc, plan);
  else laswp<T>(s, A, lda, c0, nc, k1, k2, ipiv, true);
}

template void apply_swap_plan<float>(stream_t, float*, index_t, index_t, index_t, index_t,
                                     const int*);
template void apply_swap_plan<double>(stream_t, double*, index_t, index_t, index_t, index_t,
                                      const int*);
template void swap_rows<float>(stream_t, float*, index_t, index_t, index_t, index_t, index_t,
                               index_t, const std::int32_t*, int*);
template void swap_rows<double>(stream_t, double*, index_t, index_t, index_t, index_t, index_t,
                                index_t, const std::int32_t*, int*);

template <class T>
void laswp(stream_t s, T* A, index_t lda, index_t c0, index_t nc, index_t k1, index_t k2,
           const std::int32_t* ipiv, bool forward) {
  if (nc <= 0 || k2 <= k1) return;
  const dim3 grid(unsigned((nc + kSwapThreads - 1) / kSwapThreads));
  laswp_cols<T><<<grid, kSwapThreads, 0, reinterpret_cast<cudaStream_t>(s)>>>(A, lda, c0, nc, k1,
                                                                              k2, ipiv, forward);
  DLA_CUDA_CHECK_LAUNCH();
}

// For a few columns: the shared-memory kernel when the rows [0, nr) fit.
template <class T>
void laswp_few_columns(stream_t s, T* A, index_t lda, index_t nc, index_t nr, index_t k1,
                       index_t k2, const std::int32_t* ipiv, bool forward) {
  if (nc <= 0 || k2 <= k1) return;
  const std::size_t bytes = sizeof(T) * std::size_t(nr) + sizeof(std::int32_t) * std::size_t(k2 - k1);
  constexpr std::size_t kMaxSmem = 200 * 1024;
  if (nc >= 4 * kSwapThreads || bytes > kMaxSmem || nc > 65535)
    return laswp<T>(s, A, lda, 0, nc, k1, k2, ipiv, forward);
  DLA_CUDA_CHECK(cudaFuncSetAttribute(laswp_smem<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      int(kMaxSmem)));
  laswp_smem<T><<<unsigned(nc), 256, bytes, reinterpret_cast<cudaStream_t>(s)>>>(A, lda, nr, k1,
                                                                                 k2, ipiv, forward);
  DLA_CUDA_CHECK_LAUNCH();
}

template void laswp<float>(stream_t, float*, index_t, index_t, index_t, index_t, index_t,
                           const std::int32_t*, bool);
template void laswp<double>(stream_t, double*, index_t, index_t, index_t, index_t, index_t,
                            const std::int32_t*, bool);
template void laswp_few_columns<float>(stream_t, float*, index_t, index_t, index_t, index_t,
                                       index_t, const std::int32_t*, bool);
template void laswp_few_columns<double>(stream_t, double*, index_t, index_t, index_t, index_t,
                                        index_t, const std::int32_t*, bool);

}  // namespace detail

namespace {
template <class T>
int laswp_api(stream_t s, index_t n, T* A, index_t lda, index_t k1, index_t k2,
              const std::int32_t* ipiv, bool forward) {
  if (n < 0) return -1;
  if (n > 0 && A == nullptr) return -2;
  if (lda < 1) return -3;
  if (k1 < 0) return -4;
  if (k2 < k1) return -5;
  if (k2 > k1 && ipiv == nullptr) return -6;
  detail::laswp<T>(s, A, lda, 0, n, k1, k2, ipiv, forward);
  return 0;
}
}  // namespace

int slaswp(stream_t s, index_t n, float* A, index_t lda, index_t k1, index_t k2,
           const std::int32_t* ipiv, bool forward) {
  return laswp_api<float>(s, n, A, lda, k1, k2, ipiv, forward);
}
int dlaswp(stream_t s, index_t n, double* A, index_t lda, index_t k1, index_t k2,
           const std::int32_t* ipiv, bool forward) {
  return laswp_api<double>(s, n, A, lda, k1, k2, ipiv, forward);
}

}  // namespace dla::cuda
