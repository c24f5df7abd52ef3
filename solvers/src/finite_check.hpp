#pragma once
// The NaN/Inf check of the high-level solvers' host inputs: InvalidArgument
// naming the routine, the matrix and the first non-finite entry.
#include <cmath>
#include <string>

#include "dla/core/error.hpp"
#include "dla/core/eigen_view.hpp"

namespace dla::detail {

template <class T>
void require_finite(const Matrix<T>& M, const char* routine, const char* name) {
  for (index_t j = 0; j < M.cols(); ++j)
    for (index_t i = 0; i < M.rows(); ++i)
      if (!std::isfinite(M(i, j)))
        throw InvalidArgument(std::string(routine) + ": " + name + "(" + std::to_string(i) + ", " +
                              std::to_string(j) + ") (0-based row, column) is " +
                              (std::isnan(M(i, j)) ? "NaN" : "infinite"));
}

}  // namespace dla::detail
