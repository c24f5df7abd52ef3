#!/usr/bin/env bash
# Session 48: spotrf with a misaligned A (lda % 4 != 0 or a misaligned
# address) factored in an aligned copy in the workspace (potrf_pads,
# cholesky_cuda.hpp). Found in session 48's call: spotrf n = 4097 (lda = n)
# 1.77 ms, 1.06-1.08x cuSOLVER, against 4096's 1.31 ms (1.20x), on an H100.
#
# Run: `run` with `bash experiments/pad/device-call-s48.sh`, carry [".carry"]
# (scripts/carry-build.sh build: main's CUDA build with the change). LIMIT
# (default 300 s) bounds the whole call; steps in order of need:
#   1. ctest of CholeskyHost.* and CholeskyDevice.* (the new workspace cases);
#   2. bench potrf, DLA_POTRF_PAD=1 (the rule) against 0 (in place), odd
#      and aligned sizes;
#   3. SanitizeCholesky under memcheck and racecheck (its 1101 case runs the
#      copy kernel);
#   4. a second bench round, getrf at 4096 / 4097 (does LU have the same
#      cliff?), the rest of the GPU tests (the cholesky_test.blocking_* knob
#      variants among them), as time allows.
# Prediction: 4097 from 1.77 to ~1.36 ms (4096's 1.31 plus ~45 us of copies:
# 8 n^2 bytes at ~3 TB/s), ~1.4x cuSOLVER; 3001 (0.88 ms aligned 3000) and
# 6145 / 8193 gain likewise; 1025 / 2049 less sure (copies ~5-15 us).
set -u
O="${OUT:-/tmp/out}"; mkdir -p "$O"
LIMIT=${LIMIT:-300}
left() { echo $(( LIMIT - SECONDS )); }
tar xJf .carry/build.tar.xz
export DLA_EXPECT_GPU=1
B=build
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$O/summary.txt"
(cd $B && timeout $(( $(left) / 3 )) ctest -j 8 -R '^Cholesky' --output-on-failure > "$O/ctest-cholesky.log" 2>&1)
echo "ctest Cholesky: rc $? $(grep -E 'tests passed|tests failed' "$O/ctest-cholesky.log")" >> "$O/summary.txt"
bench_round() {
  for pad in 1 0; do
    [ "$(left)" -gt 25 ] || break
    echo "== round $1 DLA_POTRF_PAD=$pad"
    DLA_POTRF_PAD=$pad timeout 25 $B/apps/dla bench potrf --sizes $2 \
      --variants tf32x3 --repeat 5 2>/dev/null | awk '/^potrf .*spotrf/{print $4, $5, $6, $7, $8, $NF}'
  done >> "$O/potrf-pad.txt" 2>&1
}
bench_round 1 "2049 3001 4096 4097 8193"
for tool in memcheck racecheck; do
  [ "$(left)" -gt 70 ] || break
  timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/sanitize_test \
    --gtest_filter='SanitizeCholesky.*' > /tmp/san-$tool.txt 2>&1
  echo "$tool SanitizeCholesky: rc $? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' /tmp/san-$tool.txt | tr '\n' ' ')" >> "$O/summary.txt"
done
bench_round 2 "1025 2049 3001 4096 4097 6145 8193"
if [ "$(left)" -gt 50 ]; then
  timeout 30 $B/apps/dla bench getrf --sizes 4096 4097 --repeat 5 2>/dev/null |
    awk '/^getrf /{print $2, $3, $4, $5, $6, $7, $8}' > "$O/getrf-odd.txt" 2>&1
fi
if [ "$(left)" -gt 40 ]; then
  (cd $B && timeout $(( $(left) - 10 )) ctest -j 12 -E '^Cholesky|install_consumer' --output-on-failure > "$O/ctest-rest.log" 2>&1)
  echo "ctest rest: rc $? $(grep -E 'tests passed|tests failed' "$O/ctest-rest.log")" >> "$O/summary.txt"
fi
echo "(end at ${SECONDS} s)" >> "$O/summary.txt"
cat "$O/summary.txt" "$O/potrf-pad.txt" "$O/getrf-odd.txt" 2>/dev/null
