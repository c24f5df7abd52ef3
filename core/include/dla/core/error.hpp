#pragma once
// The exception hierarchy: everything dla throws derives from dla::Error.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace dla {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A bad argument value (negative size, too-small leading dimension, NaN input, ...).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// Operand shapes that do not fit together.
class DimensionMismatch : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

// An exactly zero pivot; index() is the 1-based LAPACK info.
class SingularMatrix : public Error {
 public:
  SingularMatrix(std::int64_t index, const std::string& what)
      : Error(what), index_(index) {}
  std::int64_t index() const noexcept { return index_; }

 private:
  std::int64_t index_;
};

// A leading minor that is not positive definite; minor() is the 1-based order.
class NotPositiveDefinite : public Error {
 public:
  NotPositiveDefinite(std::int64_t minor, const std::string& what)
      : Error(what), minor_(minor) {}
  std::int64_t minor() const noexcept { return minor_; }

 private:
  std::int64_t minor_;
};

// A CUDA runtime failure, or a request for the CUDA backend that cannot be met.
class DeviceError : public Error {
 public:
  using Error::Error;
};

class OutOfDeviceMemory : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

// A feature this build does not contain (e.g. the CUDA backend in a CPU-only build).
class NotCompiled : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

// File input/output: the message names the file, the dataset and what is wrong.
class IoError : public Error {
 public:
  using Error::Error;
};

// Throws InvalidArgument naming the routine and the 1-based argument position,
// the way LAPACK's xerbla reports it; used by the high-level API when a
// low-level routine returns info < 0.
[[noreturn]] void throw_bad_argument(const char* routine, std::int64_t info);

}  // namespace dla
