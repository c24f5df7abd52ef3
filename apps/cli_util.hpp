#pragma once
// Helpers shared by the subcommands: option values, the backend, residuals,
// and the dataset lookup that every file-reading command does first.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "dla/core.hpp"
#include "dla/io.hpp"

namespace dla::app {

// --device auto|cuda|host
Backend parse_backend(const std::string& device);
// "cuda:0 (NVIDIA H200)" or "host"
std::string describe(const Context& ctx);

// --precision single|double|auto: auto follows the dataset's type on disk
// (float64 -> double, everything else -> single).
enum class Precision { Single, Double };
Precision pick_precision(const std::string& option, const io::DatasetInfo& on_disk);
const char* to_string(Precision p);

// The dataset's description, or IoError naming the file, the dataset and the
// datasets that do exist.
io::DatasetInfo find_dataset(const std::string& path, const std::string& dataset);

// Refuses an output path that is the input file itself (x would replace A and b).
void check_not_same_file(const std::string& input, const std::string& output);

// Warns on stderr when the data on disk was narrowed on reading (float64 or
// 32/64-bit integers into float32, 64-bit integers into float64), naming the
// precision `p` the command computes in.
void warn_if_narrowed(const io::ReadInfo& info, const std::string& path, const std::string& dataset,
                      Precision p);

std::string shape_string(const std::vector<index_t>& shape);

// Wall-clock seconds since construction.
class Stopwatch {
 public:
  Stopwatch();
  double seconds() const;

 private:
  double start_;
};

// ||A X - B||_F / (||A||_F ||X||_F), accumulated in double.
template <class T>
double relative_residual(const Matrix<T>& A, const Matrix<T>& X, const Matrix<T>& B);

// For --method cholesky, which reads only the lower triangle: throws
// InvalidArgument unless A is symmetric within rounding, |A(i,j) - A(j,i)| <=
// n eps max|A| (eps of T; the size of Cholesky's own backward error), naming
// `what` (file:dataset, and the batch member) and the first pair that differs.
// A non-finite entry in either triangle counts as a difference. Without it a
// non-symmetric A would be solved as the symmetric matrix its lower triangle
// describes: a different system, and no error.
template <class T>
void require_symmetric(const Matrix<T>& A, const std::string& what);

// Adds the options shared by the commands that choose where and how to run.
void add_device_option(CLI::App* cmd, std::string& device);
void add_precision_option(CLI::App* cmd, std::string& precision);

}  // namespace dla::app
