// The LU panel's leaf on one thread-block cluster (Hopper), session 6 design.
//
// The strip A[k0:m, k0:k0+w) (w <= NB columns, NB = 32 or 64, M = m - k0
// rows) is spread over ONE cluster of 2 <= CS <= 16 CTAs of 256 threads;
// thread `tid` of CTA `b` owns the R row slots b*S + r*256 + tid (S = 256 R)
// and keeps them in registers. The per-column critical path is what this
// kernel is about (docs/lu.md, session 6): per column one __syncthreads, one
// all-to-all exchange through distributed shared memory, and after it only
// local shared-memory reads.
//
//  * Shifted registers. At column j a thread's row array holds columns
//    j .. j+NB-1 (a[r][0] is column j), and the rank-1 update shifts as it
//    updates: a[c] = a[c+1] - l*u[c+1]. No run-time register index, no
//    per-column selects: NB FMAs per row and column. The multiplier l that
//    drops out goes to shared memory (F[j][slot]); U's row j goes to global
//    memory straight from the pivot row.
//  * Pivot search by 32-bit redux: key = bits(|a|) + 1 (0 for NaN and rows
//    outside the search), max key then min row (first row on ties, as
//    LAPACK's isamax); doubles compare the high word, then the low word.
//  * Push, not pull, and the data is the signal. The owner warp of each
//    CTA's candidate row sends the live part of that row (columns j .. w-1)
//    and its key to every CTA's inbox with st.async, which counts the bytes
//    on the receiver's mbarrier; CTA 0 sends row j the same way. A CTA waits
//    on its own mbarrier until all bytes of the column have arrived (no
//    cluster barrier: cluster.sync() with the release of the remote stores
//    cost ~1300 cycles per column at 16 CTAs), then finds the pivot and
//    reads both rows from its own shared memory. Inboxes and mbarriers are
//    double-buffered by the parity of j: a CTA sends column j+2's data only
//    after receiving column j+1's from everyone, which every CTA sends after
//    its reads of column j.
//  * The L values' row interchanges are applied at the end: LAPACK swaps
//    whole rows (the L columns left of j too). The multipliers sit in F at
//    the slot where they were computed; after the column loop every CTA
//    knows all w pivots, and a slot touched by a later interchange takes its
//    column-c value from the slot its row occupied at step c (followed
//    backwards through the interchanges j' > c, read from the owning CTA's F
//    through distributed shared memory). Untouched slots are written
//    straight from F.
//  * The leaf also applies its interchanges to the panel's other columns
//    (ncl left of the strip, ncr right of it), so the panel recursion above
//    it needs no row-swap kernels.
#include <cooperative_groups.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>

#include "dla/core/cuda_check.hpp"
#include "getrf_internal.cuh"
#include "sfmin.cuh"
#include "smem_vec.cuh"

namespace cg = cooperative_groups;

namespace dla::cuda::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kMaxCS = 16;
using u64 = unsigned long long;

// Ordered key of |v| (larger |v| -> larger key); 0 for NaN, which ranks below
// every number (and below a valid zero, key 1).
__device__ __forceinline__ u64 abs_key(float v) {
  const float a = fabsf(v);
  return a == a ? u64(__float_as_uint(a)) + 1u : 0u;
}
__device__ __forceinline__ u64 abs_key(double v) {
  const double a = fabs(v);
  return a == a ? u64(__double_as_longlong(a)) + 1u : 0u;
}

// Warp-wide arg-max: every lane gets the largest key and the smallest row
// holding it.
template <class T>
__device__ __forceinline__ void warp_argmax(u64& key, int& row) {
  u64 best;
  if constexpr (sizeof(T) == 8) {
    const unsigned hi = __reduce_max_sync(0xffffffffu, unsigned(key >> 32));
    const unsigned lo =
        __reduce_max_sync(0xffffffffu, unsigned(key >> 32) == hi ? unsigned(key) : 0u);
    best = (u64(hi) << 32) | lo;
  } else {
    best = __reduce_max_sync(0xffffffffu, unsigned(key));
  }
  row = int(__reduce_min_sync(0xffffffffu, key == best ? unsigned(row) : unsigned(INT_MAX)));
  key = best;
}

// What every CTA receives per column (parity p = j & 1), written by the
// other CTAs with st.async: each 16-byte store also counts its bytes on the
// receiver's mbarrier full[p], so the data arriving IS the synchronization
// (no cluster barrier, no release fence waiting for remote acknowledgements).
template <class T, int NB>
struct alignas(16) Inbox {
  T row[2][kMaxCS][NB];  // CTA c's candidate row, columns j .. j+NB-1
  T diag[2][NB];         // row j (from CTA 0)
  uint4 kv[2][kMaxCS];   // CTA c's candidate key (lo, hi) and row
  unsigned long long full[2];  // mbarriers, one phase per column of parity p
};
// Only the live part of a row travels: at column j the w - j columns j .. w-1
// (a[0 .. w-j-1]), rounded up to 16-byte chunks.
template <class T>
__device__ __forceinline__ int live_chunks(int w, int j) {
  constexpr int kPer = 16 / int(sizeof(T));
  return (w - j + kPer - 1) / kPer;
}
template <class T>
__device__ __forceinline__ unsigned inbox_bytes(int cs, int chunks) {
  return unsigned(cs) * (16u * unsigned(chunks) + unsigned(sizeof(uint4))) + 16u * unsigned(chunks);
}

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return unsigned(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ unsigned map_rank(unsigned addr, int rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
// 16 bytes into CTA-mapped shared address `dst`, completing 16 bytes of the
// transaction count of the mbarrier at `bar` (same CTA as dst).
__device__ __forceinline__ void st_async16(unsigned dst, uint4 v, unsigned bar) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
      ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void expect_bytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{ .reg .pred P; mbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2; selp.u32 %0, 1, 0, P; }"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

// Copies register row r of a[][] (r a run-time value) to shared memory.
template <class T, int NB, int R>
__device__ __forceinline__ void stage_row(const T (&a)[R][NB], int r, T* dst) {
#pragma unroll
  for (int rr = 0; rr < R; ++rr)
    if (rr == r) {
#pragma unroll
      for (int c = 0; c < NB; ++c) dst[c] = a[rr][c];
    }
}

// One warp sends an NB-vector from local shared memory to the same inbox
// slot (local address `slot`) of every CTA of the cluster.
template <class T, int NB>
__device__ __forceinline__ void push_row(int CS, int lane, const T* src, int chunks,
                                         unsigned slot, unsigned bar) {
  // lane -> (chunk q, first CTA): kMax lanes per row, 32 / kMax rows per pass
  // (no division by the run-time chunk count on the pusher's critical path)
  constexpr int kMax = NB * int(sizeof(T)) / 16;  // 8 or 16
  const int q = lane % kMax;
  if (q >= chunks) return;
  const uint4 v = reinterpret_cast<const uint4*>(src)[q];
  for (int cta = lane / kMax; cta < CS; cta += 32 / kMax)
    st_async16(map_rank(slot + 16u * unsigned(q), cta), v, map_rank(bar, cta));
}

// Per-column clock stamps of thread 0 in CTAs 0 and CS-1 (timing
// experiments only: compile with -DDLA_LEAF_TRACE).
#ifdef DLA_LEAF_TRACE
__device__ long long g_leaf_trace[2][64][8];
#define DLA_LEAF_STAMP(k)                                                             \
  if (tid == 0 && (b == 0 || b == CS - 1) && j < 64) g_leaf_trace[b == 0 ? 0 : 1][j][k] = clock64()
#else
#define DLA_LEAF_STAMP(k) (void)0
#endif

template <class T, int NB, int R>
__global__ void __launch_bounds__(kThreads, 1)
leaf_push_kernel(int M, index_t k0, int w, T* A, index_t lda, std::int32_t* ipiv, int* info,
                 int ncl, int ncr) {
  cg::cluster_group cluster = cg::this_cluster();
  constexpr int S = kThreads * R;  // row slots per CTA
  __shared__ Inbox<T, NB> inbox;
  __shared__ __align__(16) T s_stage[2][NB], s_dstage[2][NB];
  __shared__ u64 s_wkey[2][kWarps];
  __shared__ int s_wrow[2][kWarps];
  __shared__ int s_piv[NB];
  __shared__ int s_list[2 * NB];
  __shared__ int s_nlist;
  constexpr int kMoveCols = 8;  // panel columns per CTA and pass of step 6
  __shared__ int s_mv_dst[2 * NB], s_mv_src[2 * NB];
  __shared__ int s_nmv;
  __shared__ T s_mv[2 * NB * kMoveCols];
  __shared__ unsigned char s_touched[S];
  extern __shared__ __align__(16) unsigned char dyn_smem[];
  T* F = reinterpret_cast<T*>(dyn_smem);  // F[c * S + local slot]: multipliers

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int b = int(cluster.block_rank()), CS = int(cluster.num_blocks());
  const int base = b * S;
  T* A0 = A + k0 + k0 * lda;

  if (tid == 0) {
    for (int q = 0; q < 2; ++q)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&inbox.full[q]))
                   : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // Every CTA must have started (and initialized its mbarriers) before
  // another writes its shared memory: arrive now, wait after the strip load.
  asm volatile("barrier.cluster.arrive.aligned;\n" ::: "memory");
  T a[R][NB];
  int li[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    li[r] = base + r * kThreads + tid;
    const bool ok = li[r] < M;
#pragma unroll
    for (int c = 0; c < NB; ++c) a[r][c] = (ok && c < w) ? A0[li[r] + index_t(c) * lda] : T(0);
  }
  for (int i = tid; i < S; i += kThreads) s_touched[i] = 0;
  int my_info = 0;
  asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");

#pragma unroll 1
  for (int j = 0; j < w; ++j) {
    DLA_LEAF_STAMP(0);
    const int p = j & 1;
    // 1. this CTA's candidate for column j (a[r][0])
    u64 key = 0;
    int row = INT_MAX;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const u64 k = (li[r] >= j && li[r] < M) ? abs_key(a[r][0]) : 0;
      if (k > key) { key = k; row = li[r]; }
    }
    warp_argmax<T>(key, row);
    if (lane == 0) { s_wkey[p][warp] = key; s_wrow[p][warp] = row; }
    __syncthreads();
    key = lane < kWarps ? s_wkey[p][lane] : 0;
    row = lane < kWarps ? s_wrow[p][lane] : INT_MAX;
    warp_argmax<T>(key, row);  // every warp now knows (key, row)
    DLA_LEAF_STAMP(1);

    // 2. send the candidate row, its key, and (CTA 0) row j to every CTA.
    // Every CTA sends a row even without a candidate (key 0): the receivers
    // count bytes.
    const unsigned bar = smem_addr(&inbox.full[p]);
    const int chunks = live_chunks<T>(w, j);
    if (tid == 0) expect_bytes(bar, inbox_bytes<T>(CS, chunks));
    DLA_LEAF_STAMP(2);
    {
      const int local = row - base, otid = key != 0 ? local % kThreads : 0;
      if (warp == otid >> 5) {
        if (key != 0 && lane == (otid & 31)) stage_row<T, NB, R>(a, local / kThreads, s_stage[p]);
        __syncwarp();
        push_row<T, NB>(CS, lane, s_stage[p], chunks, smem_addr(&inbox.row[p][b][0]), bar);
      }
    }
    if (warp == kWarps - 1 && lane < CS)
      st_async16(map_rank(smem_addr(&inbox.kv[p][b]), lane),
                 make_uint4(unsigned(key), unsigned(key >> 32), unsigned(row), 0u),
                 map_rank(bar, lane));
    if (b == 0 && warp == (j >> 5)) {
      if (lane == (j & 31)) stage_row<T, NB, R>(a, 0, s_dstage[p]);
      __syncwarp();
      push_row<T, NB>(CS, lane, s_dstage[p], chunks, smem_addr(&inbox.diag[p][0]), bar);
    }
    wait_parity(bar, unsigned(j >> 1) & 1u);
    DLA_LEAF_STAMP(3);

    // 3. the pivot, from this CTA's own inbox
    {
      const uint4 kv = lane < CS ? inbox.kv[p][lane] : make_uint4(0u, 0u, unsigned(INT_MAX), 0u);
      key = u64(kv.x) | (u64(kv.y) << 32);
      row = int(kv.z);
    }
    const u64 mine = key;
    const int myrow = row;
    warp_argmax<T>(key, row);
    const unsigned win = __ballot_sync(0xffffffffu, mine == key && myrow == row && lane < CS);
    const int piv = key != 0 ? row : j;  // all-NaN column: keep row j, like isamax
    const T* u_src = key != 0 ? &inbox.row[p][__ffs(win) - 1][0] : &inbox.diag[p][0];
    T u[NB];
#pragma unroll
    for (int q = 0; q < NB; q += 4) load4_aligned(u_src + q, u + q);
    const T pivval = u[0];
    DLA_LEAF_STAMP(5);
    if (b == CS - 1) {  // not CTA 0: it already sends row j every column
      if (tid == 0) {
        ipiv[k0 + j] = static_cast<std::int32_t>(k0 + piv + 1);
        if (pivval == T(0) && my_info == 0) my_info = j + 1;
      }
      if (warp == 0)  // U's row j: columns j .. w-1
        for (int c = lane; c < w - j; c += 32) A0[j + index_t(j + c) * lda] = u_src[c];
    }
    if (tid == 0) s_piv[j] = piv;
    // the pivot's slot takes the old row j (slot j itself is finished)
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const bool to_d = li[r] == piv && piv != j;
      if (__any_sync(0xffffffffu, to_d) && to_d) {
#pragma unroll
        for (int c = 0; c < NB; ++c) a[r][c] = inbox.diag[p][c];
      }
    }
    DLA_LEAF_STAMP(6);
    // 4. multipliers and the shifted rank-1 update; a pivot below the
    // smallest normal number is divided by, as in LAPACK's getf2 (its
    // reciprocal would overflow; scaled by 2^64, sfmin.cuh)
    const bool nz = pivval != T(0);
    const T sc = tiny_scale<T>(nz && !(fabs(pivval) >= smallest_normal<T>()));
    const T inv = nz ? T(1) / (pivval * sc) : T(0);
    DLA_LEAF_STAMP(7);
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const bool valid = li[r] > j && li[r] < M;
      const T l = nz ? (a[r][0] * sc) * inv : a[r][0];
      if (valid) F[j * S + r * kThreads + tid] = l;
      const T lu = valid && nz ? l : T(0);
#pragma unroll
      for (int c = 0; c + 1 < NB; ++c) a[r][c] = fma(-lu, u[c + 1], a[r][c + 1]);
      a[r][NB - 1] = T(0);
    }
    DLA_LEAF_STAMP(4);
  }
  if (b == CS - 1 && tid == 0 && my_info != 0 && *info == 0)
    *info = static_cast<int>(k0 + my_info);

  // 5. the multipliers, with the later interchanges applied
  cluster.sync();  // F and s_piv complete in every CTA
  if (tid == 0) s_nlist = 0;
  // slots an interchange j' >= 1 touched (j' itself and its pivot row)
  for (int t = 1 + tid; t < w; t += kThreads) {
    if (t >= base && t < base + S) s_touched[t - base] = 1;
    const int sp = s_piv[t];
    if (sp >= base && sp < base + S) s_touched[sp - base] = 1;
  }
  __syncthreads();
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int local = r * kThreads + tid;
    if (li[r] >= M) continue;
    if (s_touched[local]) {
      s_list[atomicAdd(&s_nlist, 1)] = li[r];
    } else {
      for (int c = 0; c < w && c < li[r]; ++c) A0[li[r] + index_t(c) * lda] = F[c * S + local];
    }
  }
  __syncthreads();
  // touched slot s, column c < s: its row sat at slot v at step c, found by
  // undoing the interchanges w-1 .. c+1. One thread per slot walks c down
  // from w-1, so each chain is walked once (O(w) per slot, not O(w^2)); the
  // values are read 4 columns at a time so the remote reads overlap.
  for (int t = tid; t < s_nlist; t += kThreads) {
    const int s = s_list[t];
    int v = s;
    for (int c_hi = w - 1; c_hi >= 0; c_hi -= 4) {
      T val[4];
      int col[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int c = c_hi - q;
        col[q] = c >= 0 && c < s ? c : -1;
        if (col[q] >= 0) {
          const int owner = v / S;
          val[q] = cluster.map_shared_rank(F, owner)[c * S + (v - owner * S)];
        }
        if (c >= 0) {
          const int pc = s_piv[c];
          v = v == c ? pc : (v == pc ? c : v);
        }
      }
#pragma unroll
      for (int q = 0; q < 4; ++q)
        if (col[q] >= 0) A0[s + index_t(col[q]) * lda] = val[q];
    }
  }

  // 6. the leaf's w interchanges on the panel's other columns: ncl columns
  // left of the strip (L of earlier leaves) and ncr right of it (not yet
  // factored), so the panel recursion needs no row-swap kernels. Slot s
  // ends with the row that sat at src(s) before the leaf (the interchanges
  // undone from w-1 down to 0). Every CTA lists the moved slots; CTA b
  // moves the columns x = b, b + CS, ... (read all, then write all).
  const int nx = ncl + ncr;
  if (nx > 0) {
    if (tid == 0) s_nmv = 0;
    __syncthreads();
    list_moved_rows(s_piv, w, tid, kThreads, &s_nmv, s_mv_dst, s_mv_src);
    __syncthreads();
    const int nmv = s_nmv;
    auto col_of = [&](int x) { return x < ncl ? index_t(x) - ncl : index_t(w + x - ncl); };
    for (int x0 = b; x0 < nx; x0 += CS * kMoveCols) {
      for (int t = tid; t < nmv * kMoveCols; t += kThreads) {
        const int q = t / nmv, i = t - q * nmv, x = x0 + q * CS;
        if (x < nx) s_mv[t] = A0[s_mv_src[i] + col_of(x) * lda];
      }
      __syncthreads();
      for (int t = tid; t < nmv * kMoveCols; t += kThreads) {
        const int q = t / nmv, i = t - q * nmv, x = x0 + q * CS;
        if (x < nx) A0[s_mv_dst[i] + col_of(x) * lda] = s_mv[t];
      }
      __syncthreads();
    }
  }
  cluster.sync();  // no CTA leaves while another may still read its F
}

template <class T, int NB, int R>
std::size_t dyn_bytes() { return sizeof(T) * NB * kThreads * R; }

template <class T, int NB, int R>
cudaLaunchConfig_t config(int cs, cudaLaunchAttribute* attr, cudaStream_t st) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(unsigned(cs));
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = dyn_bytes<T, NB, R>();
  cfg.stream = st;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = unsigned(cs);
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

// Whether clusters of `cs` CTAs of this kernel can run here (cached per
// device, kernel and size; false without clusters or when refused).
template <class T, int NB, int R>
bool cluster_ok(int cs) {
  // 0: not asked yet, 1: yes, -1: no. Written once with the final answer.
  static std::atomic<int> cached[64][kMaxCS + 1] = {};
  int dev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  std::atomic<int>& slot = cached[dev & 63][cs];
  int c = slot.load(std::memory_order_relaxed);
  if (c == 0) {
    c = -1;
    int major = 0;
    DLA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    auto* kern = leaf_push_kernel<T, NB, R>;
    if (major >= 9) {
      DLA_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          int(dyn_bytes<T, NB, R>())));
      if (cs > 8)
        DLA_CUDA_CHECK(
            cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
      cudaLaunchAttribute attr{};
      const cudaLaunchConfig_t cfg = config<T, NB, R>(cs, &attr, nullptr);
      int clusters = 0;
      if (cudaOccupancyMaxActiveClusters(&clusters, kern, &cfg) == cudaSuccess && clusters > 0)
        c = 1;
      (void)cudaGetLastError();  // a refused query leaves no sticky error
    }
    slot.store(c, std::memory_order_relaxed);
  }
  return c > 0;
}

template <class T, int NB, int R>
bool launch(stream_t s, index_t M, index_t k0, int w, T* A, index_t lda, std::int32_t* ipiv,
            int* info, int ncl, int ncr) {
  // At least 2 CTAs: st.async needs a cluster of two or more (a second CTA
  // without rows costs one SM for the strips of <= 256 rows).
  index_t cs = (M + kThreads * R - 1) / (kThreads * R);
  if (cs < 2) cs = 2;
  if (cs > kMaxCS || !cluster_ok<T, NB, R>(int(cs))) return false;
  cudaLaunchAttribute attr{};
  const cudaLaunchConfig_t cfg =
      config<T, NB, R>(int(cs), &attr, reinterpret_cast<cudaStream_t>(s));
  DLA_CUDA_CHECK(
      cudaLaunchKernelEx(&cfg, leaf_push_kernel<T, NB, R>, int(M), k0, w, A, lda, ipiv, info,
                         ncl, ncr));
  DLA_CUDA_CHECK_LAUNCH();
  return true;
}

}  // namespace

template <class T>
int leaf_cluster_width(index_t M) {
  const char* e = std::getenv("DLA_GETRF_LEAF_COLS");  // tuning runs: 32 or 64
  if (e && std::atoi(e) == 32) return kLeafCols;
  return sizeof(T) == 4 && M <= index_t(kMaxCS) * kThreads * 2 ? 2 * kLeafCols : kLeafCols;
}

template <class T>
bool leaf_cluster(stream_t s, index_t m, index_t k0, int w, T* A, index_t lda, std::int32_t* ipiv,
                  int* info, int ncl, int ncr) {
  const index_t M = m - k0;
  constexpr index_t kRows1 = index_t(kMaxCS) * kThreads;  // rows with one row per thread
  if (w > kLeafCols) {  // the wide leaf: float, up to 2 rows per thread
    if constexpr (sizeof(T) == 4) {
      if (w > 2 * kLeafCols) return false;
      if (M <= kRows1) return launch<T, 2 * kLeafCols, 1>(s, M, k0, w, A, lda, ipiv, info, ncl, ncr);
      if (M <= 2 * kRows1)
        return launch<T, 2 * kLeafCols, 2>(s, M, k0, w, A, lda, ipiv, info, ncl, ncr);
    }
    return false;
  }
  if (M <= kRows1) return launch<T, kLeafCols, 1>(s, M, k0, w, A, lda, ipiv, info, ncl, ncr);
  if (M <= 2 * kRows1) return launch<T, kLeafCols, 2>(s, M, k0, w, A, lda, ipiv, info, ncl, ncr);
  if constexpr (sizeof(T) == 4)
    if (M <= 4 * kRows1) return launch<T, kLeafCols, 4>(s, M, k0, w, A, lda, ipiv, info, ncl, ncr);
  return false;
}

template int leaf_cluster_width<float>(index_t);
template int leaf_cluster_width<double>(index_t);
template bool leaf_cluster<float>(stream_t, index_t, index_t, int, float*, index_t,
                                  std::int32_t*, int*, int, int);
template bool leaf_cluster<double>(stream_t, index_t, index_t, int, double*, index_t,
                                   std::int32_t*, int*, int, int);

}  // namespace dla::cuda::detail
