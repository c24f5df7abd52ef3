#!/usr/bin/env bash
# Session 40, call 7 (main's library): ncu durations of the critical-path
# updates of one spotrf 4096, in order, with the rule (clusters for updates
# of <= 66 tiles) and with one CTA per tile: the update kernels alone (ncu
# serializes them), against the ~1-3 us per step the stamps gave in place.
# Carry .carry (build.tar.xz).
set -u
tar xJf .carry/build.tar.xz
for ks in 4 0; do
  DLA_POTRF_CRIT_CLUSTER=$ks timeout 200 ncu --kernel-name regex:potrf_update --launch-count 31 \
    --metrics gpu__time_duration.sum --csv --print-units base \
    build/apps/dla bench potrf --sizes 4096 --variants tf32x3 --repeat 1 > "$OUT/ncu_$ks.csv" 2> "$OUT/ncu_$ks.err"
  echo "== DLA_POTRF_CRIT_CLUSTER=$ks: launch, kernel, grid, us"
  python3 - "$OUT/ncu_$ks.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; i_name = h.index("Kernel Name"); i_grid = h.index("Grid Size"); i_val = h.index("Metric Value")
out = []
for r in rows[1:]:
    name = "cluster" if "cluster" in r[i_name] else "one-CTA"
    out.append("%s %s %.1f" % (name, r[i_grid].replace(" ", ""), float(r[i_val]) / 1000.0))
print("; ".join(out))
PY
done
