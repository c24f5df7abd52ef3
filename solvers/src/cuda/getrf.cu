// getrf driver: right-looking blocked LU with look-ahead.
//
// Per block column k (width jb) the main stream (the caller's) runs
//   wait(panel k done) -> swaps + TRSM + GEMM on the NEXT panel's columns
//   -> [second stream: factor the next panel] -> swaps + TRSM + GEMM on the
//   rest of the trailing matrix -> swaps of the columns left of panel k,
// so the next panel (the critical path) is factored while the big GEMM runs.
// Events order the two streams; nothing returns to the host.
//
// The block row U12 = L11^-1 A12 (nb >= 128) is not a triangular solve but a
// GEMM with the explicit inverse of the unit lower L11 (as MAGMA does): the
// panel stream computes inv(L11) right after the panel (getrf_inverse.cu, one
// warp per column; a trsm on the identity beyond nb = 256), and every update
// is W = inv(L11) A12 (our GEMM, into scratch) plus a copy back. The recursive trsm on thousands of columns was a
// chain of latency-bound leaf kernels (H200, n = 8192: 9.7 ms of 60, ~300 us
// per block column); the GEMM is ~35 us. |l(i,j)| <= 1 from partial pivoting
// keeps the inverse well-behaved in practice; the backward-error tests are
// the check.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "dla/core/cuda_check.hpp"
#include "dla/solvers/lu_cuda.hpp"
#include "getrf_internal.cuh"

namespace dla::cuda {
namespace {

GetrfProfile g_last_profile;

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

// Events around phases, read after the final synchronize (profile mode only).
class Profiler {
 public:
  enum Phase { kPanel, kSwap, kTrsm, kGemm };
  explicit Profiler(bool on, cudaStream_t s) : on_(on), s_(s) {
    if (on_) { start_ = make(); DLA_CUDA_CHECK(cudaEventRecord(start_, s_)); }
  }
  ~Profiler() {
    for (auto& r : recs_) { cudaEventDestroy(r.a); cudaEventDestroy(r.b); }
    if (start_) cudaEventDestroy(start_);
  }
  template <class F>
  void run(Phase ph, F&& f) {
    if (!on_) return f();
    Rec r{ph, make(), make()};
    DLA_CUDA_CHECK(cudaEventRecord(r.a, s_));
    f();
    DLA_CUDA_CHECK(cudaEventRecord(r.b, s_));
    recs_.push_back(r);
  }
  void finish() {
    if (!on_) return;
    cudaEvent_t end = make();
    DLA_CUDA_CHECK(cudaEventRecord(end, s_));
    DLA_CUDA_CHECK(cudaEventSynchronize(end));
    GetrfProfile p;
    for (auto& r : recs_) {
      float ms = 0;
      DLA_CUDA_CHECK(cudaEventElapsedTime(&ms, r.a, r.b));
      (r.ph == kPanel ? p.panel_ms : r.ph == kSwap ? p.swap_ms : r.ph == kTrsm ? p.trsm_ms
                                                                               : p.gemm_ms) += ms;
    }
    float tot = 0;
    DLA_CUDA_CHECK(cudaEventElapsedTime(&tot, start_, end));
    p.total_ms = tot;
    cudaEventDestroy(end);
    g_last_profile = p;
  }

 private:
  struct Rec { Phase ph; cudaEvent_t a, b; };
  cudaEvent_t make() { cudaEvent_t e; DLA_CUDA_CHECK(cudaEventCreate(&e)); return e; }
  bool on_;
  cudaStream_t s_;
  cudaEvent_t start_ = nullptr;
  std::vector<Rec> recs_;
};

// The panel stream and its two events, created once per host thread and
// device and reused (creating them per call would cost more than a small
// factorization). The panel stream has the highest priority: it is the
// critical path, and its blocks should win free SMs over the trailing GEMM's.
struct SideStream {
  cudaStream_t stream = nullptr;
  cudaEvent_t ev_panel = nullptr, ev_next = nullptr, ev_factored = nullptr;
};
const SideStream& side_stream() {
  thread_local SideStream per_device[64];
  int dev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  SideStream& ss = per_device[dev & 63];
  if (ss.stream == nullptr) {
    int lo = 0, hi = 0;
    DLA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    DLA_CUDA_CHECK(cudaStreamCreateWithPriority(&ss.stream, cudaStreamNonBlocking, hi));
    DLA_CUDA_CHECK(cudaEventCreateWithFlags(&ss.ev_panel, cudaEventDisableTiming));
    DLA_CUDA_CHECK(cudaEventCreateWithFlags(&ss.ev_next, cudaEventDisableTiming));
    DLA_CUDA_CHECK(cudaEventCreateWithFlags(&ss.ev_factored, cudaEventDisableTiming));
  }
  return ss;
}

constexpr index_t kInverseMinNb = 128;  // smaller blocks: one trsm leaf kernel is cheaper

inline std::size_t align256(std::size_t b) { return (b + 255) / 256 * 256; }

template <class T>
__global__ void set_identity_kernel(T* X, index_t ldx, index_t n) {
  const index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (index_t j = blockIdx.y; j < n; j += gridDim.y) X[i + j * ldx] = i == j ? T(1) : T(0);
}

// Scratch of the inverse path: two inv(L11) buffers (the panel stream writes
// block k+1's while the main stream still uses block k's) and W (nb x n).
template <class T>
std::size_t inverse_bytes(index_t m, index_t n) {
  const index_t nb = getrf_block_size(m, n);
  const index_t kmin = m < n ? m : n;
  if (nb < kInverseMinNb || kmin <= 0) return 0;
  return 2 * align256(sizeof(T) * nb * nb) + align256(sizeof(T) * nb * (n > 0 ? n : 1));
}

template <class T>
std::size_t buffer_size(index_t m, index_t n) {
  return align256(detail::panel_workspace_bytes<T>(m > 0 ? m : 1)) + 2 * detail::plan_bytes() +
         inverse_bytes<T>(m, n);
}

// The aligned copy of a misaligned A (getrf_pads, lu_cuda.hpp): its bytes, 0
// where A is aligned or the rule says no.
template <class T>
std::size_t pad_bytes(index_t m, index_t n, const T* A, index_t lda) {
  if (m < 1 || n < 1 || columns_aligned16(A, lda, sizeof(T)) || !getrf_pads(m, n)) return 0;
  if (std::size_t(lda) * sizeof(T) > std::size_t(INT32_MAX)) return 0;  // beyond a 2-D copy's pitch
  return sizeof(T) * std::size_t(aligned_ld(m)) * std::size_t(n);
}

template <class T>
std::size_t buffer_size_for(index_t m, index_t n, const T* A, index_t lda) {
  const std::size_t pad = pad_bytes<T>(m, n, A, lda);
  return pad > 0 ? align256(buffer_size<T>(m, n)) + pad : buffer_size<T>(m, n);
}

// 0, or -i for invalid argument i (lu_cuda.hpp).
template <class T>
int check_args(index_t m, index_t n, const T* A, index_t lda, const std::int32_t* ipiv,
               const int* info) {
  if (m < 0) return -1;
  if (n < 0) return -2;
  const index_t kmin = m < n ? m : n;
  if (kmin > 0 && A == nullptr) return -3;
  if (lda < (m > 1 ? m : 1)) return -4;
  if (kmin > 0 && ipiv == nullptr) return -5;
  if (info == nullptr) return -6;
  if (m > index_t(INT32_MAX) || n > index_t(INT32_MAX)) return m > n ? -1 : -2;
  return 0;
}

// The factorization of A in place (arguments checked).
template <class T>
void getrf_run(stream_t stream, index_t m, index_t n, T* A, index_t lda, std::int32_t* ipiv,
               int* info, void* workspace) {
  const index_t kmin = m < n ? m : n;
  cudaStream_t s0 = reinterpret_cast<cudaStream_t>(stream);
  DLA_CUDA_CHECK(cudaMemsetAsync(info, 0, sizeof(int), s0));
  if (kmin == 0) return;

  const index_t nb = getrf_block_size(m, n);
  const bool profile = env_flag("DLA_GETRF_PROFILE");
  const bool lookahead = !profile && kmin > nb;

  void* ws = workspace;
  if (ws == nullptr) DLA_CUDA_CHECK(cudaMallocAsync(&ws, buffer_size<T>(m, n), s0));

  cudaStream_t s1 = nullptr;
  cudaEvent_t ev_panel = nullptr, ev_next = nullptr, ev_factored = nullptr;
  if (lookahead) {
    const SideStream& side = side_stream();
    s1 = side.stream;
    ev_panel = side.ev_panel;
    ev_next = side.ev_next;
    ev_factored = side.ev_factored;
  }
  // scratch: [leaf candidates][swap plan of the panel stream][swap plan of the main stream]
  int* plan_panel = reinterpret_cast<int*>(
      static_cast<char*>(ws) + align256(detail::panel_workspace_bytes<T>(m > 0 ? m : 1)));
  int* plan_main = reinterpret_cast<int*>(reinterpret_cast<char*>(plan_panel) + detail::plan_bytes());
  // [inv(L11) even][inv(L11) odd][W]
  const bool use_inverse = inverse_bytes<T>(m, n) > 0;
  T* inv_buf[2] = {nullptr, nullptr};
  T* W = nullptr;
  if (use_inverse) {
    char* p = reinterpret_cast<char*>(plan_main) + detail::plan_bytes();
    inv_buf[0] = reinterpret_cast<T*>(p);
    inv_buf[1] = reinterpret_cast<T*>(p + align256(sizeof(T) * nb * nb));
    W = reinterpret_cast<T*>(p + 2 * align256(sizeof(T) * nb * nb));
  }
  auto inv_of = [&](index_t k) { return inv_buf[(k / nb) & 1]; };
  bool planned = false;  // plan_main holds the current panel's swaps
  // The main stream starts a block (swap plan, swaps of the look-ahead
  // columns) once the panel is factored (ev_factored) and waits for its
  // inv(L11) (ev_panel) only before the first U12: the plan and the swaps
  // overlap the inverse on the panel stream.
  bool wait_inverse = false;
  Profiler prof(profile, s0);
  auto at = [&](index_t r, index_t c) { return A + r + c * lda; };
  const stream_t st0 = stream;

  // Panel k's interchanges on columns [c, c+nc), through plan_main when it was made.
  auto swaps = [&](index_t k, index_t jb, index_t c, index_t nc) {
    if (nc <= 0) return;
    if (planned) detail::apply_swap_plan<T>(st0, A, lda, k, c, nc, plan_main);
    else detail::laswp<T>(st0, A, lda, c, nc, k, k + jb, ipiv, true);
  };
  // Applies panel k's swaps, U12 = L11^-1 A12 and A22 -= L21 U12 to columns [c, c+nc).
  auto update = [&](index_t k, index_t jb, index_t c, index_t nc) {
    if (nc <= 0) return;
    prof.run(Profiler::kSwap, [&] { swaps(k, jb, c, nc); });
    if (wait_inverse) {
      DLA_CUDA_CHECK(cudaStreamWaitEvent(s0, ev_panel, 0));
      wait_inverse = false;
    }
    prof.run(Profiler::kTrsm, [&] {
      if (use_inverse) {
        detail::gemm<T>(st0, Op::N, Op::N, jb, nc, jb, T(1), inv_of(k), jb, at(k, c), lda, T(0),
                        W, jb);
        DLA_CUDA_CHECK(cudaMemcpy2DAsync(at(k, c), sizeof(T) * lda, W, sizeof(T) * jb,
                                         sizeof(T) * jb, nc, cudaMemcpyDeviceToDevice, s0));
      } else {
        detail::trsm<T>(st0, Side::Left, Uplo::Lower, Op::N, Diag::Unit, jb, nc, T(1), at(k, k),
                        lda, at(k, c), lda);
      }
    });
    prof.run(Profiler::kGemm, [&] {
      detail::gemm<T>(st0, Op::N, Op::N, m - k - jb, nc, jb, T(-1), at(k + jb, k), lda, at(k, c),
                      lda, T(1), at(k + jb, c), lda);
    });
  };

  // Factors panel k (width jb) on stream st, then (inverse path) inv(L11).
  auto factor_panel = [&](stream_t st, index_t k, index_t jb) {
    detail::panel_factor<T>(st, m, k, jb, A, lda, ipiv, info, ws, plan_panel);
    if (lookahead && k > 0)
      DLA_CUDA_CHECK(cudaEventRecord(ev_factored, reinterpret_cast<cudaStream_t>(st)));
    if (!use_inverse || k + jb >= n) return;  // no columns right of it: no U12
    T* X = inv_of(k);
    if (detail::invert_unit_lower<T>(st, jb, at(k, k), lda, X, jb)) return;
    const dim3 grid(unsigned((jb + 127) / 128), unsigned(jb < 65535 ? jb : 65535));
    set_identity_kernel<T><<<grid, 128, 0, reinterpret_cast<cudaStream_t>(st)>>>(X, jb, jb);
    DLA_CUDA_CHECK_LAUNCH();
    detail::trsm<T>(st, Side::Left, Uplo::Lower, Op::N, Diag::Unit, jb, jb, T(1), at(k, k), lda,
                    X, jb);
  };
  prof.run(Profiler::kPanel, [&] { factor_panel(st0, 0, nb < kmin ? nb : kmin); });
  for (index_t k = 0; k < kmin; k += nb) {
    const index_t jb = nb < kmin - k ? nb : kmin - k;
    const index_t kn = k + jb;
    const index_t jn = nb < kmin - kn ? nb : kmin - kn;  // next panel's width (0: none)
    if (lookahead && k > 0) {
      DLA_CUDA_CHECK(cudaStreamWaitEvent(s0, ev_factored, 0));
      wait_inverse = true;
    }
    prof.run(Profiler::kSwap,
             [&] { planned = detail::make_swap_plan(st0, m, k, kn, ipiv, plan_main); });
    if (jn > 0) {
      update(k, jb, kn, jn);  // look-ahead: the next panel's columns first
      if (lookahead) {
        DLA_CUDA_CHECK(cudaEventRecord(ev_next, s0));
        DLA_CUDA_CHECK(cudaStreamWaitEvent(s1, ev_next, 0));
        factor_panel(reinterpret_cast<stream_t>(s1), kn, jn);
        DLA_CUDA_CHECK(cudaEventRecord(ev_panel, s1));
      } else {
        prof.run(Profiler::kPanel, [&] { factor_panel(st0, kn, jn); });
      }
    }
    update(k, jb, kn + jn, n - kn - jn);  // the rest of the trailing matrix
    if (k > 0)
      prof.run(Profiler::kSwap, [&] { swaps(k, jb, 0, k); });
  }
  if (lookahead) {
    DLA_CUDA_CHECK(cudaEventRecord(ev_panel, s1));
    DLA_CUDA_CHECK(cudaStreamWaitEvent(s0, ev_panel, 0));
  }
  if (workspace == nullptr) DLA_CUDA_CHECK(cudaFreeAsync(ws, s0));
  prof.finish();
}

// Stream-ordered memory for the aligned copy, freed on the stream when done
// (also when the factorization throws).
struct OwnedCopy {
  void* p = nullptr;
  cudaStream_t s = nullptr;
  ~OwnedCopy() {
    if (p != nullptr) cudaFreeAsync(p, s);
  }
};

template <class T>
int getrf_impl(stream_t stream, index_t m, index_t n, T* A, index_t lda, std::int32_t* ipiv,
               int* info, void* workspace, std::size_t workspace_bytes) {
  if (const int r = check_args<T>(m, n, A, lda, ipiv, info); r != 0) return r;
  const std::size_t pad = pad_bytes<T>(m, n, A, lda);
  T* W = nullptr;  // the aligned copy, where it is taken
  OwnedCopy own;
  own.s = reinterpret_cast<cudaStream_t>(stream);
  if (pad > 0 && workspace != nullptr) {
    const std::size_t base = align256(buffer_size<T>(m, n));
    char* p = static_cast<char*>(workspace) + base;
    if (workspace_bytes >= base + pad && reinterpret_cast<std::uintptr_t>(p) % 16 == 0)
      W = reinterpret_cast<T*>(p);
  } else if (pad > 0) {
    // Its own scratch: the copy too, unless the device has no room for it
    // (then in place, as with a small workspace; the error is not sticky).
    if (cudaMallocAsync(&own.p, pad, own.s) == cudaSuccess) W = static_cast<T*>(own.p);
    else (void)cudaGetLastError();
  }
  if (W == nullptr) {
    getrf_run<T>(stream, m, n, A, lda, ipiv, info, workspace);
    return 0;
  }
  const index_t ldw = aligned_ld(m);
  DLA_CUDA_CHECK(cudaMemcpy2DAsync(W, sizeof(T) * ldw, A, sizeof(T) * lda, sizeof(T) * m, n,
                                   cudaMemcpyDeviceToDevice, own.s));
  getrf_run<T>(stream, m, n, W, ldw, ipiv, info, workspace);
  DLA_CUDA_CHECK(cudaMemcpy2DAsync(A, sizeof(T) * lda, W, sizeof(T) * ldw, sizeof(T) * m, n,
                                   cudaMemcpyDeviceToDevice, own.s));
  return 0;
}

}  // namespace

GetrfProfile getrf_last_profile() { return g_last_profile; }

std::size_t sgetrf_buffer_size(index_t m, index_t n) { return buffer_size<float>(m, n); }
std::size_t dgetrf_buffer_size(index_t m, index_t n) { return buffer_size<double>(m, n); }
std::size_t sgetrf_buffer_size(index_t m, index_t n, const float* A, index_t lda) {
  return buffer_size_for<float>(m, n, A, lda);
}
std::size_t dgetrf_buffer_size(index_t m, index_t n, const double* A, index_t lda) {
  return buffer_size_for<double>(m, n, A, lda);
}

int sgetrf(stream_t s, index_t m, index_t n, float* A, index_t lda, std::int32_t* ipiv, int* info,
           void* workspace, std::size_t workspace_bytes) {
  return getrf_impl<float>(s, m, n, A, lda, ipiv, info, workspace, workspace_bytes);
}
int dgetrf(stream_t s, index_t m, index_t n, double* A, index_t lda, std::int32_t* ipiv,
           int* info, void* workspace, std::size_t workspace_bytes) {
  return getrf_impl<double>(s, m, n, A, lda, ipiv, info, workspace, workspace_bytes);
}

}  // namespace dla::cuda
