#!/usr/bin/env bash
# Session 36, call 3: potrf_diag_leaf_kernel alone (leaf_probe: event time
# against the tile kernel, cycles per leaf phase), its SASS, and ncu's
# per-instruction stall samples. Carry .carry/leaf_probe (built as the
# probe's header says).
set -u
cd .carry && chmod +x leaf_probe
for m in 128 100 64; do ./leaf_probe $m; done > $OUT/probe.txt 2>&1; cat $OUT/probe.txt
cuobjdump -sass leaf_probe 2>&1 | awk '/Function : .*potrf_diag_leaf_kernel/{p=1} /Function : .*potrf_diag_tiles/{p=0} p' > $OUT/leaf.sass
wc -l $OUT/leaf.sass
timeout 200 ncu --set full --import-source yes -k regex:leaf --launch-skip 3 --launch-count 1 -o $OUT/leafrep ./leaf_probe > $OUT/ncu-run.txt 2>&1
echo "ncu rc=$?"; tail -3 $OUT/ncu-run.txt
ncu -i $OUT/leafrep.ncu-rep --page source --csv --print-source sass > $OUT/leaf-source.csv 2>&1; echo "source rc=$?"; head -c 600 $OUT/leaf-source.csv
ncu -i $OUT/leafrep.ncu-rep --page details > $OUT/leaf-details.txt 2>&1
grep -E "Duration|Warp Cycles Per Issued|Issued Ipc|Elapsed Cycles|SM Frequency" $OUT/leaf-details.txt | head
rm -f $OUT/leafrep.ncu-rep
