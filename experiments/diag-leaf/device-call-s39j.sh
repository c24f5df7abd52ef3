#!/usr/bin/env bash
# Session 39, call 11 (main): the bench's potrf note with the early groups'
# depth, every variant, at sizes on both sides of the rule's bounds.
# Carry .carry (build.tar.xz).
set -u
tar xJf .carry/build.tar.xz
timeout 200 build/apps/dla bench potrf --sizes 1024 3000 4096 6144 8192 --variants all --repeat 3 --json "$OUT/bench-note.json" > "$OUT/bench-note.txt" 2>&1
echo "rc=$?"
grep "^potrf" "$OUT/bench-note.txt" | sed 's/  */ /g' | cut -c1-260
