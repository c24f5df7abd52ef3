# LU tests: host paths (CI) and GPU tests that skip without a device. cuSOLVER
# is linked into the test only, as the pivot reference.
set(lu_test_sources lu_test.cpp lu_test_gpu.cpp)
set(lu_test_libs dla_solvers)
if(DLA_HAVE_CUDA)
  list(APPEND lu_test_libs CUDA::cusolver CUDA::cudart)
endif()
dla_add_test(lu_test SOURCES ${lu_test_sources} LIBS ${lu_test_libs})
