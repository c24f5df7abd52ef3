#include "dla/core/context.hpp"

#include <string>

#include "dla/core/config.hpp"
#include "dla/core/device_info.hpp"
#include "dla/core/error.hpp"
#if DLA_HAVE_CUDA
#include "dla/core/cuda_check.hpp"
#endif

namespace dla {

struct Context::Impl {
  Backend backend = Backend::Host;
  int device = -1;
  stream_t stream = nullptr;
  bool owns_stream = false;
  mutable void* workspace = nullptr;
  mutable std::size_t workspace_bytes = 0;

  ~Impl() {
#if DLA_HAVE_CUDA
    if (backend == Backend::Cuda) {
      cudaSetDevice(device);
      if (stream) cudaStreamSynchronize(stream);
      if (workspace) cudaFree(workspace);
      if (owns_stream && stream) cudaStreamDestroy(stream);
    }
#endif
  }
};

Context::Context(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Context::Context(Backend requested, int device) : impl_(std::make_shared<Impl>()) {
  if (requested == Backend::Host) return;
#if DLA_HAVE_CUDA
  const int n = device_count();
  if (device < 0 || device >= n) {
    if (requested == Backend::Auto) return;  // no usable device: Auto means host
    throw DeviceError("Context: CUDA backend requested but device " + std::to_string(device) +
                      (n == 0 ? " does not exist (no CUDA device is visible)"
                              : " does not exist (" + std::to_string(n) + " present)"));
  }
  DLA_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t s = nullptr;
  DLA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  impl_->backend = Backend::Cuda;
  impl_->device = device;
  impl_->stream = s;
  impl_->owns_stream = true;
#else
  if (requested == Backend::Cuda)
    throw NotCompiled("Context: the CUDA backend was requested, but this build of dla has no "
                      "CUDA support (configure with DLA_CUDA=ON)");
  (void)device;
#endif
}

Context Context::on_stream(stream_t stream, int device) {
#if DLA_HAVE_CUDA
  const int n = device_count();
  if (device < 0 || device >= n)
    throw DeviceError("Context::on_stream: CUDA device " + std::to_string(device) +
                      " does not exist (" + std::to_string(n) + " present)");
  auto impl = std::make_shared<Impl>();
  impl->backend = Backend::Cuda;
  impl->device = device;
  impl->stream = stream;
  impl->owns_stream = false;
  DLA_CUDA_CHECK(cudaSetDevice(device));
  return Context(std::move(impl));
#else
  (void)stream;
  (void)device;
  throw NotCompiled("Context::on_stream: this build of dla has no CUDA support");
#endif
}

Backend Context::backend() const { return impl_->backend; }
int Context::device() const { return impl_->device; }
stream_t Context::stream() const { return impl_->stream; }
std::size_t Context::workspace_size() const { return impl_->workspace_bytes; }

void* Context::workspace(std::size_t bytes) const {
#if DLA_HAVE_CUDA
  if (impl_->backend != Backend::Cuda)
    throw InvalidArgument("Context::workspace: device workspace requested on the host backend");
  if (bytes > impl_->workspace_bytes) {
    activate();
    // Earlier work on the stream may still use the old buffer.
    DLA_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
    if (impl_->workspace) DLA_CUDA_CHECK(cudaFree(impl_->workspace));
    impl_->workspace = nullptr;
    impl_->workspace_bytes = 0;
    void* p = nullptr;
    DLA_CUDA_CHECK(cudaMalloc(&p, bytes));
    impl_->workspace = p;
    impl_->workspace_bytes = bytes;
  }
  return impl_->workspace;
#else
  (void)bytes;
  throw NotCompiled("Context::workspace: this build of dla has no CUDA support");
#endif
}

void Context::synchronize() const {
#if DLA_HAVE_CUDA
  if (impl_->backend == Backend::Cuda) {
    activate();
    DLA_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
  }
#endif
}

void Context::activate() const {
#if DLA_HAVE_CUDA
  if (impl_->backend == Backend::Cuda) DLA_CUDA_CHECK(cudaSetDevice(impl_->device));
#endif
}

}  // namespace dla
