#!/usr/bin/env bash
# Session 50, call 5: branch s50-gemm-c4. The tuned SGEMM's epilogue where C
# is not 16-byte addressable (ldc % 4 != 0): the four loads of C first, then
# the four stores, instead of a load / store pair per row (each conditional
# load waited for the store before it). Also the split-K reduction.
# Prediction: sgetrf 4097 in place (DLA_GETRF_PAD=0), whose trailing GEMM
# ran 5.9 ms against 3.2 at 4096 (call 1's split, H100): its GEMM phase
# toward ~3.5 ms and the factorization 9.3 -> ~7.8 ms (H200); aligned shapes
# unchanged (the float4 path is untouched); sgemm 4097^3 (k deep) within 1%.
# Run: `run` with `LIMIT=330 bash experiments/gemm-c4/device-call-s50c.sh`,
# carry [".carry"] (scripts/carry-build.sh build /tmp/maindla/dla-s50: the
# branch's build, main's dla as build/extra/dla-s50).
LIMIT=${LIMIT:-330}
. "$(dirname "$0")/../common/device_call.sh"  # O, left, B (as run: these lines inline)
export DLA_EXPECT_GPU=1
nvidia-smi --query-gpu=name --format=csv,noheader > "$O/gpu.txt"
for d in $B/extra/dla-s50 $B/apps/dla; do  # as run: extra/dla (a wrong name; carry-build keeps dla-s50)
  echo "== $d"
  DLA_GETRF_PAD=0 timeout 30 $d bench getrf --sizes 4096 4097 8193 --variants sgetrf,native \
    --repeat 5 2>/dev/null | awk '/^getrf .*sgetrf/{print "in place", $4, $5, $8; sub(/.*no-lookahead/, "  no-lookahead"); print}'
  timeout 15 $d bench getrf --sizes 4097 --variants sgetrf,native --repeat 5 2>/dev/null |
    awk '/^getrf .*sgetrf/{print "copy", $4, $5, $8}'
  DLA_POTRF_PAD=0 timeout 15 $d bench potrf --sizes 4097 --variants tf32x3 --repeat 5 2>/dev/null |
    awk '/^potrf .*spotrf/{print "spotrf in place", $4, $5, $8}'
  timeout 30 $d bench gemm --sizes 3001 4096 4097 --repeat 5 2>/dev/null |
    grep -E '^gemm ' | cut -c1-120
done > "$O/ab.txt" 2>&1
echo "A/B done at ${SECONDS} s" >> "$O/summary.txt"
# As run: without DLA_TEST_PYTHON3 (the HDF5 interop / IO error / CLI tests then fail).
(cd $B && DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 timeout $(( $(left) - 60 )) ctest \
   -j 12 -E install_consumer > "$O/ctest.log" 2>&1)
echo "ctest: rc $? $(grep -E 'tests passed|tests failed' "$O/ctest.log") at ${SECONDS} s" >> "$O/summary.txt"
if [ "$(left)" -gt 30 ]; then
  timeout $(( $(left) - 5 )) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/sanitize_test \
    --gtest_filter='SanitizeGemm.*:SanitizeLu.*' > "$O/memcheck.txt" 2>&1
  echo "memcheck SanitizeGemm+Lu: rc $? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$O/memcheck.txt" | tr '\n' ' ') at ${SECONDS} s" >> "$O/summary.txt"
fi
cat "$O/gpu.txt" "$O/summary.txt" "$O/ab.txt"; grep -E "Failed|\*\*\*" "$O/ctest.log" | head
