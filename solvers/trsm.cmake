# Triangular solves (issue #4): shared by LU and Cholesky.
list(APPEND solvers_sources ${CMAKE_CURRENT_SOURCE_DIR}/src/trsm.cpp)
list(APPEND solvers_cuda_sources ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/trsm.cu)
list(APPEND solvers_stub_sources ${CMAKE_CURRENT_SOURCE_DIR}/src/trsm_stubs.cpp)
