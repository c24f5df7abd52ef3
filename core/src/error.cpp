#include "dla/core/error.hpp"

#include <string>

#include "dla/core/config.hpp"
#include "dla/core/types.hpp"
#if DLA_HAVE_CUDA
#include "dla/core/cuda_check.hpp"
#endif

namespace dla {

const char* to_string(Backend b) {
  switch (b) {
    case Backend::Auto: return "auto";
    case Backend::Cuda: return "cuda";
    case Backend::Host: return "host";
  }
  return "?";
}

const char* to_string(Op op) { return op == Op::N ? "N" : "T"; }

void throw_bad_argument(const char* routine, std::int64_t info) {
  throw InvalidArgument(std::string(routine) + ": argument " + std::to_string(-info) +
                        " has an illegal value");
}

#if DLA_HAVE_CUDA
namespace detail {
void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  cudaGetLastError();  // clear a sticky launch error so later calls are not blamed
  std::string msg = std::string("CUDA error ") + cudaGetErrorName(err) + " (" +
                    cudaGetErrorString(err) + ") in " + expr + " at " + file + ":" +
                    std::to_string(line);
  if (err == cudaErrorMemoryAllocation) throw OutOfDeviceMemory(msg);
  throw DeviceError(msg);
}
}  // namespace detail
#endif

}  // namespace dla
