// dla solve INPUT.h5 -o OUTPUT.h5: reads A and b, solves A x = b (one system,
// or a batch when A is count x n x n), writes x with the shape of b and the
// attributes method, device, precision, relative_residual and seconds.
#include <cstdio>
#include <memory>

#include "cli_util.hpp"
#include "commands.hpp"
#include "dla/solvers.hpp"

namespace dla::app {
namespace {

struct SolveArgs {
  std::string input, output, a = "A", b = "b", x = "x";
  std::string method = "auto", precision = "auto", device = "auto";
  bool force = false;
};

Method parse_method(const std::string& m) {
  if (m == "auto") return Method::Auto;
  if (m == "lu") return Method::LU;
  if (m == "cholesky") return Method::Cholesky;
  throw InvalidArgument("--method must be auto, lu or cholesky (got '" + m + "')");
}

template <class T>
bool symmetric_positive_diagonal(const Matrix<T>& A) {
  return A.rows() == A.cols() && A == A.transpose() && (A.diagonal().array() > T(0)).all();
}

// Solves with the requested method; for auto, Cholesky when A looks SPD,
// falling back to LU when the factorization finds it is not. Returns the
// method that produced x.
template <class T>
Method solve_one(const Context& ctx, Method requested, const Matrix<T>& A, const Matrix<T>& B,
                 Matrix<T>& X) {
  if (requested == Method::Auto) {
    if (symmetric_positive_diagonal(A)) {
      try {
        X = solve(ctx, A, B, Method::Cholesky);
        return Method::Cholesky;
      } catch (const NotPositiveDefinite&) {
        std::fprintf(stderr, "dla: A is symmetric but not positive definite: using LU\n");
      }
    }
    requested = Method::LU;
  }
  X = solve(ctx, A, B, requested);
  return requested;
}

void print_summary(const SolveArgs& a, const std::string& shapeA, const std::string& shapeB,
                   const char* type, Method used, const Context& ctx, Precision p, double secs,
                   double residual, const std::string& shapeX) {
  std::printf("dla solve: %s -> %s\n", a.input.c_str(), a.output.c_str());
  std::printf("  A          %s %s (dataset %s)\n", shapeA.c_str(), type, a.a.c_str());
  std::printf("  b          %s (dataset %s)\n", shapeB.c_str(), a.b.c_str());
  std::printf("  method     %s%s\n", to_string(used), a.method == "auto" ? " (auto)" : "");
  std::printf("  device     %s\n", describe(ctx).c_str());
  std::printf("  precision  %s\n", to_string(p));
  std::printf("  time       %.4f s\n", secs);
  std::printf("  residual   %.3e  (||Ax - b|| / (||A|| ||x||))\n", residual);
  std::printf("  x          %s written to %s:%s\n", shapeX.c_str(), a.output.c_str(), a.x.c_str());
}

// The attributes of the written x (method, device, precision, residual,
// seconds), then the commit that makes the output file appear.
void commit_x(io::FileWriter& out, const SolveArgs& a, const std::string& method,
              const Context& ctx, Precision p, double res, double secs) {
  out.set_attribute(a.x, "method", method);
  out.set_attribute(a.x, "device", describe(ctx));
  out.set_attribute(a.x, "precision", std::string(to_string(p)));
  out.set_attribute(a.x, "relative_residual", res);
  out.set_attribute(a.x, "seconds", secs);
  out.commit();
}

template <class T>
void run_single(const SolveArgs& a, const io::DatasetInfo& ai, const Context& ctx, Precision p,
                io::FileWriter& out) {
  io::ReadInfo ra, rb;
  const Matrix<T> A = io::read_matrix<T>(a.input, a.a, &ra);
  warn_if_narrowed(ra, a.input, a.a, p);
  const Matrix<T> B = io::read_matrix<T>(a.input, a.b, &rb);
  warn_if_narrowed(rb, a.input, a.b, p);
  if (A.rows() != A.cols())
    throw DimensionMismatch(a.input + ":" + a.a + " is " + std::to_string(A.rows()) + "x" +
                            std::to_string(A.cols()) + ": solve needs a square matrix");
  if (B.rows() != A.rows())
    throw DimensionMismatch(a.input + ": " + a.b + " has " + std::to_string(B.rows()) +
                            " rows but " + a.a + " is " + std::to_string(A.rows()) + "x" +
                            std::to_string(A.cols()));
  const Method requested = parse_method(a.method);
  if (requested == Method::Cholesky) require_symmetric(A, a.input + ":" + a.a);
  Matrix<T> X;
  Stopwatch sw;
  const Method used = solve_one(ctx, requested, A, B, X);
  const double secs = sw.seconds();
  const double res = relative_residual(A, X, B);
  if (!std::isfinite(res))
    throw Error("solve produced non-finite values in x (residual " + std::to_string(res) + ")");
  out.write_matrix(a.x, X, io::DatasetOptions{rb.rank});
  commit_x(out, a, to_string(used), ctx, p, res, secs);
  const std::vector<index_t> xs = rb.rank == 1 ? std::vector<index_t>{X.rows()}
                                               : std::vector<index_t>{X.rows(), X.cols()};
  print_summary(a, shape_string(ai.shape), shape_string(find_dataset(a.input, a.b).shape),
                ai.type.c_str(), used, ctx, p, secs, res, shape_string(xs));
}

template <class T>
void run_batch(const SolveArgs& a, const io::DatasetInfo& ai, const Context& ctx, Precision p,
               io::FileWriter& out) {
  io::ReadInfo ra, rb;
  const Batch<T> A = io::read_batch<T>(a.input, a.a, &ra);
  warn_if_narrowed(ra, a.input, a.a, p);
  const Batch<T> B = io::read_batch<T>(a.input, a.b, &rb);
  warn_if_narrowed(rb, a.input, a.b, p);
  if (A.rows() != A.cols())
    throw DimensionMismatch(a.input + ":" + a.a + " is a batch of " + std::to_string(A.rows()) +
                            "x" + std::to_string(A.cols()) + " matrices: solve needs square ones");
  if (B.count() != A.count() || B.rows() != A.rows())
    throw DimensionMismatch(a.input + ": " + a.b + " " + shape_string(find_dataset(a.input, a.b).shape) +
                            " does not match the batch " + a.a + " " + shape_string(ai.shape));
  Method m = parse_method(a.method);
  if (m == Method::Cholesky)
    for (index_t i = 0; i < A.count(); ++i)
      require_symmetric<T>(Matrix<T>(A[i]), a.input + ":" + a.a + " matrix " + std::to_string(i) +
                                                 " of " + std::to_string(A.count()));
  if (m == Method::Auto) {
    bool spd = true;
    for (index_t i = 0; i < A.count() && spd; ++i)
      spd = symmetric_positive_diagonal<T>(Matrix<T>(A[i]));
    m = spd ? Method::Auto : Method::LU;  // solve_batched's Auto redoes non-SPD members with LU
  }
  Stopwatch sw;
  const Batch<T> X = solve_batched(ctx, A, B, m);
  const double secs = sw.seconds();
  double res = 0;
  for (index_t i = 0; i < A.count(); ++i) {
    const double r = relative_residual<T>(Matrix<T>(A[i]), Matrix<T>(X[i]), Matrix<T>(B[i]));
    if (!std::isfinite(r))  // checked per member: std::max drops a NaN
      throw Error("solve produced non-finite values in x for matrix " + std::to_string(i) + " of " +
                  std::to_string(A.count()) + " (residual " + std::to_string(r) + ")");
    res = std::max(res, r);
  }
  const Method used = m == Method::Auto ? Method::Cholesky : m;
  out.write_batch(a.x, X, io::DatasetOptions{rb.rank});
  commit_x(out, a, m == Method::Auto ? "auto" : to_string(used), ctx, p, res, secs);
  print_summary(a, shape_string(ai.shape), shape_string(find_dataset(a.input, a.b).shape),
                ai.type.c_str(), m == Method::Auto ? Method::Auto : used, ctx, p, secs, res,
                shape_string(find_dataset(a.input, a.b).shape) + " (max residual over the batch)");
}

}  // namespace

void add_solve_command(CLI::App& app) {
  auto args = std::make_shared<SolveArgs>();
  auto* cmd = app.add_subcommand("solve", "Solve A x = b from an HDF5 file (a batch when A is 3-D)");
  cmd->add_option("input", args->input, "HDF5 file holding A and b")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", args->output, "HDF5 file to write x to")->required();
  cmd->add_option("-A", args->a, "Dataset of the matrix A (n x n, or count x n x n)")->capture_default_str();
  cmd->add_option("-b", args->b, "Dataset of the right-hand side(s) b (n, n x k, count x n, count x n x k)")
      ->capture_default_str();
  cmd->add_option("-x", args->x, "Dataset name for the solution")->capture_default_str();
  cmd->add_option("--method", args->method, "auto (Cholesky when A is symmetric with a positive diagonal, "
                  "else LU), lu, cholesky")
      ->check(CLI::IsMember({"auto", "lu", "cholesky"}))
      ->capture_default_str();
  add_precision_option(cmd, args->precision);
  add_device_option(cmd, args->device);
  cmd->add_flag("--force", args->force, "Overwrite OUTPUT if it exists");
  cmd->callback([args] {
    const SolveArgs& a = *args;
    check_not_same_file(a.input, a.output);
    const io::DatasetInfo ai = find_dataset(a.input, a.a);
    find_dataset(a.input, a.b);
    if (ai.shape.size() != 2 && ai.shape.size() != 3)
      throw IoError(a.input + ":" + a.a + " has rank " + std::to_string(ai.shape.size()) +
                    " " + shape_string(ai.shape) + ": expected a matrix (n, n) or a batch (count, n, n)");
    const Precision p = pick_precision(a.precision, ai);
    const Context ctx(parse_backend(a.device));
    io::FileWriter out(a.output, io::WriteOptions{a.force});  // refuses an existing file early
    const bool batch = ai.shape.size() == 3;
    if (p == Precision::Single)
      batch ? run_batch<float>(a, ai, ctx, p, out) : run_single<float>(a, ai, ctx, p, out);
    else
      batch ? run_batch<double>(a, ai, ctx, p, out) : run_single<double>(a, ai, ctx, p, out);
  });
}

}  // namespace dla::app
