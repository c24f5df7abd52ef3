#pragma once
// Host kernels of the batched solvers (one small matrix each), with LAPACK
// semantics computed here, not taken from Eigen: first-maximum partial
// pivoting (ties and NaN treated as the device kernels do), info = first
// exactly-zero pivot (the factorization still completes), Cholesky info = the
// first leading minor that is not positive definite (the factorization stops).
#include <cstdint>

#include "dla/core/types.hpp"

namespace dla::detail {

template <class T>
int host_getrf(T* a, index_t n, index_t lda, std::int32_t* ipiv);
template <class T>
void host_getrs(const T* a, index_t n, index_t lda, const std::int32_t* ipiv, T* b, index_t nrhs,
                index_t ldb);
template <class T>
int host_potrf_lower(T* a, index_t n, index_t lda);
template <class T>
void host_potrs_lower(const T* a, index_t n, index_t lda, T* b, index_t nrhs, index_t ldb);

}  // namespace dla::detail
