# Cholesky (issue #5): potrf/potrs/posv on the device, cholesky_factor/solve.
list(APPEND solvers_sources ${CMAKE_CURRENT_SOURCE_DIR}/src/cholesky.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/potrf_blocking.cpp)
list(APPEND solvers_cuda_sources
  ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/potrf.cu
  ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/sm_partition.cu
  ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/potrs.cu)
list(APPEND solvers_stub_sources ${CMAKE_CURRENT_SOURCE_DIR}/src/cholesky_stubs.cpp)
