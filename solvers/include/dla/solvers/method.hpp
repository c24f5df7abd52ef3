#pragma once
// Which factorization a solve uses.
#include <string>

namespace dla {

enum class Method {
  Auto,      // Cholesky when A is symmetric with a positive diagonal, LU if Cholesky fails
  LU,        // LU with partial pivoting
  Cholesky,  // A = L L^T (symmetric positive definite A)
};

inline const char* to_string(Method m) {
  switch (m) {
    case Method::Auto: return "auto";
    case Method::LU: return "lu";
    case Method::Cholesky: return "cholesky";
  }
  return "?";
}

}  // namespace dla
