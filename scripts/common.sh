# Shared by scripts/test.sh and scripts/demo.sh: install what is missing,
# configure and build into build/. Source it; do not run it.

DLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DLA_BUILD_DIR="${DLA_BUILD_DIR:-$DLA_ROOT/build}"
# Debian packages the build and the tests need (CUDA comes from the toolkit, if any).
DLA_PACKAGES=(cmake make g++ libeigen3-dev libhdf5-dev hdf5-tools libcli11-dev libgtest-dev
              python3 python3-h5py python3-numpy)

dla_install_deps() {
  local missing=()
  for p in "${DLA_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
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
