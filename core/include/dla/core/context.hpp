#pragma once
// Context: which backend runs the work, on which device and stream, and a
// reusable device workspace. Copies of a Context share the same stream and
// workspace. Not thread-safe: use one Context per host thread.
#include <cstddef>
#include <memory>

#include "dla/core/types.hpp"

namespace dla {

class Context {
 public:
  // Backend::Auto picks Cuda when this build has CUDA and a usable device
  // exists, else Host. Backend::Cuda throws DeviceError (NotCompiled in a build
  // without CUDA) when it cannot be honoured. The Context owns a new stream.
  explicit Context(Backend requested = Backend::Auto, int device = 0);

  // Cuda backend on a stream the caller owns (not destroyed by the Context).
  static Context on_stream(stream_t stream, int device = 0);
  static Context host() { return Context(Backend::Host); }

  Backend backend() const;        // Cuda or Host, never Auto
  bool is_cuda() const { return backend() == Backend::Cuda; }
  int device() const;             // -1 on the host backend
  stream_t stream() const;        // nullptr on the host backend

  // Device scratch memory of at least `bytes`, reused across calls and grown
  // when needed. Valid until the next workspace() call that grows it.
  void* workspace(std::size_t bytes) const;
  std::size_t workspace_size() const;

  // Blocks until all work queued on the stream has finished; rethrows any
  // asynchronous device error as DeviceError.
  void synchronize() const;

  // Makes this context's device current on the calling thread.
  void activate() const;

 private:
  struct Impl;
  explicit Context(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace dla
