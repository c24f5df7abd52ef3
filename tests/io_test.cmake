# io tests: round trips, transactional writes, h5py interop both ways, errors.
# The interop tests run Debian's /usr/bin/python3 (python3-h5py, python3-numpy);
# without h5py they fail with the reason, they never skip.
find_program(DLA_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT DLA_PYTHON3)
  message(WARNING "io_test: /usr/bin/python3 not found; the h5py interop tests will fail")
endif()
dla_add_test(io_test SOURCES io_test.cpp io_interop_test.cpp io_test_util.cpp LIBS dla_io)
target_compile_definitions(io_test PRIVATE
  DLA_PYTHON3="${DLA_PYTHON3}"
  DLA_IO_FIXTURES="${CMAKE_CURRENT_SOURCE_DIR}/io_fixtures.py")
