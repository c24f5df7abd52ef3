// Built against the installed dla package: solves a 2x2 product with dla::gemm
// on the Auto backend and checks the answer.
#include <cstdio>

#include "dla/core.hpp"
#include "dla/gemm.hpp"

int main() {
  dla::Context ctx;  // Auto: GPU when present
  Eigen::MatrixXf a(2, 2), b(2, 2), c(2, 2);
  a << 1, 2, 3, 4;
  b << 5, 6, 7, 8;
  c.setZero();
  dla::gemm(ctx, dla::Op::N, dla::Op::N, 1.0f, a, b, 0.0f, c);
  Eigen::MatrixXf want(2, 2);
  want << 19, 22, 43, 50;
  if (c != want) {
    std::printf("consumer: wrong product\n");
    return 1;
  }
  std::printf("consumer: dla %s on %s backend: ok\n", DLA_VERSION_STRING, dla::to_string(ctx.backend()));
  return 0;
}
