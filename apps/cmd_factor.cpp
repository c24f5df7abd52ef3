// dla factor INPUT.h5 -o OUTPUT.h5 --method lu|cholesky: writes the factors.
//   lu:       "LU" (L below the diagonal with unit diagonal implied, U on and
//             above it, packed as LAPACK getrf leaves them) and "ipiv"
//             (LAPACK 1-based pivots: row i was interchanged with row ipiv[i]).
//   cholesky: "L" (lower triangular, A = L L^T).
// A singular matrix still has an LU factorization: it is written, with its
// info attribute, and a warning names the zero pivot. A matrix that is not
// positive definite has no Cholesky factor: error, exit 3, no file.
#include <cstdio>
#include <memory>

#include "cli_util.hpp"
#include "commands.hpp"
#include "dla/solvers.hpp"

namespace dla::app {
namespace {

struct FactorArgs {
  std::string input, output, a = "A", method = "lu", precision = "auto", device = "auto";
  bool force = false;
};

template <class T>
void run(const FactorArgs& f, const Context& ctx, Precision p) {
  io::FileWriter out(f.output, io::WriteOptions{f.force});
  io::ReadInfo ra;
  const Matrix<T> A = io::read_matrix<T>(f.input, f.a, &ra);
  warn_if_narrowed(ra, f.input, f.a, p);
  Stopwatch sw;
  std::string written;
  if (f.method == "lu") {
    const LU<T> lu = lu_factor(ctx, A);
    out.write_matrix("LU", lu.factors);
    out.write_vector_int("ipiv", lu.ipiv);
    out.set_attribute("LU", "layout", std::string("LAPACK getrf: unit lower L below the diagonal, U on and above"));
    out.set_attribute("ipiv", "convention", std::string("LAPACK, 1-based: row i was interchanged with row ipiv[i], for i = 1..min(m,n) in order"));
    out.set_attribute("LU", "info", std::int64_t(lu.info));
    if (lu.info > 0)
      std::fprintf(stderr, "dla: warning: A is singular: U(%lld,%lld) is exactly zero (factors written; info = %lld)\n",
                   (long long)lu.info, (long long)lu.info, (long long)lu.info);
    written = "LU, ipiv";
  } else {
    if (A.rows() != A.cols())
      throw DimensionMismatch(f.input + ":" + f.a + " is " + std::to_string(A.rows()) + "x" +
                              std::to_string(A.cols()) + ": Cholesky needs a square matrix");
    require_symmetric(A, f.input + ":" + f.a);
    const Cholesky<T> c = cholesky_factor(ctx, A, Uplo::Lower);
    out.write_matrix("L", c.factor);
    written = "L";
  }
  const double secs = sw.seconds();
  for (const char* d : {"LU", "L"}) {
    if ((f.method == "lu") != (std::string(d) == "LU")) continue;
    out.set_attribute(d, "device", describe(ctx));
    out.set_attribute(d, "precision", std::string(to_string(p)));
    out.set_attribute(d, "seconds", secs);
  }
  out.commit();
  std::printf("dla factor: %s:%s (%lldx%lld) -> %s: %s  [%s, %s, %.4f s]\n", f.input.c_str(),
              f.a.c_str(), (long long)A.rows(), (long long)A.cols(), f.output.c_str(),
              written.c_str(), describe(ctx).c_str(), to_string(p), secs);
}

}  // namespace

void add_factor_command(CLI::App& app) {
  auto f = std::make_shared<FactorArgs>();
  auto* cmd = app.add_subcommand("factor", "Factor A (LU with partial pivoting, or Cholesky) into an HDF5 file");
  cmd->add_option("input", f->input, "HDF5 file holding A")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", f->output, "HDF5 file to write the factors to")->required();
  cmd->add_option("-A", f->a, "Dataset of the matrix")->capture_default_str();
  cmd->add_option("--method", f->method, "lu or cholesky")
      ->check(CLI::IsMember({"lu", "cholesky"}))
      ->capture_default_str();
  add_precision_option(cmd, f->precision);
  add_device_option(cmd, f->device);
  cmd->add_flag("--force", f->force, "Overwrite OUTPUT if it exists");
  cmd->callback([f] {
    check_not_same_file(f->input, f->output);
    const io::DatasetInfo ai = find_dataset(f->input, f->a);
    if (ai.shape.size() != 2)
      throw IoError(f->input + ":" + f->a + " has shape " + shape_string(ai.shape) +
                    ": factor needs a 2-D matrix");
    const Precision p = pick_precision(f->precision, ai);
    const Context ctx(parse_backend(f->device));
    p == Precision::Single ? run<float>(*f, ctx, p) : run<double>(*f, ctx, p);
  });
}

}  // namespace dla::app
