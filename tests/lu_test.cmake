# LU tests: host paths (CI) and GPU tests that skip without a device. cuSOLVER
# is linked into the test only, as the pivot reference.
set(lu_test_sources lu_test.cpp lu_test_gpu.cpp)
set(lu_test_libs dla_solvers)
if(DLA_HAVE_CUDA)
  list(APPEND lu_test_libs CUDA::cusolver CUDA::cudart)
endif()
dla_add_test(lu_test SOURCES ${lu_test_sources} LIBS ${lu_test_libs})

# The device tests again with the FP32 products of the solvers on the CUDA
# cores (DLA_FP32_GEMM=native). The plain entry runs the default mode
# (gemm_cuda.hpp, solver_fp32_gemm: Tf32x3 on Hopper, else Native), so on the
# H200 both modes stay covered.
add_test(NAME lu_test.native_gemm COMMAND lu_test --gtest_filter=LuGpu.*)
set_tests_properties(lu_test.native_gemm PROPERTIES ENVIRONMENT DLA_FP32_GEMM=native TIMEOUT 900)

# The aligned copy of a misaligned A (getrf_pads) at every size, not only from
# kGetrfPadMin: the low-level tests with lda = m (17, 129, 777, ...) and the
# pivots against cuSOLVER's (getrf's own scratch, lda = n: 17, 129, 3001).
add_test(NAME lu_test.pad_all COMMAND lu_test
         --gtest_filter=LuGpu.LowLevel*:LuGpu.PivotsEqualCusolver)
set_tests_properties(lu_test.pad_all PROPERTIES ENVIRONMENT DLA_GETRF_PAD=1 TIMEOUT 900)
