// Session 39: what bounds the leaf kernel's load of its 128 x 128 block
// (2.8 us in place, ~5 k cycles alone: docs/cholesky-log.md, sessions 36, 38).
//
// One block of 512 threads loads a 128 x 128 float block of a 4096 x 4096
// column-major matrix (lda 4096, 64 MB) into shared memory with stride 132,
// in three passes of the same code, clock64 and globaltimer after each:
//   pass 0: block X, just written by a kernel on every SM (as in spotrf,
//           where the critical update writes the diagonal block), code cold;
//   pass 1: block X again (code warm, TLB warm, data in L2; loads bypass L1);
//   pass 2: block Y, 1024 columns away, also just written (code warm, a
//           different 2 MB page).
// Forms:
//   0 the library's: 32 unrolled scalar loads per thread into registers,
//     then the shared stores;
//   1 8 float4 loads per thread, unrolled;
//   2 cp.async 16-byte copies in a rolled loop (8 per thread), wait_all;
//   3 cp.async.bulk (TMA, 1D): thread 0 issues 128 column copies of 512 B
//     on one mbarrier; every thread waits on it.
// Each form runs 30 launches at different diagonal offsets; medians printed.
//
// Build: nvcc -O3 -std=c++20 -arch=sm_90 -Icore/include -Ibuild/core/include \
//          experiments/diag-leaf/load_probe.cu -o .carry/load_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>

#include "../common/probe_util.cuh"

constexpr int kN = 4096, kB = 128, kLd = 132, kThreads = 512, kPasses = 3;

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__global__ void writer(float* A, int col0, int col1) {
  // Two block columns (all rows), as the critical update writes one.
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < 2LL * kN * kB;
       e += (long long)gridDim.x * blockDim.x) {
    const int which = int(e / (kN * kB));
    const long long r = e % (kN * kB);
    const int j = (which ? col1 : col0) + int(r / kN), i = int(r % kN);
    A[i + (long long)j * kN] += 1e-7f;
  }
}

template <int Form>
__global__ void __launch_bounds__(kThreads, 1)
    load_kernel(const float* A, int off_x, int off_y, unsigned long long* out, float* sink) {
  extern __shared__ __align__(128) unsigned char smem_raw[];
  float* S = reinterpret_cast<float*>(smem_raw);
  __shared__ __align__(8) unsigned long long mbar;
  const int tid = threadIdx.x;
  unsigned long long c[kPasses + 1], g[kPasses + 1];
  if (Form == 3 && tid == 0) {
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(a));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  c[0] = clock64();
  g[0] = gtime();
#pragma unroll 1
  for (int p = 0; p < kPasses; ++p) {
    const int off = p == 2 ? off_y : off_x;
    const float* B = A + off + (long long)off * kN;
    if (Form == 0) {
      float v[32];
#pragma unroll
      for (int u = 0; u < 32; ++u) {
        const int e = tid + u * kThreads, i = e % kB, j = e / kB;
        v[u] = __ldcg(&B[i + (long long)j * kN]);
      }
#pragma unroll
      for (int u = 0; u < 32; ++u) {
        const int e = tid + u * kThreads, i = e % kB, j = e / kB;
        S[j * kLd + i] = v[u];
      }
    } else if (Form == 1) {
      float4 v[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const int e = tid + u * kThreads, i4 = e % (kB / 4), j = e / (kB / 4);
        v[u] = __ldcg(reinterpret_cast<const float4*>(&B[4 * i4 + (long long)j * kN]));
      }
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const int e = tid + u * kThreads, i4 = e % (kB / 4), j = e / (kB / 4);
        *reinterpret_cast<float4*>(&S[j * kLd + 4 * i4]) = v[u];
      }
    } else if (Form == 2) {
#pragma unroll 1
      for (int u = 0; u < 8; ++u) {
        const int e = tid + u * kThreads, i4 = e % (kB / 4), j = e / (kB / 4);
        const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(&S[j * kLd + 4 * i4]));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d),
                     "l"(&B[4 * i4 + (long long)j * kN]));
      }
      asm volatile("cp.async.commit_group;");
      asm volatile("cp.async.wait_all;" ::: "memory");
    } else {
      const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(&mbar));
      if (tid == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(a),
                     "r"(kB * kB * 4)
                     : "memory");
#pragma unroll 1
        for (int j = 0; j < kB; ++j) {
          const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(&S[j * kLd]));
          asm volatile(
              "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
              "[%3];" ::"r"(d),
              "l"(&B[(long long)j * kN]), "r"(kB * 4), "r"(a)
              : "memory");
        }
      }
      // Wait for phase p (parity p & 1).
      unsigned done = 0;
      while (!done) {
        asm volatile(
            "{ .reg .pred q; mbarrier.try_wait.parity.shared.b64 q, [%1], %2; selp.u32 %0, 1, 0, q; }"
            : "=r"(done)
            : "r"(a), "r"(unsigned(p & 1))
            : "memory");
      }
    }
    __syncthreads();
    c[p + 1] = clock64();
    g[p + 1] = gtime();
    if (tid == 0) sink[p] = S[(tid % kB) * kLd + 5];  // keep the loads
    __syncthreads();  // the next pass overwrites S
  }
  if (tid == 0)
    for (int p = 0; p <= kPasses; ++p) {
      out[p] = c[p];
      out[kPasses + 1 + p] = g[p];
    }
}

template <int Form>
void run(float* A, unsigned long long* d_out, float* sink, const char* name) {
  const int smem = kB * kLd * 4;
  CK(cudaFuncSetAttribute(load_kernel<Form>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<double> cyc[kPasses], ns[kPasses];
  for (int r = 0; r < 31; ++r) {
    const int x = 128 * (r % 16), y = x + 1024;
    writer<<<132 * 4, 256>>>(A, x, y);
    load_kernel<Form><<<1, kThreads, smem>>>(A, x, y, d_out, sink);
    CK(cudaDeviceSynchronize());
    unsigned long long h[2 * (kPasses + 1)];
    CK(cudaMemcpy(h, d_out, sizeof(h), cudaMemcpyDeviceToHost));
    if (r == 0) continue;  // the first launch loads the kernel
    for (int p = 0; p < kPasses; ++p) {
      cyc[p].push_back(double(h[p + 1] - h[p]));
      ns[p].push_back(double(h[kPasses + 2 + p] - h[kPasses + 1 + p]));
    }
  }
  std::printf("%-34s", name);
  for (int p = 0; p < kPasses; ++p) {
    std::sort(cyc[p].begin(), cyc[p].end());
    std::sort(ns[p].begin(), ns[p].end());
    std::printf(" | pass %d: %6.0f cyc %6.2f us (min %5.2f)", p, cyc[p][cyc[p].size() / 2],
                ns[p][ns[p].size() / 2] * 1e-3, ns[p][0] * 1e-3);
  }
  std::printf("\n");
}

int main() {
  float* A = nullptr;
  unsigned long long* d_out = nullptr;
  float* sink = nullptr;
  CK(cudaMalloc(&A, sizeof(float) * kN * kN));
  CK(cudaMalloc(&d_out, 64 * sizeof(unsigned long long)));
  CK(cudaMalloc(&sink, 64 * sizeof(float)));
  probe_make_spd<<<264, 256>>>(A, kN, 3u);
  CK(cudaDeviceSynchronize());
  std::printf("128 x 128 block of a 4096^2 matrix into shared memory, one block of 512 threads\n"
              "(pass 0: just written, code cold; 1: same block again; 2: another block); median of 30\n");
  run<0>(A, d_out, sink, "0 scalar x32, unrolled (library)");
  run<1>(A, d_out, sink, "1 float4 x8, unrolled");
  run<2>(A, d_out, sink, "2 cp.async 16 B, rolled");
  run<3>(A, d_out, sink, "3 cp.async.bulk, 128 x 512 B");
  return 0;
}
