// sm_partition_stream (sm_partition.cuh): green contexts through the driver
// API, reached with cudaGetDriverEntryPointByVersion so that nothing links
// libcuda. Partitions are process-wide (a mutex guards their creation); the
// streams on them are per host thread, as the look-ahead's other streams are.
#include "sm_partition.cuh"

#include <cuda.h>

#include <map>
#include <mutex>
#include <utility>

namespace dla::cuda::detail {
namespace {

struct GreenApi {
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*get_resource)(CUdevice, CUdevResource*, CUdevResourceType) = nullptr;
  CUresult (*split)(CUdevResource*, unsigned*, const CUdevResource*, CUdevResource*, unsigned,
                    unsigned) = nullptr;
  CUresult (*make_desc)(CUdevResourceDesc*, CUdevResource*, unsigned) = nullptr;
  CUresult (*create)(CUgreenCtx*, CUdevResourceDesc, CUdevice, unsigned) = nullptr;
  CUresult (*stream_create)(CUstream*, CUgreenCtx, unsigned, int) = nullptr;
  bool ok() const {
    return device_get && get_resource && split && make_desc && create && stream_create;
  }
};

template <class F>
void resolve(F& f, const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  // The ABI of the headers compiled against: CUDART_VERSION.
  if (cudaGetDriverEntryPointByVersion(name, &p, CUDART_VERSION, cudaEnableDefault, &q) ==
          cudaSuccess &&
      q == cudaDriverEntryPointSuccess)
    f = reinterpret_cast<F>(p);
  (void)cudaGetLastError();  // a failed lookup leaves no sticky error
}

const GreenApi& green_api() {
  static const GreenApi api = [] {
    GreenApi a;
    resolve(a.device_get, "cuDeviceGet");
    resolve(a.get_resource, "cuDeviceGetDevResource");
    resolve(a.split, "cuDevSmResourceSplitByCount");
    resolve(a.make_desc, "cuDevResourceGenerateDesc");
    resolve(a.create, "cuGreenCtxCreate");
    resolve(a.stream_create, "cuGreenCtxStreamCreate");
    return a;
  }();
  return api;
}

// The green context of at least `sms` SMs on device `dev`, or nullptr.
CUgreenCtx partition(int dev, int sms) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, CUgreenCtx> made;  // nullptr: refused
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(dev, sms);
  if (auto it = made.find(key); it != made.end()) return it->second;
  CUgreenCtx g = nullptr;
  const GreenApi& api = green_api();
  CUdevice d{};
  CUdevResource all{}, part{}, rest{};
  CUdevResourceDesc desc{};
  unsigned groups = 1;
  const bool described =
      api.ok() && sms > 0 && api.device_get(&d, dev) == CUDA_SUCCESS &&
      api.get_resource(d, &all, CU_DEV_RESOURCE_TYPE_SM) == CUDA_SUCCESS &&
      unsigned(sms) < all.sm.smCount &&
      api.split(&part, &groups, &all, &rest, 0, unsigned(sms)) == CUDA_SUCCESS && groups == 1 &&
      api.make_desc(&desc, &part, 1) == CUDA_SUCCESS;
  if (!described || api.create(&g, desc, d, CU_GREEN_CTX_DEFAULT_STREAM) != CUDA_SUCCESS)
    g = nullptr;
  made[key] = g;
  return g;
}

}  // namespace

cudaStream_t sm_partition_stream(int sms) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return nullptr;
  thread_local std::map<std::pair<int, int>, cudaStream_t> streams;
  const auto key = std::make_pair(dev, sms);
  if (auto it = streams.find(key); it != streams.end()) return it->second;
  cudaStream_t s = nullptr;
  if (CUgreenCtx g = partition(dev, sms)) {
    CUstream cs = nullptr;
    if (green_api().stream_create(&cs, g, CU_STREAM_NON_BLOCKING, 0) == CUDA_SUCCESS)
      s = reinterpret_cast<cudaStream_t>(cs);
  }
  streams[key] = s;
  return s;
}

}  // namespace dla::cuda::detail
