# GEMM tests: exact small-integer cases on the host backend (CI) and on every
# SGEMM variant (GPU), argument errors, cuBLAS comparisons (GPU, CUDA builds).
if(DLA_HAVE_CUDA)
  dla_add_test(gemm_test SOURCES gemm_test.cpp LIBS dla_gemm CUDA::cublas CUDA::cudart)
else()
  dla_add_test(gemm_test SOURCES gemm_test.cpp LIBS dla_gemm)
endif()
