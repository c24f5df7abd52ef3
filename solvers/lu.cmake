# LU with partial pivoting (issue #4): getrf/getrs/gesv on the device,
# lu_factor/lu_solve/solve on host matrices.
list(APPEND solvers_sources
  ${CMAKE_CURRENT_SOURCE_DIR}/src/lu.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/getrf_blocking.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/solve.cpp)
list(APPEND solvers_cuda_sources
  ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/getrf.cu
  ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/getrf_panel.cu
  ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/getrf_leaf_cluster.cu
  ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/getrf_inverse.cu
  ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/getrf_swap.cu
  ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/getrs.cu)
list(APPEND solvers_stub_sources ${CMAKE_CURRENT_SOURCE_DIR}/src/lu_stubs.cpp)
