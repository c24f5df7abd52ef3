#!/usr/bin/env bash
# Session 36, an extra call: ncu on one fused panel kernel of spotrf 4096
# (block column 10; under ncu the kernels run one at a time, so the panel
# finds its sub-panels released and shows its own chain): duration, shared-
# memory wavefronts, stall reasons, per-instruction samples.
# Carry .carry/build.tar.xz (scripts/carry-build.sh).
set -u
rm -rf build; tar xJf .carry/build.tar.xz
timeout 300 ncu --set full --import-source yes -k regex:potrf_panel_kernel --launch-skip 10 --launch-count 1 \
  --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_shuffle.sum \
  -o $OUT/panel build/apps/dla bench potrf --sizes 4096 --variants tf32x3 --repeat 1 > $OUT/ncu-run.txt 2>&1
echo "ncu rc=$?"; tail -2 $OUT/ncu-run.txt
ncu -i $OUT/panel.ncu-rep --page details > $OUT/panel-details.txt 2>&1
ncu -i $OUT/panel.ncu-rep --page raw --csv > $OUT/panel-raw.csv 2>&1
ncu -i $OUT/panel.ncu-rep --page source --csv --print-source sass > $OUT/panel-source.csv 2>&1
rm -f $OUT/panel.ncu-rep
grep -E "Duration|Elapsed Cycles|SM Frequency|Block Size|Grid Size|Registers|Warp Cycles Per Issued|Issued Ipc|Shared" $OUT/panel-details.txt | head -30
python3 - "$OUT/panel-raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr, units, vals = rows[0], rows[1], rows[2]
for want in ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum",
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "smsp__inst_executed_op_shuffle.sum",
             "gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum"]:
    for i, h in enumerate(hdr):
        if h == want: print(want, vals[i], units[i])
for i, h in enumerate(hdr):
    if h.startswith("smsp__average_warp_latency_issue_stalled") or h.startswith("smsp__average_warps_issue_stalled"):
        try:
            if float(vals[i].replace(',', '')) > 0.05: print(h, vals[i])
        except ValueError: pass
PY
