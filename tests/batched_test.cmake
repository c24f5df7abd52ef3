# Batched solvers: host tests (always) and device tests (skip without a GPU).
dla_add_test(batched_test SOURCES batched_test.cpp batched_gpu_test.cpp LIBS dla_solvers)
