#pragma once
// Column alignment of a column-major matrix, for the factorizations' aligned
// copies (spotrf, sgetrf/dgetrf: cholesky_cuda.hpp, lu_cuda.hpp) and the
// high-level uploads. The 16-byte vector paths of the GEMM and of the
// Cholesky kernels need every column to start on a 16-byte boundary.
#include <cstddef>
#include <cstdint>

#include "dla/core/types.hpp"

namespace dla {

// Whether A's columns start on 16-byte boundaries: A 16-byte aligned and
// ld * elem a multiple of 16 (elem = sizeof(T)).
inline bool columns_aligned16(const void* A, index_t ld, std::size_t elem) {
  return (std::size_t(ld) * elem) % 16 == 0 && reinterpret_cast<std::uintptr_t>(A) % 16 == 0;
}

// The leading dimension the aligned copies and uploads use: rows rounded up
// to 32 (16-byte columns for float and double, 128-byte for float).
inline index_t aligned_ld(index_t rows) { return (rows + 31) / 32 * 32; }

}  // namespace dla
