#!/usr/bin/env bash
# PREPARED, NOT RUN (session 37 had no device time left): the next
# session's first probe. Where the leaf kernel's ~9 us to its first release go
# in place (spotrf 4096, final library): diag_stamps.cuh maps the leaf
# kernel's probe hook to diagonal slots 4 (block loaded), 5 (leaf 0
# factored), 6 (leaf 0 stored, leaf 1 updated); slot 1 is sub-panel 0's
# release. Carry .carry/tl_stamps.xz only (the libraries are linked in).
set -u
cd .carry && xz -dkf tl_stamps.xz && chmod +x tl_stamps
timeout 90 ./tl_stamps -q 4096 > "$OUT/stamps-leaf-phases.txt" 2>&1
echo "rc=$?"; sed -n 1,34p "$OUT/stamps-leaf-phases.txt"
