#pragma once
// Umbrella header of the solvers component: every solvers header present.
#include "dla/solvers/method.hpp"
#if __has_include("dla/solvers/trsm.hpp")
#include "dla/solvers/trsm.hpp"
#endif
#include "dla/solvers/trsm_cuda.hpp"
#include "dla/solvers/lu.hpp"
#include "dla/solvers/lu_cuda.hpp"
#include "dla/solvers/solve.hpp"
#if __has_include("dla/solvers/cholesky.hpp")
#include "dla/solvers/cholesky.hpp"
#endif
#if __has_include("dla/solvers/cholesky_cuda.hpp")
#include "dla/solvers/cholesky_cuda.hpp"
#endif
#if __has_include("dla/solvers/batched.hpp")
#include "dla/solvers/batched.hpp"
#endif
#if __has_include("dla/solvers/batched_cuda.hpp")
#include "dla/solvers/batched_cuda.hpp"
#endif
