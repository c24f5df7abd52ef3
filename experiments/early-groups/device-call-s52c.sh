#!/usr/bin/env bash
# Session 52, call 2: with the half trapezoids (session 51) a deep group's
# trapezoid costs the critical path about half of what it did when session 39
# chose the early groups (depth + 2 while the trailing order > 2600) and
# session 38 the bulk update's 96 SMs. Do deeper or longer early groups, more
# of a group's panels on the side stream, or another side share pay now?
# Prediction: within +-1% at 4096 for most; a win, if any, from deeper early
# groups (fewer critical trapezoids, the bulk update at a deeper k): -10 to
# -30 us. Knobs (branch s52-early-knobs): DLA_POTRF_EARLY_EXTRA,
# DLA_POTRF_EARLY_TRAILING, DLA_POTRF_TRAP_HALF_PANELS (15 = all but the
# last), DLA_POTRF_SIDE_SMS.
# Then the knobs' ctest entries and the gpu-check's sanitize and bench steps
# (its test step ran in call 1 on the same library code plus the opt-in
# signal, s52-half-signal).
# Run: `run` with `LIMIT=580 bash experiments/early-groups/device-call-s52c.sh`, carry [".carry"].
LIMIT=${LIMIT:-580}
. "$(dirname "$0")/../common/device_call.sh"
gpu_line "$O/gpu.txt"
sweep_potrf "3000 4096 4352" 3 300 rule DLA_POTRF_EARLY_EXTRA=3 DLA_POTRF_EARLY_EXTRA=4 \
  DLA_POTRF_EARLY_TRAILING=2000 DLA_POTRF_EARLY_TRAILING=3200 \
  DLA_POTRF_EARLY_EXTRA=4,DLA_POTRF_EARLY_TRAILING=2000 \
  DLA_POTRF_TRAP_HALF_PANELS=15 DLA_POTRF_TRAP_HALF_PANELS=1 \
  DLA_POTRF_SIDE_SMS=104 DLA_POTRF_SIDE_SMS=88 > "$O/sweep.txt"
echo "sweep end at ${SECONDS} s" >> "$O/gpu.txt"
(cd $B && timeout 60 ctest -j 8 -R "trap_half_panels_late|early_groups_deeper" > "$O/ctest-knobs.txt" 2>&1
 echo "ctest knobs rc $?" >> "$O/ctest-knobs.txt")
gpu_check_carried 5 sanitize,bench
echo "end at ${SECONDS} s" >> "$O/gpu.txt"
cat "$O/gpu.txt" "$O/sweep.txt"; tail -3 "$O/ctest-knobs.txt"; cat "$O/summary.txt" "$O/check/summary.txt"
