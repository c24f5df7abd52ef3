// dla gen OUTPUT.h5 --n N: writes a test system A, b (and x_true, the exact
// solution b was made from), one system or a batch with --count.
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "cli_util.hpp"
#include "commands.hpp"

namespace dla::app {
namespace {

struct GenArgs {
  std::string output, kind = "random", precision = "single";
  index_t n = 0, count = 0, nrhs = 1;
  std::uint64_t seed = 1;
  bool force = false;
};

// One n x n matrix of the requested kind, in double.
Eigen::MatrixXd make_matrix(const std::string& kind, index_t n, std::mt19937_64& gen) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd A(n, n);
  if (kind == "hilbert") {
    for (index_t j = 0; j < n; ++j)
      for (index_t i = 0; i < n; ++i) A(i, j) = 1.0 / double(i + j + 1);
    return A;
  }
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) A(i, j) = u(gen);
  if (kind == "spd") {
    // Symmetric random part has spectral radius about 1.15 sqrt(n); the shift
    // makes every eigenvalue positive (condition number below about 4).
    // (A + A^T) / 2 in place, element by element as the expression did (no
    // second n x n temporary).
    for (index_t j = 0; j < n; ++j)
      for (index_t i = j + 1; i < n; ++i) A(i, j) = A(j, i) = 0.5 * (A(i, j) + A(j, i));
    const double shift = n <= 16 ? double(n) : 2.0 * std::sqrt(double(n)) + 1.0;
    A.diagonal().array() += shift;
  } else if (kind == "diag-dominant") {
    for (index_t i = 0; i < n; ++i) A(i, i) = A.row(i).cwiseAbs().sum() + 1.0;
  } else if (kind == "singular") {
    A.col(n / 2).setZero();  // LU meets an exactly zero pivot at column n/2 + 1
  }
  return A;
}

// Member c of the system: A (made in double, stored in T), x and b = A x
// computed in double from the exact x, into the given views.
template <class T, class MA, class MB, class MX>
void make_system(const GenArgs& g, std::mt19937_64& gen, MA&& A, MB&& B, MX&& X) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Eigen::MatrixXd a = make_matrix(g.kind, g.n, gen);
  Eigen::MatrixXd x(g.n, g.nrhs);
  for (index_t j = 0; j < g.nrhs; ++j)
    for (index_t i = 0; i < g.n; ++i) x(i, j) = u(gen);
  A = a.cast<T>();
  X = x.cast<T>();
  B = (a * x).cast<T>();  // b from the exact x, in double
}

// Peak memory: one member's A in double and in T, then the writer's bounded
// buffer (io/src/h5util.hpp): ~3x A's size in the file for float32, ~2x for
// float64 (it was ~4-5x: a second double temporary for spd and copies of A
// for the writer).
template <class T>
void generate(const GenArgs& g) {
  io::FileWriter out(g.output, io::WriteOptions{g.force});
  std::mt19937_64 gen(g.seed);
  // numpy conventions: b is 1-D for one right-hand side.
  const int brank = g.count > 0 ? (g.nrhs == 1 ? 2 : 3) : (g.nrhs == 1 ? 1 : 2);
  if (g.count > 0) {
    Batch<T> A(g.count, g.n, g.n), B(g.count, g.n, g.nrhs), X(g.count, g.n, g.nrhs);
    for (index_t c = 0; c < g.count; ++c) make_system<T>(g, gen, A[c], B[c], X[c]);
    out.write_batch("A", A, io::DatasetOptions{3});  // 3-D even for n = 1 (1x1 matrices are not vectors)
    out.write_batch("b", B, io::DatasetOptions{brank});
    out.write_batch("x_true", X, io::DatasetOptions{brank});
  } else {
    Matrix<T> A(g.n, g.n), B(g.n, g.nrhs), X(g.n, g.nrhs);
    make_system<T>(g, gen, A, B, X);
    out.write_matrix("A", A);
    out.write_matrix("b", B, io::DatasetOptions{brank});
    out.write_matrix("x_true", X, io::DatasetOptions{brank});
  }
  out.set_attribute("A", "kind", g.kind);
  out.set_attribute("A", "seed", std::int64_t(g.seed));
  if (g.kind == "singular") out.set_attribute("A", "zero_column", std::int64_t(g.n / 2));
  out.commit();
  std::printf("dla gen: wrote %s: A %s%lld x %lld (%s, %s), b with %lld right-hand side(s), x_true\n",
              g.output.c_str(), g.count > 0 ? (std::to_string(g.count) + " x ").c_str() : "",
              (long long)g.n, (long long)g.n, g.kind.c_str(),
              std::is_same_v<T, float> ? "float32" : "float64", (long long)g.nrhs);
}

}  // namespace

void add_gen_command(CLI::App& app) {
  auto g = std::make_shared<GenArgs>();
  auto* cmd = app.add_subcommand("gen", "Generate a test system A, b (and x_true) into an HDF5 file");
  cmd->add_option("output", g->output, "HDF5 file to write")->required();
  cmd->add_option("--n", g->n, "Order of A")->required()->check(CLI::Range(index_t(1), index_t(1) << 20));
  cmd->add_option("--count", g->count, "Write a batch of this many systems (A is count x n x n)")
      ->check(CLI::Range(index_t(1), index_t(1) << 26));
  cmd->add_option("--nrhs", g->nrhs, "Right-hand sides per system (1: b is a vector)")
      ->check(CLI::Range(index_t(1), index_t(1) << 20))
      ->capture_default_str();
  cmd->add_option("--kind", g->kind, "random, spd, diag-dominant, singular, hilbert")
      ->check(CLI::IsMember({"random", "spd", "diag-dominant", "singular", "hilbert"}))
      ->capture_default_str();
  cmd->add_option("--precision", g->precision, "single (float32) or double (float64)")
      ->check(CLI::IsMember({"single", "double"}))
      ->capture_default_str();
  cmd->add_option("--seed", g->seed, "Random seed")->capture_default_str();
  cmd->add_flag("--force", g->force, "Overwrite OUTPUT if it exists");
  cmd->callback([g] {
    const double bytes = double(g->count > 0 ? g->count : 1) * double(g->n) * double(g->n + 2 * g->nrhs) *
                         (g->precision == "single" ? 4.0 : 8.0);
    if (bytes > 64e9) throw InvalidArgument("gen: the system would take " + std::to_string(bytes / 1e9) +
                                            " GB; more than 64 GB is refused");
    g->precision == "single" ? generate<float>(*g) : generate<double>(*g);
  });
}

}  // namespace dla::app
