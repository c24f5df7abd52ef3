#pragma once
// Everything of dla. Link the umbrella target dla::dla to use this header
// (it includes every component's headers).
#include "dla/core.hpp"
#include "dla/gemm.hpp"
#include "dla/io.hpp"
#include "dla/solvers.hpp"
