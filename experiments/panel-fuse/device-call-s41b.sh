#!/usr/bin/env bash
# Session 41, call 2: why the fused update costs ~7 us per chunk in place
# (call 1's stamps): stamps with the fused chunk's own slots at 4096, and
# ncu on the panel kernel with and without the fused update (serialized by
# ncu, so the panel runs after its diagonal kernel: its own time only), with
# the warp states and the source counters; the fused kernel's SASS.
# Carry .carry (build.tar.xz with extra/tl_stamps).
set -u
tar xJf .carry/build.tar.xz
X=build/extra
O="$OUT"
timeout 60 $X/tl_stamps -q 4096 > "$O/stamps.txt" 2>&1
grep -A40 "panel fuse" "$O/stamps.txt" | head -20
F=_ZN3dla4cuda6detail18potrf_panel_kernelIfLi128ELb1ELb1ELb1ELb1EEEvPKT_PS3_lilbPKiiS6_iPii
N=_ZN3dla4cuda6detail18potrf_panel_kernelIfLi128ELb1ELb1ELb1ELb0EEEvPKT_PS3_lilbPKiiS6_iPii
for k in F N; do
  timeout 150 ncu --kernel-name-base mangled --kernel-name "${!k}" --launch-count 3 \
    --section LaunchStats --section Occupancy --section WarpStateStats --section SourceCounters \
    --section SpeedOfLight --metrics gpu__time_duration.sum,smsp__inst_executed.sum \
    -o "$O/ncu_$k" build/apps/dla bench potrf --sizes 4096 --variants tf32x3 --repeat 1 > "$O/ncu_$k.log" 2>&1
  ncu --import "$O/ncu_$k.ncu-rep" --page details > "$O/ncu_$k.txt" 2>&1
  echo "== $k"; grep -E "Duration|Executed Instructions |Registers Per|Achieved Occupancy|Stall|Warp Cycles Per Issued" "$O/ncu_$k.txt" | head -24
done
cuobjdump -sass -fun "$F" build/apps/dla > "$O/sass_F.txt" 2>&1
wc -l "$O/sass_F.txt"
