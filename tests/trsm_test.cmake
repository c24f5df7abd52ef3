dla_add_test(trsm_test SOURCES trsm_test.cpp LIBS dla_solvers)

# The device tests again with the FP32 products of the solvers on the CUDA
# cores (DLA_FP32_GEMM=native). The plain entry runs the default mode
# (gemm_cuda.hpp, solver_fp32_gemm: Tf32x3 on Hopper, else Native), so on the
# H200 both modes stay covered.
add_test(NAME trsm_test.native_gemm COMMAND trsm_test --gtest_filter=TrsmDevice.*)
set_tests_properties(trsm_test.native_gemm PROPERTIES ENVIRONMENT DLA_FP32_GEMM=native TIMEOUT 900)
