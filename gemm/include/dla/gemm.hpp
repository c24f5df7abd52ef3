#pragma once
// Everything of the gemm component.
#include "dla/gemm/gemm.hpp"
#include "dla/gemm/gemm_cuda.hpp"
