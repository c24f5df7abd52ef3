#!/usr/bin/env bash
# The test command: installs missing Debian packages (as root), builds build/
# (Release, all cores) and runs the whole ctest suite. Idempotent and
# incremental. GPU tests skip themselves when no device is present.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
dla_install_deps --with-test-deps
dla_build "$@"
cd "$DLA_BUILD_DIR"
ctest --output-on-failure -j "$(nproc)"
