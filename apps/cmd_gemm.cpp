// dla gemm INPUT.h5 -o OUTPUT.h5: C = alpha * op(A) * op(B) with dla's GEMM.
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "cli_util.hpp"
#include "commands.hpp"
#include "dla/gemm.hpp"

namespace dla::app {
namespace {

struct GemmArgs {
  std::string input, output, a = "A", b = "B", c = "C", precision = "auto", device = "auto";
  bool transa = false, transb = false, force = false;
  double alpha = 1.0;
};

std::string fmt_g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// alpha as T: NaN/Inf, or a value T cannot hold (float32: |alpha| > FLT_MAX
// became inf, a nonzero |alpha| below the subnormals became 0), is an error.
template <class T>
T alpha_as(double alpha) {
  const char* name = sizeof(T) == 4 ? "float32" : "float64";
  if (!std::isfinite(alpha)) throw InvalidArgument("--alpha " + fmt_g(alpha) + " is not a finite number");
  if (std::abs(alpha) > double(std::numeric_limits<T>::max()))
    throw InvalidArgument("--alpha " + fmt_g(alpha) + " is out of " + name +
                          " range; use --precision double");
  if (alpha != 0 && T(alpha) == T(0))
    throw InvalidArgument("--alpha " + fmt_g(alpha) + " underflows to 0 in " + name +
                          "; use --precision double");
  return T(alpha);
}

// The first NaN/Inf of M as "file:dataset(i, j) is nan", or "".
template <class T>
std::string first_non_finite(const Matrix<T>& M, const std::string& where) {
  for (index_t j = 0; j < M.cols(); ++j)
    for (index_t i = 0; i < M.rows(); ++i)
      if (!std::isfinite(M(i, j)))
        return where + "(" + std::to_string(i) + ", " + std::to_string(j) + ") is " + fmt_g(double(M(i, j)));
  return "";
}

template <class T>
void run(const GemmArgs& g, const Context& ctx, Precision p) {
  const T alpha = alpha_as<T>(g.alpha);
  io::FileWriter out(g.output, io::WriteOptions{g.force});
  io::ReadInfo ra, rb;
  const Matrix<T> A = io::read_matrix<T>(g.input, g.a, &ra);
  warn_if_narrowed(ra, g.input, g.a, p);
  const Matrix<T> B = io::read_matrix<T>(g.input, g.b, &rb);
  warn_if_narrowed(rb, g.input, g.b, p);
  const Op opA = g.transa ? Op::T : Op::N, opB = g.transb ? Op::T : Op::N;
  Matrix<T> C(opA == Op::N ? A.rows() : A.cols(), opB == Op::N ? B.cols() : B.rows());
  // NaN/Inf in A or B would give NaN/Inf in C: refused, naming the entry
  // (before the timed product).
  for (const auto& [M, name] : {std::pair{&A, g.a}, std::pair{&B, g.b}})
    if (const std::string bad = first_non_finite(*M, g.input + ":" + name); !bad.empty())
      throw InvalidArgument(bad + ": the product would not be finite");
  Stopwatch sw;
  gemm(ctx, opA, opB, alpha, A, B, T(0), C);
  const double secs = sw.seconds();
  // Finite inputs, non-finite C: the product overflowed T.
  if (const std::string bad = first_non_finite(C, g.c); !bad.empty())
    throw Error(bad + ": the " + (sizeof(T) == 4 ? "float32" : "float64") + " product overflowed" +
                (sizeof(T) == 4 ? "; use --precision double" : ""));
  out.write_matrix(g.c, C);
  out.set_attribute(g.c, "device", describe(ctx));
  out.set_attribute(g.c, "precision", std::string(to_string(p)));
  out.set_attribute(g.c, "seconds", secs);
  out.commit();
  std::printf("dla gemm: %s = %g * op%s(%s) * op%s(%s): %lldx%lld -> %s  [%s, %s, %.4f s]\n",
              g.c.c_str(), g.alpha, to_string(opA), g.a.c_str(), to_string(opB), g.b.c_str(),
              (long long)C.rows(), (long long)C.cols(), g.output.c_str(), describe(ctx).c_str(),
              to_string(p), secs);
}

}  // namespace

void add_gemm_command(CLI::App& app) {
  auto g = std::make_shared<GemmArgs>();
  auto* cmd = app.add_subcommand("gemm", "Matrix product C = alpha op(A) op(B) of two datasets");
  cmd->add_option("input", g->input, "HDF5 file holding A and B")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", g->output, "HDF5 file to write C to")->required();
  cmd->add_option("-A", g->a, "Dataset of A")->capture_default_str();
  cmd->add_option("-B", g->b, "Dataset of B")->capture_default_str();
  cmd->add_option("-C", g->c, "Dataset name for the product")->capture_default_str();
  cmd->add_flag("--transa", g->transa, "Use A^T");
  cmd->add_flag("--transb", g->transb, "Use B^T");
  cmd->add_option("--alpha", g->alpha, "Scale factor")->capture_default_str();
  add_precision_option(cmd, g->precision);
  add_device_option(cmd, g->device);
  cmd->add_flag("--force", g->force, "Overwrite OUTPUT if it exists");
  cmd->callback([g] {
    check_not_same_file(g->input, g->output);
    const io::DatasetInfo ai = find_dataset(g->input, g->a);
    find_dataset(g->input, g->b);
    const Precision p = pick_precision(g->precision, ai);
    const Context ctx(parse_backend(g->device));
    p == Precision::Single ? run<float>(*g, ctx, p) : run<double>(*g, ctx, p);
  });
}

}  // namespace dla::app
