#!/usr/bin/env bash
# Prepared in session 54 (no device was lent), for the next device time: the
# branch s55-next (main + s54-next.patch: the leaf kernel releases columns
# 96..111 by half a unit and the copier panel solves the last chunk in two
# halves; the leaf factor loop with the next pivot a column ahead; both on
# by default) against main, whose `dla` is carried as build/extra/dla-main.
# Before: `bash experiments/leaf-ahead/prepare.sh` on a clean main checkout.
# Run: `run` with `LIMIT=580 bash experiments/leaf-ahead/device-call-s55a.sh`, carry [".carry"].
#
# In order (the checks first, so that a wrong branch is known before its times):
#   1. leaf_probe: the leaf kernel alone with each loop, the factors bit for
#      bit (exit 1 if not), the phases per leaf;
#   2. `dla factor` at 4096 and 3001 with each switch off and on, compared
#      bit for bit (bitwise.py);
#   3. every cholesky ctest entry of the branch (new: leaf_plain_factor,
#      half_release_off) and memcheck / racecheck / synccheck of
#      SanitizeCholesky;
#   4. spotrf tf32x3 at 2048 3000 4096 5000 8192, two rounds interleaved:
#      main, main without the copier, the branch, the branch without the
#      half release, the branch without the ahead loop; then 8192, 12288
#      and 16384 with the branch's rule, the leaf kernel forced
#      (DLA_POTRF_DIAG_LEAF=1), and the fused panels of more than 1 / 4000 /
#      8000 rows launched after the diagonal kernel (DLA_POTRF_PANEL_AFTER_ROWS);
#   5. the stamped timeline at 4096 with both off (main's kernels) and both on;
#      a traced run at 4096 and 16384 and its time split (split.py);
#   6. `dla bench potrf` of main and of the branch (the table's rows).
# Predictions (session 54): (1) the ahead loop's leaf factorization 15-27%
# shorter (session 44's measurement of the same idea), the kernel alone ~1 us
# shorter; (2) bitwise equal for both switches; (3) all pass, sanitizers
# clean; (4) main's 4096 on an H100 1.21-1.23 ms (session 53), on the H200
# ~1.21-1.23 (1.24-1.26x); the half release -30 to -45 us at 4096, the ahead
# loop -20 to -30 us more now that the panel keeps up with the diagonal
# kernel (it was at parity in session 44, when the panel bound each step);
# both: 4096 ~1.15-1.17 ms; 8192 -1 to -2%; 12288 / 16384 with the leaf
# kernel forced: within 1% either way (most steps there wait for the bulk
# update); the panels after the diagonal kernel: if waiting panel blocks
# starve the bulk update (session 35's finding that the critical kernels
# took ~0.8 ms of a group's SM time), 16384 -0.3 to -1.5 ms with X = 4000 or
# 8000 (the panels beside it where the chain bounds the step), X = 1 less or
# worse, 8192 worse with X = 1 (its chain matters more); if not, every X
# slower; (5) the panel's tail after the
# diagonal kernel ~3-3.7 us with both off, ~2-2.3 with the half release.
LIMIT=${LIMIT:-580}
. "$(dirname "$0")/../common/device_call.sh"
M=$B/extra/dla-main
gpu_line "$O/gpu.txt"
timeout 60 "$B/extra/leaf_probe" 128 20 > "$O/probe.txt" 2>&1
echo "leaf_probe rc $? at ${SECONDS} s" >> "$O/gpu.txt"
for var in DLA_POTRF_LEAF_AHEAD DLA_POTRF_HALF_RELEASE; do
  BITWISE_VAR=$var timeout 60 /opt/torch/.venv/bin/python3 \
    experiments/panel-copier/bitwise.py "$B/apps/dla" /tmp 4096 3001 >> "$O/gpu.txt" 2>&1
  echo "bitwise $var rc $? at ${SECONDS} s" >> "$O/gpu.txt"
done
cholesky_checks ${CHECK_RESERVE:-300}
for r in 1 2; do
  [ "$(left)" -gt 120 ] || { echo "sweep stopped at ${SECONDS} s" >> "$O/sweep.txt"; break; }
  for cfg in main main-copier0 next next-half0 next-ahead0; do
    case $cfg in
      main) bin=$M; env=() ;;
      main-copier0) bin=$M; env=(DLA_POTRF_PANEL_COPIER=0) ;;
      next) bin=$B/apps/dla; env=() ;;
      next-half0) bin=$B/apps/dla; env=(DLA_POTRF_HALF_RELEASE=0) ;;
      next-ahead0) bin=$B/apps/dla; env=(DLA_POTRF_LEAF_AHEAD=0) ;;
    esac
    env "${env[@]}" timeout 40 "$bin" bench potrf --sizes 2048 3000 4096 5000 8192 \
      --variants tf32x3 --repeat 10 2>/dev/null |
      awk -v r="$r" -v c="$cfg" '/^potrf .*spotrf/{print "round " r, c, $4, $5, $8, $9, $10}' >> "$O/sweep.txt"
  done
done
# Large n, the branch: its rule; the leaf diagonal kernel forced above 12288
# (the tile kernel runs there: the leaf kernel was 1% slower at 16384 in
# session 37, before the copier and the ahead loop); fused panels of more
# than X rows launched after the diagonal kernel (DLA_POTRF_PANEL_AFTER_ROWS).
for r in 1 2; do
  [ "$(left)" -gt 110 ] || break
  for cfg in next next-leaf1 next-after1 next-after4000 next-after8000; do
    case $cfg in
      next) env=() ;;
      next-leaf1) env=(DLA_POTRF_DIAG_LEAF=1) ;;
      next-after*) env=(DLA_POTRF_PANEL_AFTER_ROWS=${cfg#next-after}) ;;
    esac
    env "${env[@]}" timeout 60 "$B/apps/dla" bench potrf --sizes 8192 12288 16384 --variants tf32x3 \
      --repeat 10 2>/dev/null |
      awk -v r="$r" -v c="$cfg" '/^potrf .*spotrf/{print "round " r, c, $4, $5, $8, $9, $10}' >> "$O/sweep.txt"
  done
done
echo "sweep end at ${SECONDS} s" >> "$O/gpu.txt"
DLA_POTRF_HALF_RELEASE=0 DLA_POTRF_LEAF_AHEAD=0 timeout 40 "$B/extra/timeline" -q 4096 > "$O/stamps-off.txt" 2>&1
timeout 40 "$B/extra/timeline" -q 4096 > "$O/stamps-on.txt" 2>&1
# The time split (the issue's report): one traced run at 4096 and 16384,
# grouped by experiments/timeline/split.py (the stamped timeline: thread 0 of
# each diagonal and panel kernel also stores a few clock stamps).
timeout 60 "$B/extra/timeline" 4096 16384 > "$O/timeline.txt" 2>&1
/opt/torch/.venv/bin/python3 experiments/timeline/split.py "$O/timeline.txt" > "$O/split.txt" 2>&1
for bin in "$M" "$B/apps/dla"; do
  [ "$(left)" -gt 45 ] || break
  echo "== bench potrf $bin" >> "$O/bench.txt"
  timeout 40 "$bin" bench potrf >> "$O/bench.txt" 2>&1
done
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
# At most 8 files come back: fold the small ones into main.txt.
{ cat "$O/gpu.txt" "$O/sweep.txt"; grep -E "tests passed|tests failed|Failed  |\*\*\*" "$O/ctest.txt" | head -20
  grep -h "equal\|DIFFERENT\|best" "$O/probe.txt"; grep -h "median\|sum of" "$O"/stamps-*.txt
  cat "$O/split.txt"; grep -E "^potrf" "$O/bench.txt" | grep -E "tf32x3 +(spotrf|sposv)"; } > "$O/main.txt"
rm -f "$O/gpu.txt" "$O/sweep.txt" "$O/split.txt"
tail -n 25 "$O"/san-*.txt > "$O/san.txt" && rm -f "$O"/san-*.txt
cat "$O/main.txt"
find "$O" -type f | sort
