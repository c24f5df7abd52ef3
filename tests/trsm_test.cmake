dla_add_test(trsm_test SOURCES trsm_test.cpp LIBS dla_solvers)
