# Shared by scripts/test.sh and scripts/demo.sh: install what is missing,
# configure and build into build/. Source it; do not run it.

DLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DLA_BUILD_DIR="${DLA_BUILD_DIR:-$DLA_ROOT/build}"
# What the build needs, as "test|package": a package is installed only when
# its test fails, so machines that got these tools some other way (pip's
# cmake, a toolkit image) are left alone. CUDA comes from the CUDA toolkit.
DLA_BUILD_NEEDS=(
  "command -v cmake|cmake"
  "command -v make|make"
  "command -v g++|g++"
  "test -f /usr/include/eigen3/Eigen/Core|libeigen3-dev"
  "test -f /usr/include/hdf5/serial/hdf5.h -o -f /usr/include/hdf5.h|libhdf5-dev"
  "test -f /usr/include/CLI/CLI.hpp|libcli11-dev"
  "test -f /usr/include/gtest/gtest.h|libgtest-dev"
)
# The tests also check files with h5py (any python3 that has it will do).
DLA_TEST_NEEDS=(
  "dla_have_h5py|python3-h5py"
  "dla_have_h5py|python3-numpy"
)

dla_have_h5py() {
  local py
  for py in /usr/bin/python3 $(which -a python3 2>/dev/null); do
    "$py" -c "import h5py, numpy" >/dev/null 2>&1 && return 0
  done
  return 1
}

# dla_install_deps [--with-test-deps]
dla_install_deps() {
  local needs=("${DLA_BUILD_NEEDS[@]}") missing=() entry
  [ "${1:-}" = "--with-test-deps" ] && needs+=("${DLA_TEST_NEEDS[@]}")
  for entry in "${needs[@]}"; do
    eval "${entry%%|*}" >/dev/null 2>&1 || missing+=("${entry##*|}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "missing packages: ${missing[*]} (install them, or run this script as root on Debian/Ubuntu)" >&2
    return 1
  fi
  echo "installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

dla_build() {
  # nvcc from the CUDA toolkit, when installed but not on PATH.
  if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH="/usr/local/cuda/bin:$PATH"
  fi
  cmake -S "$DLA_ROOT" -B "$DLA_BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON "$@"
  cmake --build "$DLA_BUILD_DIR" -j "$(nproc)"
}
