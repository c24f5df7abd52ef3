// Stream-ordered scratch memory for the SGEMM dispatcher: split-K partial
// tiles and packed (re-aligned or transposed) operands. Allocated from a
// memory pool owned by dla, one per device, so the caller's default pool and
// its settings are left alone. The pool keeps up to kKeepBytes reserved
// between calls (so repeated GEMMs do not map and unmap memory at every
// synchronize); anything above that goes back to the driver at the next
// synchronize.
#include <mutex>
#include <vector>

#include "gemm_kernels.cuh"

namespace dla::cuda::detail {
namespace {

constexpr unsigned long long kKeepBytes = 256ull << 20;

cudaMemPool_t pool_of_current_device() {
  static std::mutex mu;
  static std::vector<cudaMemPool_t> pools;
  int dev = 0;
  DLA_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  if (pools.size() <= size_t(dev)) pools.resize(size_t(dev) + 1, nullptr);
  if (pools[size_t(dev)] == nullptr) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t p = nullptr;
    DLA_CUDA_CHECK(cudaMemPoolCreate(&p, &props));
    unsigned long long keep = kKeepBytes;
    DLA_CUDA_CHECK(cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep));
    pools[size_t(dev)] = p;
  }
  return pools[size_t(dev)];
}

}  // namespace

Scratch::Scratch(stream_t s, std::size_t bytes) : stream_(s) {
  if (bytes == 0) return;
  void* p = nullptr;
  const cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, pool_of_current_device(), s);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // out of memory: the caller takes a path without scratch
    return;
  }
  DLA_CUDA_CHECK(e);
  ptr_ = p;
}

Scratch::~Scratch() {
  // Stream-ordered: the memory is reused only after the kernels queued on the
  // stream so far have finished. A destructor must not throw.
  if (ptr_ != nullptr) (void)cudaFreeAsync(ptr_, stream_);
}

}  // namespace dla::cuda::detail
