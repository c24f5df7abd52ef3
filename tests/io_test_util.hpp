#pragma once
// Shared helpers of the io tests: a per-process scratch folder, the h5py
// fixtures (written once per process by tests/io_fixtures.py) and assertions
// on IoError messages.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "dla/io.hpp"

#ifndef DLA_PYTHON3
#define DLA_PYTHON3 ""
#endif
#ifndef DLA_IO_FIXTURES
#define DLA_IO_FIXTURES ""
#endif

namespace dla::test::io {

namespace fs = std::filesystem;

// A scratch folder for this process, removed at exit.
const fs::path& scratch();

// A fresh empty sub-folder of scratch() (so "no file left behind" checks see only ours).
fs::path fresh_dir(const std::string& name);

// Runs `python3 io_fixtures.py <args>`; returns its exit status and output.
int run_python(const std::string& args, std::string* output);

// The folder with the h5py fixtures; empty (with *why set) when they could not
// be written: the caller must FAIL, never skip.
fs::path fixtures(std::string* why);

// The files in `dir` (names only).
std::vector<std::string> files_in(const fs::path& dir);

// Runs body in a forked child and returns its exit status: body's return
// value, 1000 + s when signal s ended the child, -1 when it could not run.
// through_exit: the child ends through exit(), static destructors and atexit
// handlers included, as a program's normal end; else through _exit().
int run_in_child(const std::function<int()>& body, bool through_exit);

// Calls f, expects dla::IoError whose message contains every piece.
void expect_io_error(const std::function<void()>& f, const std::vector<std::string>& pieces,
                     std::string* message = nullptr);

}  // namespace dla::test::io

// FAIL()s the current test when the h5py fixtures are unavailable.
#define DLA_IO_FIXTURES_OR_FAIL(var)                                              \
  std::string var##_why_;                                                         \
  const auto var = ::dla::test::io::fixtures(&var##_why_);                        \
  if (var.empty()) FAIL() << "h5py interop fixtures unavailable: " << var##_why_
