#!/usr/bin/env bash
# Packs a build tree made on this (GPU-less) machine for the device machine,
# so that scripts/gpu-check.sh can run its test, sanitize and bench steps
# there without the 5-minute device build (docs/gpu-workflow.md):
#
#   scripts/carry-build.sh [build-dir] [extra-file...]
#     # default build/, writes .carry/build.tar.xz; extra files (an experiment
#     # binary, a second build's test) go stripped into build/extra/
#   # device call, carry [".carry"]:
#   tar xJf .carry/build.tar.xz && DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 \
#     GPU_CHECK_BUILD_DIR=$PWD/build GPU_CHECK_STEPS=test,sanitize,bench \
#     GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" bash scripts/gpu-check.sh
#
# The ctest files hold absolute paths: the checkout must sit at the same path
# on both machines (it does: the device copies the working tree to the same
# place). The build must include sm_90 (the default CMAKE_CUDA_ARCHITECTURES,
# so scripts/test.sh's build/ qualifies).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
[ $# -gt 0 ] && shift
EXTRA=("$@")
OUT_DIR="$ROOT/.carry"
OUT="$OUT_DIR/build.tar.xz"

[ -f "$BUILD/CTestTestfile.cmake" ] || { echo "carry-build: no ctest files in $BUILD (build with BUILD_TESTING=ON first)" >&2; exit 1; }
[ -x "$BUILD/apps/dla" ] || { echo "carry-build: $BUILD/apps/dla is missing (build first)" >&2; exit 1; }

# .carry/ must not be committed.
exclude="$(git -C "$ROOT" rev-parse --git-path info/exclude)"
case "$exclude" in /*) ;; *) exclude="$ROOT/$exclude" ;; esac
mkdir -p "$(dirname "$exclude")"
grep -qx '/.carry/' "$exclude" 2>/dev/null || echo '/.carry/' >> "$exclude"

# gtest lists are discovered when ctest runs (DISCOVERY_MODE PRE_TEST) by
# running each test binary with --gtest_list_tests (no GPU needed). Refresh
# them here: the device would otherwise keep a stale list, because the
# discovery script path recorded here (this machine's CMake) does not exist
# there and the old list is used as is.
(cd "$BUILD" && ctest -N > /dev/null)

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/build/tests" "$stage/build/apps"
cp "$BUILD/CTestTestfile.cmake" "$stage/build/"
cp "$BUILD/tests/CTestTestfile.cmake" "$stage/build/tests/"
cp "$BUILD"/tests/*_include.cmake "$BUILD"/tests/*_tests.cmake "$stage/build/tests/"
n=0
for t in "$BUILD"/tests/*_test; do
  [ -x "$t" ] || continue
  cp "$t" "$stage/build/tests/" && strip "$stage/build/tests/$(basename "$t")"
  n=$((n + 1))
done
cp "$BUILD/apps/dla" "$stage/build/apps/" && strip "$stage/build/apps/dla"
for f in "${EXTRA[@]}"; do
  mkdir -p "$stage/build/extra"
  cp "$f" "$stage/build/extra/"  # a missing extra file stops the script (set -e)
  strip "$stage/build/extra/$(basename "$f")" 2>/dev/null || true  # scripts are not stripped
done
# The copies (and strip) give the binaries a new mtime; a test list older than
# its binary makes ctest rediscover, with this machine's CMake module path.
sleep 1
touch "$stage"/build/tests/*_tests.cmake
mkdir -p "$OUT_DIR"
# xz -9 (a 64 MB dictionary): the binaries share most of their device code,
# so the archive is about half of what the default level gives (session 38:
# 30 MB against 56 with an experiment binary added, ~1.5 min on 2 cores).
tar cf - -C "$stage" build | xz -9 -T2 > "$OUT"
echo "carry-build: $n test binaries + dla -> $OUT ($(du -h "$OUT" | cut -f1))"
