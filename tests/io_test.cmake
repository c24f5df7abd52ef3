# io tests: round trips, transactional writes, h5py interop both ways, errors.
# The interop tests run DLA_PYTHON3 (tests/CMakeLists.txt: a python3 with
# h5py and numpy); without h5py they fail with the reason, they never skip.
dla_add_test(io_test SOURCES io_test.cpp io_write_test.cpp io_interop_test.cpp
  io_test_util.cpp LIBS dla_io)
target_compile_definitions(io_test PRIVATE
  DLA_PYTHON3="${DLA_PYTHON3}"
  DLA_IO_FIXTURES="${CMAKE_CURRENT_SOURCE_DIR}/io_fixtures.py")
