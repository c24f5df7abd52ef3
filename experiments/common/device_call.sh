# Sourced by the device call scripts (experiments/*/device-call-*.sh) after
# they set LIMIT's default: the output folder O ($OUT on the device), left()
# (seconds left of LIMIT), the carried build unpacked (scripts/carry-build.sh)
# as B, gpu_check_carried (the project's gpu-check of that build), ab_getrf
# (one getrf A/B row set), ab_potrf (rounds of spotrf over one knob's values),
# trace_potrf, gpu_line, sweep_potrf, cholesky_checks, split_potrf and potrf_table. Since session 50; the scripts of earlier sessions carry the
# same lines inline, as they ran (session 51's ab_potrf / gpu_line too).
set -u
O="${OUT:-/tmp/out}"; mkdir -p "$O"
LIMIT=${LIMIT:-300}
left() { echo $(( LIMIT - SECONDS )); }
tar xJf .carry/build.tar.xz
B=$PWD/build

# ab_getrf LABEL DLA SIZES [VAR=value ...]: sgetrf native and dgetrf rows of
# `DLA bench getrf` at SIZES (quoted list), with the environment given; prints
# "variant op n=N ms ratio".
ab_getrf() {
  local label=$1 bin=$2 sizes=$3; shift 3
  echo "== $label"
  env "$@" timeout 40 "$bin" bench getrf --sizes $sizes --variants sgetrf,native,dgetrf \
    --repeat 5 2>/dev/null | awk '/^getrf .*getrf/{print $2, $3, $4, $5, $8}'
}

# gpu_line FILE: the card's name, driver, memory and top clock, to FILE.
gpu_line() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader > "$1"
}

# ab_potrf VAR "VALUES" "SIZES" ROUNDS: spotrf tf32x3 (`dla bench potrf`,
# --repeat 10) at SIZES with VAR set to each of VALUES in turn, ROUNDS times;
# prints "round R VAR=V n=N ms ratio error status".
ab_potrf() {
  local var=$1 values=$2 sizes=$3 rounds=$4 r v
  for r in $(seq 1 "$rounds"); do
    for v in $values; do
      env "$var=$v" timeout 40 "$B/apps/dla" bench potrf --sizes $sizes --variants tf32x3 \
        --repeat 10 2>/dev/null |
        awk -v r="$r" -v c="$var=$v" '/^potrf .*spotrf/{print "round " r, c, $4, $5, $8, $9, $10}'
    done
  done
}

# trace_potrf VAR VALUE FILE: one spotrf tf32x3 at 4096 with DLA_POTRF_TRACE=1
# (the look-ahead's per-step event times on stderr) and VAR=VALUE, to FILE.
trace_potrf() {
  env "$1=$2" DLA_POTRF_TRACE=1 timeout 30 "$B/apps/dla" bench potrf --sizes 4096 \
    --variants tf32x3 --repeat 1 > "$3" 2>&1
}

# gpu_check_carried RESERVE [STEPS] [DIR]: scripts/gpu-check.sh (STEPS, by
# default test,sanitize,bench; the suites potrf and getrf, every sanitizer
# test) on the carried build, output in $O/DIR (default check), leaving
# RESERVE seconds of LIMIT; its rc goes to $O/summary.txt.
gpu_check_carried() {
  mkdir -p "$O/${3:-check}"
  OUT="$O/${3:-check}" DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 GPU_CHECK_BUILD_DIR=$B \
    GPU_CHECK_STEPS=${2:-test,sanitize,bench} GPU_CHECK_SUITES="potrf getrf" \
    GPU_CHECK_CTEST_ARGS="-j 12 -E install_consumer" \
    timeout $(( $(left) - $1 > 10 ? $(left) - $1 : 10 )) bash scripts/gpu-check.sh \
    > "$O/gpu-check-${3:-check}.txt" 2>&1
  echo "gpu-check ${2:-test,sanitize,bench} rc $? at ${SECONDS} s" >> "$O/summary.txt"
}

# sweep_potrf "SIZES" ROUNDS RESERVE CONFIG...: spotrf tf32x3 (`dla bench
# potrf`, --repeat 10) at SIZES under each CONFIG (a comma list of VAR=value,
# or "rule" for none), configurations interleaved per round, stopping while
# fewer than RESERVE seconds of LIMIT are left; prints "round R CONFIG n=N ms
# ratio error status".
sweep_potrf() {
  local sizes=$1 rounds=$2 reserve=$3 r cfg; shift 3
  for r in $(seq 1 "$rounds"); do
    for cfg in "$@"; do
      [ "$(left)" -gt "$reserve" ] || { echo "sweep stopped at ${SECONDS} s"; return; }
      local vars=(); [ "$cfg" = rule ] || IFS=, read -ra vars <<< "$cfg"
      env "${vars[@]}" timeout 40 "$B/apps/dla" bench potrf --sizes $sizes --variants tf32x3 \
        --repeat 10 2>/dev/null |
        awk -v r="$r" -v c="$cfg" '/^potrf .*spotrf/{print "round " r, c, $4, $5, $8, $9, $10}'
    done
  done
}

# cholesky_checks RESERVE [VAR=value ...]: every cholesky ctest entry of the
# carried build (-j 8, stopping RESERVE seconds before LIMIT), then memcheck,
# racecheck and synccheck of SanitizeCholesky at once, all with the
# environment given; logs to $O/ctest.txt and $O/san-TOOL.txt, one line each
# to $O/gpu.txt. Since session 53.
cholesky_checks() {
  local reserve=$1 tool; shift
  (cd "$B" && env "$@" DLA_EXPECT_GPU=1 DLA_TEST_PYTHON3=/opt/torch/.venv/bin/python3 \
    timeout $(( $(left) - reserve )) ctest -R cholesky -j 8 --output-on-failure) > "$O/ctest.txt" 2>&1
  echo "ctest rc $? at ${SECONDS} s" >> "$O/gpu.txt"
  for tool in memcheck racecheck synccheck; do
    env "$@" DLA_EXPECT_GPU=1 timeout $(( $(left) - 8 )) compute-sanitizer --tool $tool \
      --error-exitcode 99 "$B/tests/sanitize_test" --gtest_filter='SanitizeCholesky*' \
      > "$O/san-$tool.txt" 2>&1 &
  done
  wait
  for tool in memcheck racecheck synccheck; do
    echo "$tool: $(grep -E 'SUMMARY|PASSED|FAILED' "$O/san-$tool.txt" | tr '\n' ' ')" >> "$O/gpu.txt"
  done
}

# split_potrf NAME "SIZES": one traced spotrf per size (the carried
# extra/timeline, experiments/timeline/timeline.cu) to $O/NAME.txt, the time
# split of dla's and cuSOLVER's runs (split.py) appended to $O/split-NAME.txt
# and printed, the trace compressed. Since session 56.
split_potrf() {
  local lib
  timeout 60 "$B/extra/timeline" $2 > "$O/$1.txt" 2>&1
  for lib in dla cusolver; do
    /opt/torch/.venv/bin/python3 experiments/timeline/split.py "$O/$1.txt" --lib $lib \
      >> "$O/split-$1.txt" 2>&1
  done
  cat "$O/split-$1.txt"; xz -9 "$O/$1.txt"
}

# potrf_table RESERVE: the card's line ($O/gpu.txt), the full gpu-check of the
# carried build (gpu_check_carried, output in $O/check) and its spotrf /
# sposv tensor-core rows: the issue's table. Since session 56.
potrf_table() {
  gpu_line "$O/gpu.txt"; cat "$O/gpu.txt"
  gpu_check_carried "$1" test,sanitize,bench check
  cat "$O/summary.txt" "$O/check/summary.txt"
  grep -E "^potrf +tf32x3 +(spotrf|sposv)" "$O/check/bench.log"
}
