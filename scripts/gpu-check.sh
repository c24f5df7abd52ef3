#!/usr/bin/env bash
# The one command for a machine with an NVIDIA GPU (the H200 device machine):
#   1. build   Release for sm_90 with tests (build-gpu/)
#   2. test    the whole ctest suite with DLA_EXPECT_GPU=1 (a GPU test that
#              would skip fails instead)
#   3. sanitize compute-sanitizer memcheck + racecheck on the small-size
#              sanitizer tests of every kernel (tests named *Sanitize*)
#   4. bench   `dla bench` suites against cuBLAS/cuSOLVER, JSON to $OUT
# and ends with a short summary table. Logs and JSON go to $OUT when it is set
# (else out/). Environment knobs:
#   GPU_CHECK_STEPS       comma list of steps (default build,test,sanitize,bench)
#   GPU_CHECK_SUITES      bench suites (default: gemm getrf potrf batched)
#   GPU_CHECK_BENCH_ARGS  extra args for every `dla bench` call (e.g. --quick)
#   GPU_CHECK_CTEST_ARGS  extra args for ctest (e.g. -R Gemm)
#   GPU_CHECK_SANITIZE_JOBS    sanitizer runs at a time (default 6; one run
#                         per test and tool)
#   GPU_CHECK_SANITIZE_FILTER  gtest filter of the sanitize step (default
#                         '*Sanitize*'; e.g. 'SanitizeLu.*:SanitizeTrsm.*' to
#                         check only the kernels a change touched)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$ROOT/out}"
mkdir -p "$OUT"
BUILD="${GPU_CHECK_BUILD_DIR:-$ROOT/build-gpu}"
STEPS=",${GPU_CHECK_STEPS:-build,test,sanitize,bench},"
SUITES="${GPU_CHECK_SUITES:-gemm getrf potrf batched}"
BENCH_ARGS="${GPU_CHECK_BENCH_ARGS:-}"
SAN_FILTER="${GPU_CHECK_SANITIZE_FILTER:-*Sanitize*}"
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
status=0
note() { printf '%-10s %s\n' "$1" "$2" | tee -a "$SUMMARY"; }
has() { [[ "$STEPS" == *",$1,"* ]]; }

# At most 8 files come back from $OUT: summary.txt build.log ctest.log
# sanitize.log bench.log bench.json.
note gpu "$(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | head -1)"
BENCH_TMP="$(mktemp -d)"

if has build; then
  t0=$(date +%s)
  if cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDLA_CUDA=ON \
       -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=ON > "$OUT/build.log" 2>&1 &&
     cmake --build "$BUILD" -j "$(nproc)" >> "$OUT/build.log" 2>&1; then
    note build "ok ($(( $(date +%s) - t0 )) s)"
  else
    note build "FAILED (see build.log)"; grep -E 'error|Error' "$OUT/build.log" | head -40
    cat "$SUMMARY"; exit 1
  fi
fi

if has test; then
  t0=$(date +%s)
  (cd "$BUILD" && DLA_EXPECT_GPU=1 ctest --output-on-failure -j 4 ${GPU_CHECK_CTEST_ARGS:-}) \
    > "$OUT/ctest.log" 2>&1
  rc=$?
  line=$(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)
  note test "${line:-no ctest summary} ($(( $(date +%s) - t0 )) s)"
  if [ $rc -ne 0 ]; then
    status=1
    sed -n '/The following tests FAILED/,$p' "$OUT/ctest.log" | head -30 | tee -a "$SUMMARY"
  fi
fi

if has sanitize; then
  # One compute-sanitizer run per (test, tool), GPU_CHECK_SANITIZE_JOBS at a
  # time (default 6: the racecheck of SanitizeCholesky alone takes ~80 s, the
  # nine tests one after another ~260 s under both tools). Each run logs to
  # its own file; sanitize.log holds them in order.
  : > "$OUT/sanitize.log"
  SAN_JOBS="${GPU_CHECK_SANITIZE_JOBS:-6}"
  if ! [[ "$SAN_JOBS" =~ ^[1-9][0-9]*$ ]]; then
    note sanitize "GPU_CHECK_SANITIZE_JOBS='$SAN_JOBS' is not a positive integer; using 6"
    SAN_JOBS=6
  fi
  SAN_TMP="$(mktemp -d)"
  san_runs=()   # "exe<TAB>test<TAB>tool"
  for exe in "$BUILD"/tests/*_test; do
    [ -x "$exe" ] || continue
    while read -r t; do
      for tool in memcheck racecheck; do san_runs+=("$exe"$'\t'"$t"$'\t'"$tool"); done
    done < <("$exe" --gtest_list_tests --gtest_filter="$SAN_FILTER" 2>/dev/null |
             awk '/^[^ ]/{s=$1} /^  /{print s $1}')
  done
  t0=$(date +%s)
  i=0
  for run in "${san_runs[@]}"; do
    IFS=$'\t' read -r exe t tool <<< "$run"
    while [ "$(jobs -rp | wc -l)" -ge "$SAN_JOBS" ]; do wait -n; done
    ( DLA_EXPECT_GPU=1 compute-sanitizer --tool "$tool" --error-exitcode 99 \
        "$exe" --gtest_filter="$t" > "$SAN_TMP/$i.log" 2>&1
      echo $? > "$SAN_TMP/$i.rc" ) &
    i=$((i + 1))
  done
  wait
  # One summary line per (binary, tool), as before: clean only if every
  # test's run was.
  declare -A san_n san_bad
  for ((j = 0; j < i; j++)); do
    IFS=$'\t' read -r exe t tool <<< "${san_runs[$j]}"
    key="$(basename "$exe") $tool"
    rc=$(cat "$SAN_TMP/$j.rc" 2>/dev/null || echo missing)
    { echo "== $key $t: rc $rc"; cat "$SAN_TMP/$j.log"; } >> "$OUT/sanitize.log"
    san_n[$key]=$(( ${san_n[$key]:-0} + 1 ))
    [ "$rc" = 0 ] || san_bad[$key]="${san_bad[$key]:-} $t"
  done
  [ "${#san_runs[@]}" -gt 0 ] || { note sanitize "no test matches '$SAN_FILTER'"; status=1; }
  while IFS= read -r key; do
    [ -n "$key" ] || continue
    if [ -z "${san_bad[$key]:-}" ]; then
      note sanitize "$key: clean (${san_n[$key]} tests)"
    else
      note sanitize "$key: ERRORS in${san_bad[$key]} (see sanitize.log)"; status=1
    fi
  done < <(printf '%s\n' "${!san_n[@]}" | sort)
  note sanitize "${#san_runs[@]} runs, $SAN_JOBS at a time ($(( $(date +%s) - t0 )) s)"
  rm -rf "$SAN_TMP"
fi

if has bench; then
  for s in $SUITES; do
    t0=$(date +%s)
    "$BUILD/apps/dla" bench "$s" $BENCH_ARGS --json "$BENCH_TMP/$s.json" 2>>"$OUT/bench.log" \
      | tee -a "$OUT/bench.log"
    rc=${PIPESTATUS[0]}
    note bench "$s: $( [ $rc -eq 0 ] && echo ok || echo "FAILED (exit $rc)") ($(( $(date +%s) - t0 )) s)"
    [ $rc -eq 0 ] || status=1
  done
  # One JSON array of every suite's rows.
  python3 - "$BENCH_TMP" "$OUT/bench.json" <<'PY'
import glob, json, sys
rows = []
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    rows += json.load(open(f))
json.dump(rows, open(sys.argv[2], "w"), indent=1)
PY
fi

echo
echo "== gpu-check summary =="
cat "$SUMMARY"
exit $status
