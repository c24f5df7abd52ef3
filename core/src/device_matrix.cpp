#include "dla/core/device_matrix.hpp"

#include <string>

#include "dla/core/config.hpp"
#include "dla/core/error.hpp"
#if DLA_HAVE_CUDA
#include "dla/core/cuda_check.hpp"
#endif

namespace dla {
namespace detail {

void* device_alloc(std::size_t bytes) {
#if DLA_HAVE_CUDA
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw OutOfDeviceMemory("device allocation of " + std::to_string(bytes) +
                            " bytes failed: out of device memory");
  }
  DLA_CUDA_CHECK(e);
  return p;
#else
  (void)bytes;
  throw NotCompiled("device memory requested, but this build of dla has no CUDA support");
#endif
}

void device_free(void* p) noexcept {
#if DLA_HAVE_CUDA
  if (p) cudaFree(p);
#else
  (void)p;
#endif
}

void copy_2d(void* dst, index_t dld, const void* src, index_t sld, index_t rows, index_t cols,
             std::size_t elem, int kind, stream_t stream) {
  if (rows <= 0 || cols <= 0) return;
#if DLA_HAVE_CUDA
  const cudaMemcpyKind k = kind == kHostToDevice   ? cudaMemcpyHostToDevice
                           : kind == kDeviceToHost ? cudaMemcpyDeviceToHost
                                                   : cudaMemcpyDeviceToDevice;
  DLA_CUDA_CHECK(cudaMemcpy2DAsync(dst, std::size_t(dld) * elem, src, std::size_t(sld) * elem,
                                   std::size_t(rows) * elem, std::size_t(cols), k, stream));
  DLA_CUDA_CHECK(cudaStreamSynchronize(stream));
#else
  (void)dst; (void)dld; (void)src; (void)sld; (void)elem; (void)kind; (void)stream;
  throw NotCompiled("device copy requested, but this build of dla has no CUDA support");
#endif
}

}  // namespace detail

template <class T>
void DeviceMatrix<T>::check_shape(index_t r, index_t c) const {
  if (r != rows_ || c != cols_)
    throw DimensionMismatch("DeviceMatrix copy: device matrix is " + std::to_string(rows_) + "x" +
                            std::to_string(cols_) + ", host matrix is " + std::to_string(r) +
                            "x" + std::to_string(c));
}

template class DeviceMatrix<float>;
template class DeviceMatrix<double>;

}  // namespace dla
