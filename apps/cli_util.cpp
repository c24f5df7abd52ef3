#include "cli_util.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

namespace dla::app {

Backend parse_backend(const std::string& device) {
  if (device == "auto") return Backend::Auto;
  if (device == "cuda") return Backend::Cuda;
  if (device == "host") return Backend::Host;
  throw InvalidArgument("--device must be auto, cuda or host (got '" + device + "')");
}

std::string describe(const Context& ctx) {
  if (!ctx.is_cuda()) return "host";
  return "cuda:" + std::to_string(ctx.device()) + " (" + device_info(ctx.device()).name + ")";
}

Precision pick_precision(const std::string& option, const io::DatasetInfo& on_disk) {
  if (option == "single") return Precision::Single;
  if (option == "double") return Precision::Double;
  if (option == "auto") return on_disk.type == "float64" ? Precision::Double : Precision::Single;
  throw InvalidArgument("--precision must be single, double or auto (got '" + option + "')");
}

const char* to_string(Precision p) { return p == Precision::Single ? "single" : "double"; }

std::string shape_string(const std::vector<index_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

io::DatasetInfo find_dataset(const std::string& path, const std::string& dataset) {
  const auto all = io::list_datasets(path);
  std::string names;
  for (const auto& d : all) {
    if (d.name == dataset || "/" + d.name == dataset) return d;
    names += (names.empty() ? "" : ", ") + d.name;
  }
  throw IoError(path + ": no dataset '" + dataset + "' (datasets in the file: " +
                (names.empty() ? "none" : names) + ")");
}

void check_not_same_file(const std::string& input, const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(output, ec) && fs::equivalent(input, output, ec))
    throw InvalidArgument("output " + output + " is the input file: choose another -o path "
                          "(the input would be replaced)");
}

void warn_if_narrowed(const io::ReadInfo& info, const std::string& path, const std::string& dataset,
                      Precision p) {
  if (!info.narrowed) return;
  if (p == Precision::Single)
    std::fprintf(stderr, "dla: warning: %s:%s is %s on disk, computing in single precision "
                 "(use --precision double to keep it)\n", path.c_str(), dataset.c_str(),
                 info.disk_type.c_str());
  else  // only 64-bit integers narrow into double
    std::fprintf(stderr, "dla: warning: %s:%s is %s on disk, computing in double precision "
                 "(integers beyond 2^53 are rounded)\n", path.c_str(), dataset.c_str(),
                 info.disk_type.c_str());
}

Stopwatch::Stopwatch()
    : start_(std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count()) {}
double Stopwatch::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count() - start_;
}

template <class T>
double relative_residual(const Matrix<T>& A, const Matrix<T>& X, const Matrix<T>& B) {
  const Eigen::MatrixXd a = A.template cast<double>(), x = X.template cast<double>();
  // stableNorm: float64 entries beyond about 1e154 (below 1e-154) must not
  // overflow (underflow) the sum of squares; divided one norm at a time.
  const double r = (a * x - B.template cast<double>()).stableNorm();
  const double an = a.stableNorm(), xn = x.stableNorm();
  return an > 0 && xn > 0 ? r / an / xn : r;
}
template <class T>
void require_symmetric(const Matrix<T>& A, const std::string& what) {
  const index_t n = A.rows();
  double amax = 0;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) amax = std::max(amax, double(std::abs(A(i, j))));
  const double tol = double(n) * double(std::numeric_limits<T>::epsilon()) * amax;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j + 1; i < n; ++i) {
      const double lo = double(A(i, j)), up = double(A(j, i));
      if (std::abs(lo - up) <= tol) continue;  // false for NaN
      char buf[256];
      std::snprintf(buf, sizeof buf, "A(%lld,%lld) = %.9g but A(%lld,%lld) = %.9g (tolerance n eps max|A| = %.3g)",
                    (long long)i, (long long)j, lo, (long long)j, (long long)i, up, tol);
      throw InvalidArgument(what + " is not symmetric: " + buf + "; --method cholesky reads only the "
                            "lower triangle, so it would solve a different system: use --method lu or auto");
    }
}
template void require_symmetric<float>(const Matrix<float>&, const std::string&);
template void require_symmetric<double>(const Matrix<double>&, const std::string&);

template double relative_residual<float>(const Matrix<float>&, const Matrix<float>&, const Matrix<float>&);
template double relative_residual<double>(const Matrix<double>&, const Matrix<double>&, const Matrix<double>&);

void add_device_option(CLI::App* cmd, std::string& device) {
  cmd->add_option("--device", device, "Where to compute: auto (GPU when present), cuda, host")
      ->check(CLI::IsMember({"auto", "cuda", "host"}))
      ->capture_default_str();
}
void add_precision_option(CLI::App* cmd, std::string& precision) {
  cmd->add_option("--precision", precision, "single, double, or auto (the type of A on disk)")
      ->check(CLI::IsMember({"auto", "single", "double"}))
      ->capture_default_str();
}

}  // namespace dla::app
