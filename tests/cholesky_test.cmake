# Cholesky tests: host paths (CI) and GPU tests that skip without a device.
# cuSOLVER is linked into the test only, as the reference factorization.
set(cholesky_test_libs dla_solvers)
if(DLA_HAVE_CUDA)
  list(APPEND cholesky_test_libs CUDA::cusolver CUDA::cudart)
endif()
dla_add_test(cholesky_test SOURCES cholesky_test.cpp LIBS ${cholesky_test_libs})
