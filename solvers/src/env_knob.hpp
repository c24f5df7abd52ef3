#pragma once
// The solvers' tuning variables (DLA_POTRF_*, DLA_GETRF_*): how a rule's
// override is read from the environment. Host code, for the rules' files
// (potrf_blocking.cpp, getrf_blocking.cpp) and potrf.cu's A/B switches
// (cuda/potrf_switches.cuh). Each caller reads its variable once (a static).
#include <cstdlib>

#include "dla/core/types.hpp"

namespace dla::cuda::detail {

// A yes/no override: 1 for a value starting with '1', 0 for one starting
// with '0', -1 (use the rule) when unset or anything else.
inline int env_yes_no(const char* name) {
  const char* e = std::getenv(name);
  return e && (e[0] == '0' || e[0] == '1') ? e[0] - '0' : -1;
}

// A number override: the value if it is an integer in [lo, hi], else 0 (use
// the rule).
inline index_t env_index(const char* name, long long lo, long long hi) {
  const char* e = std::getenv(name);
  if (!e) return 0;
  char* end = nullptr;
  const long long x = std::strtoll(e, &end, 10);
  return end != e && *end == '\0' && x >= lo && x <= hi ? index_t(x) : index_t(0);
}

}  // namespace dla::cuda::detail
