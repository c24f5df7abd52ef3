dla_add_test(trsm_test SOURCES trsm_test.cpp LIBS dla_solvers)

# The device tests again with the GEMM steps of the recursion on the tensor
# cores (DLA_FP32_GEMM=tf32x3; the default is Native, gemm_cuda.hpp).
add_test(NAME trsm_test.tf32x3_gemm COMMAND trsm_test --gtest_filter=TrsmDevice.*)
set_tests_properties(trsm_test.tf32x3_gemm PROPERTIES ENVIRONMENT DLA_FP32_GEMM=tf32x3 TIMEOUT 900)
