#pragma once
// Umbrella header of the solvers component.
#include "dla/solvers/method.hpp"
#include "dla/solvers/trsm.hpp"
#include "dla/solvers/trsm_cuda.hpp"
#include "dla/solvers/lu.hpp"
#include "dla/solvers/lu_cuda.hpp"
#include "dla/solvers/cholesky.hpp"
#include "dla/solvers/cholesky_cuda.hpp"
#include "dla/solvers/solve.hpp"
#include "dla/solvers/batched.hpp"
#include "dla/solvers/batched_cuda.hpp"
