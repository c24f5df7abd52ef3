# Batched dense solvers for many small systems (issue #6).
list(APPEND solvers_sources ${CMAKE_CURRENT_SOURCE_DIR}/src/batched.cpp
                            ${CMAKE_CURRENT_SOURCE_DIR}/src/batched_host.cpp)
list(APPEND solvers_cuda_sources ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/batched_api.cu
                                 ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/batched_small.cu
                                 ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/batched_tiny.cu
                                 ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/batched_block.cu
                                 ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/batched_rows.cu
                                 ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/batched_solve.cu
                                 ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/batched_blocked.cu)
list(APPEND solvers_stub_sources ${CMAKE_CURRENT_SOURCE_DIR}/src/batched_stubs.cpp)
