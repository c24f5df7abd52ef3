#!/usr/bin/env bash
# The main job, end to end: build dla if needed, generate a 4096 x 4096 system
# with `dla gen`, solve it with `dla solve` (on the GPU when one is present,
# else on the host) and print the summary. Extra arguments go to `dla solve`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
dla_install_deps
if [ ! -x "$DLA_BUILD_DIR/apps/dla" ]; then
  dla_build >/dev/null
else
  cmake --build "$DLA_BUILD_DIR" -j "$(nproc)" >/dev/null
fi
DLA="$DLA_BUILD_DIR/apps/dla"
WORK="${DLA_DEMO_DIR:-$DLA_ROOT/out/demo}"
mkdir -p "$WORK"
"$DLA" info
"$DLA" gen "$WORK/system.h5" --n 4096 --kind random --seed 7 --force
"$DLA" solve "$WORK/system.h5" -o "$WORK/solution.h5" --force "$@"
