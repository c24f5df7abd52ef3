#!/usr/bin/env bash
# Session 40, call 8 (main, after the second review's host-code mends: the cluster kernel's k contract checked in crit_cluster_launch, the rule's bound override in one value; potrf.cu's cubin unchanged). Like call 5 (after the first review: KernelLaunch's
# cluster attribute slot, the rule's overrides read once; potrf.cu's cubin
# unchanged): the cholesky ctest entries and the potrf bench rows again.
# Carry .carry (build.tar.xz).
set -u
tar xJf .carry/build.tar.xz
(cd build && timeout 300 ctest -j 12 -R "cholesky" 2>&1 | tail -4)
timeout 120 build/apps/dla bench potrf --sizes 2048 4096 8192 --variants tf32x3 --repeat 5 | grep "^potrf .*spotrf" | awk '{print $2, $3, $4, $5, $6, $7, $8}'
