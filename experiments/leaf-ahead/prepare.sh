#!/usr/bin/env bash
# Prepares the carried build for experiments/leaf-ahead/device-call-s55a.sh
# on a clean main checkout (session 54; no GPU needed, ~5-30 minutes on the
# 2-core machine depending on what build/ already holds):
#   1. main's `dla` as /tmp/s55/dla-main (the baseline of the A/B);
#   2. branch s55-next: main + experiments/leaf-ahead/s54-next.patch (the
#      half release of the last sub-panel and the leaf-ahead factor loop,
#      both on by default there; DLA_POTRF_HALF_RELEASE=0 and
#      DLA_POTRF_LEAF_AHEAD=0 turn them off), built in build/;
#   3. the branch's stamped timeline (experiments/timeline/timeline.cu's
#      header) and leaf_probe (experiments/diag-leaf/leaf_probe.cu);
#   4. the host emulation of the two factor loops (must say "0 differ");
#   5. scripts/carry-build.sh build + the three extras -> .carry/build.tar.xz.
# Then `run` with `LIMIT=580 bash experiments/leaf-ahead/device-call-s55a.sh`,
# carry [".carry"]. The checkout stays on branch s55-next.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -z "$(git status --porcelain --untracked-files=no)" ] || { echo "prepare: the tree has changes" >&2; exit 1; }
[ "$(git rev-parse --abbrev-ref HEAD)" = main ] || { echo "prepare: run it on main" >&2; exit 1; }
X=/tmp/s55; mkdir -p "$X"
# build/ as scripts/test.sh makes it (the README's test command).
[ -f build/CMakeCache.txt ] || bash scripts/test.sh
make -C build -j2 dla_cli
cp build/apps/dla "$X/dla-main"
git checkout -q -b s55-next
git apply experiments/leaf-ahead/s54-next.patch
git add -A solvers tests experiments
git commit -qm "s55-next: experiments/leaf-ahead/s54-next.patch (half release, leaf-ahead loop)"
make -C build -j2
inc="-Isolvers/include -Icore/include -Ibuild/core/include -Igemm/include"
nvcc -O3 -DNDEBUG -arch=sm_90 --expt-relaxed-constexpr -std=c++20 \
  -include experiments/timeline/diag_stamps.cuh $inc -Isolvers/src/cuda \
  -c solvers/src/cuda/potrf.cu -o "$X/potrf_stamps.o"
nvcc -O3 -std=c++17 -arch=sm_90 $inc experiments/timeline/timeline.cu "$X/potrf_stamps.o" \
  build/solvers/libdla_solvers.a build/gemm/libdla_gemm.a build/core/libdla_core.a \
  -lcusolver -lcublas -lcupti -lcuda -o "$X/timeline"
nvcc -O3 -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -lineinfo -Icore/include \
  -Ibuild/core/include -Isolvers/src/cuda experiments/diag-leaf/leaf_probe.cu -o "$X/leaf_probe"
g++ -O2 -std=c++20 -pthread experiments/leaf-ahead/lane_emulator.cpp -o "$X/lane_emulator"
"$X/lane_emulator" 2000
bash scripts/carry-build.sh build "$X/dla-main" "$X/timeline" "$X/leaf_probe"
