#!/usr/bin/env bash
# CLI tests: run the dla binary on generated files and check results, exit
# codes, messages, and that no output file is left after a failure.
# usage: cli_test.sh /path/to/dla /path/to/python3-with-h5py
set -u
DLA="$(realpath "$1")"
PY="${DLA_TEST_PYTHON3:-${2:-/usr/bin/python3}}"  # DLA_TEST_PYTHON3 overrides (carried build trees)
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
fails=0 passes=0
ok()   { passes=$((passes + 1)); echo "ok:   $1"; }
bad()  { fails=$((fails + 1)); echo "FAIL: $1"; }

# expect CODE PATTERN NAME -- command...: exit code and a stderr/stdout pattern.
expect() {
  local code="$1" pat="$2" name="$3"; shift 4
  local out rc
  out="$("$@" 2>&1)"; rc=$?
  if [ "$rc" -ne "$code" ]; then bad "$name: exit $rc, want $code. Output: $out"; return; fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" <<<"$out"; then bad "$name: output lacks /$pat/: $out"; return; fi
  ok "$name"
}
# no_file PATH NAME: the path and any temporary sibling are absent.
no_file() {
  if [ -e "$1" ] || ls -a "$(dirname "$1")" | grep -q "^\.$(basename "$1")\.tmp"; then
    bad "$2: output file left behind"; else ok "$2: no output file"; fi
}
# check_x FILE.h5 INPUT.h5 SHAPE DTYPE: x has the shape of b, the right dtype,
# attributes, and solves the system (float64 check in numpy).
check_x() {
  "$PY" - "$1" "$2" "$3" "$4" <<'PY'
import sys, h5py, numpy as np
out, inp, shape, dtype = sys.argv[1:]
with h5py.File(out) as f, h5py.File(inp) as g:
    x = f["x"]; A = g["A"][...].astype(np.float64); b = g["b"][...].astype(np.float64)
    assert str(x.shape) == shape, f"x shape {x.shape} != {shape}"
    assert x.dtype == np.dtype(dtype), f"x dtype {x.dtype} != {dtype}"
    for a in ("method", "device", "precision", "relative_residual", "seconds"):
        assert a in x.attrs, f"attribute {a} missing"
    xv = x[...].astype(np.float64)
    if A.ndim == 3:
        r = max(np.linalg.norm(np.einsum('ij,j...->i...', A[i], xv[i]) - b[i]) /
                (np.linalg.norm(A[i]) * np.linalg.norm(xv[i])) for i in range(A.shape[0]))
    else:
        r = np.linalg.norm(A @ xv - b) / (np.linalg.norm(A) * np.linalg.norm(xv))
    tol = 1e-5 if dtype == "float32" else 1e-13
    assert r < tol, f"residual {r} >= {tol}"
    assert abs(x.attrs["relative_residual"] - r) <= 10 * tol, "residual attribute disagrees"
PY
}
run_check() {  # name out in shape dtype
  if check_x "$2" "$3" "$4" "$5" >"$W/chk.log" 2>&1; then ok "$1"; else bad "$1: $(cat "$W/chk.log")"; fi
}

cd "$W"
# --- round trips -------------------------------------------------------------
expect 0 "wrote" "gen single"   -- "$DLA" gen s.h5 --n 50 --seed 3
expect 0 "residual" "solve single (1-D b)" -- "$DLA" solve s.h5 -o xs.h5 --device host
run_check "x single 1-D" xs.h5 s.h5 "(50,)" float32
expect 0 "" "gen double 2-D b" -- "$DLA" gen d.h5 --n 40 --nrhs 3 --precision double
expect 0 "method +lu" "solve double lu" -- "$DLA" solve d.h5 -o xd.h5 --method lu
run_check "x double 2-D" xd.h5 d.h5 "(40, 3)" float64
expect 0 "" "gen spd" -- "$DLA" gen spd.h5 --n 64 --kind spd
expect 0 "method +cholesky" "solve auto picks cholesky" -- "$DLA" solve spd.h5 -o xspd.h5
run_check "x spd" xspd.h5 spd.h5 "(64,)" float32
expect 0 "" "solve --precision double of float32 data" -- "$DLA" solve spd.h5 -o xspd2.h5 --precision double
run_check "x upcast" xspd2.h5 spd.h5 "(64,)" float64
expect 0 "" "gen batch" -- "$DLA" gen bt.h5 --n 8 --count 100 --kind diag-dominant
expect 0 "residual" "solve batch" -- "$DLA" solve bt.h5 -o xbt.h5 --method lu
run_check "x batch" xbt.h5 bt.h5 "(100, 8)" float32
expect 0 "" "gen batch nrhs" -- "$DLA" gen bt2.h5 --n 5 --count 7 --nrhs 2 --kind spd --precision double
expect 0 "" "solve batch cholesky" -- "$DLA" solve bt2.h5 -o xbt2.h5 --method cholesky
run_check "x batch nrhs" xbt2.h5 bt2.h5 "(7, 5, 2)" float64
# A batch of 1x1 systems: A stays 3-D (count, 1, 1), not a 2-D (count, 1) "vector batch".
expect 0 "" "gen batch of 1x1" -- "$DLA" gen bt1.h5 --n 1 --count 3
expect 0 "A +\(3, 1, 1\)" "gen batch of 1x1: A is 3-D" -- "$DLA" inspect bt1.h5
expect 0 "residual" "solve batch of 1x1" -- "$DLA" solve bt1.h5 -o xbt1.h5
run_check "x batch of 1x1" xbt1.h5 bt1.h5 "(3, 1)" float32
# int64 data: the narrowing warning names the precision actually used.
"$PY" -c "import h5py,numpy as np; f=h5py.File('i64.h5','w'); f['A']=(3*np.eye(4)).astype(np.int64); f['b']=np.arange(1,5,dtype=np.int64)"
expect 0 "int64 on disk, computing in single precision" "int64 read as single warns" -- "$DLA" solve i64.h5 -o xi64s.h5
expect 0 "int64 on disk.*double precision" "int64 read as double warns" -- "$DLA" solve i64.h5 -o xi64d.h5 --precision double
if "$DLA" solve i64.h5 -o xi64d2.h5 --precision double 2>&1 | grep -q "single precision"; then
  bad "--precision double: the warning claims single precision"; else ok "--precision double: no single-precision claim"; fi
expect 0 "A +\(50, 50\) +float32" "inspect" -- "$DLA" inspect s.h5
expect 0 "LU, ipiv" "factor lu" -- "$DLA" factor s.h5 -o f.h5 --method lu
expect 0 "" "factor cholesky" -- "$DLA" factor spd.h5 -o fc.h5 --method cholesky
expect 0 "CUDA backend" "info" -- "$DLA" info

# --- dla gemm -----------------------------------------------------------------
# C = alpha op(A) op(B), checked against numpy in float64; the flags transpose.
"$PY" -c "
import h5py, numpy as np
r = np.random.default_rng(4)
f = h5py.File('g.h5', 'w')
f['A'] = r.standard_normal((5, 3)).astype(np.float32); f['B'] = r.standard_normal((3, 4)).astype(np.float32)
f['Bt'] = r.standard_normal((4, 3)).astype(np.float32); f['At'] = r.standard_normal((3, 5)).astype(np.float32)
f['Ad'] = r.standard_normal((5, 3)); f['B7'] = np.ones((7, 2), np.float32)
f['Abig'] = np.full((2, 2), 1e30, np.float32); f['An'] = np.array([[1, np.nan], [0, 1]], np.float32)
"
check_c() {  # name out expr dtype
  if "$PY" - "$2" "$3" "$4" >"$W/chk.log" 2>&1 <<'PY'
import sys, h5py, numpy as np
out, expr, dtype = sys.argv[1:]
with h5py.File(out) as f, h5py.File('g.h5') as g:
    c = f['C']; A, B, At, Bt, Ad = (g[k][...].astype(np.float64) for k in ('A', 'B', 'At', 'Bt', 'Ad'))
    ref = eval(expr)
    assert c.dtype == np.dtype(dtype), f"C dtype {c.dtype} != {dtype}"
    assert c.shape == ref.shape, f"C shape {c.shape} != {ref.shape}"
    err = np.abs(c[...] - ref).max() / np.abs(ref).max()
    assert err < (1e-5 if dtype == 'float32' else 1e-13), f"relative error {err}"
PY
  then ok "$1"; else bad "$1: $(cat "$W/chk.log")"; fi
}
expect 0 "C = 1 \* opN\(A\) \* opN\(B\)" "gemm" -- "$DLA" gemm g.h5 -o gc1.h5 --device host
check_c "gemm C = A B" gc1.h5 "A @ B" float32
expect 0 "" "gemm --transa --transb --alpha" -- "$DLA" gemm g.h5 -A At -B Bt --transa --transb --alpha -2.5 -o gc2.h5
check_c "gemm C = -2.5 At^T Bt^T" gc2.h5 "-2.5 * At.T @ Bt.T" float32
expect 0 "" "gemm double" -- "$DLA" gemm g.h5 -A Ad -o gc3.h5
check_c "gemm double" gc3.h5 "Ad @ B" float64
expect 2 "" "gemm inner dimensions differ" -- "$DLA" gemm g.h5 -B B7 -o ge1.h5
no_file ge1.h5 "gemm inner dimensions"
# A float32 product that overflows, an alpha float32 cannot hold (1e300 was
# inf, 1e-50 was 0: C silently all-inf or all-zero, exit 0) and a NaN input:
# exit 2 naming the cause, no file.
expect 2 "C\(0, 0\) is inf: the float32 product overflowed.*--precision double" "gemm float32 overflow refused" -- "$DLA" gemm g.h5 -A Abig -B Abig -o ge2.h5
no_file ge2.h5 "gemm overflow"
expect 0 "" "gemm overflow in double is fine" -- "$DLA" gemm g.h5 -A Abig -B Abig -o gc4.h5 --precision double
expect 2 "--alpha 1e\+300 is out of float32 range" "gemm alpha overflowing float32" -- "$DLA" gemm g.h5 --alpha 1e300 -o ge3.h5
no_file ge3.h5 "gemm alpha overflow"
expect 2 "--alpha 1e-50 underflows to 0 in float32" "gemm alpha underflowing float32" -- "$DLA" gemm g.h5 --alpha 1e-50 -o ge4.h5
no_file ge4.h5 "gemm alpha underflow"
expect 2 "--alpha" "gemm alpha nan" -- "$DLA" gemm g.h5 --alpha nan -o ge5.h5
no_file ge5.h5 "gemm alpha nan"
expect 2 "g.h5:An\(0, 1\) is nan" "gemm NaN input refused" -- "$DLA" gemm g.h5 -A An -B An -o ge6.h5
no_file ge6.h5 "gemm NaN input"

# --- errors: exit code, message, no output file -------------------------------
expect 2 "nothing.h5" "missing input file" -- "$DLA" solve nothing.h5 -o e1.h5
no_file e1.h5 "missing input"
expect 2 "no dataset 'M'.*A, b" "missing dataset names the existing ones" -- "$DLA" solve s.h5 -A M -o e2.h5
no_file e2.h5 "missing dataset"
expect 2 "exists" "existing output without --force" -- "$DLA" solve s.h5 -o xs.h5
expect 0 "" "existing output with --force" -- "$DLA" solve s.h5 -o xs.h5 --force
expect 2 "input" "output is the input" -- "$DLA" solve s.h5 -o s.h5 --force
expect 0 "" "gen singular" -- "$DLA" gen sing.h5 --n 10 --kind singular
expect 3 "singular|zero" "singular matrix exit 3" -- "$DLA" solve sing.h5 -o e3.h5 --method lu
no_file e3.h5 "singular"
# Symmetric, not positive definite (the leading minor of order 2 is -8): exit 3, the minor named.
"$PY" -c "import h5py,numpy as np; f=h5py.File('nspd.h5','w'); f['A']=np.array([[4,2,0],[2,-1,1],[0,1,3]],np.float32); f['b']=np.ones(3,np.float32)"
expect 3 "minor of order 2 .*not positive definite" "cholesky of symmetric non-SPD exit 3" -- "$DLA" solve nspd.h5 -o e4.h5 --method cholesky
no_file e4.h5 "non-SPD"
expect 3 "positive definite" "factor cholesky of non-SPD exit 3" -- "$DLA" factor nspd.h5 -o e4f.h5 --method cholesky
no_file e4f.h5 "factor non-SPD"
# --method cholesky reads only the lower triangle: a non-symmetric A is refused
# (exit 2, the first differing pair named), not solved as the symmetric matrix
# its lower triangle describes (a different system, exit 0, before). Single,
# factor, a batch member, NaN above the diagonal; a difference within rounding
# (n eps max|A|) is accepted.
"$PY" -c "
import h5py, numpy as np
f = h5py.File('nsym.h5', 'w')
f['A'] = np.array([[4, 3, 0], [1, 4, 0], [0, 0, 4]], np.float32); f['b'] = np.ones(3, np.float32)
S = np.array([[4, 1, 0], [1, 4, 1], [0, 1, 4]], np.float32)
f['Ab'] = np.stack([S, S.T + np.float32(0.5) * np.eye(3, k=1, dtype=np.float32)]); f['bb'] = np.ones((2, 3), np.float32)
N = S.copy(); N[0, 2] = np.nan; f['An'] = N
R = S.copy(); R[0, 1] = np.nextafter(R[1, 0], np.float32(2)); f['Ar'] = R
"
expect 2 "nsym.h5:A is not symmetric: A\(1,0\) = 1 but A\(0,1\) = 3" "cholesky of non-symmetric A refused" -- "$DLA" solve nsym.h5 -o ns_x1.h5 --method cholesky
no_file ns_x1.h5 "non-symmetric"
expect 2 "not symmetric" "factor cholesky of non-symmetric A refused" -- "$DLA" factor nsym.h5 -o ns_f1.h5 --method cholesky
no_file ns_f1.h5 "factor non-symmetric"
expect 2 "Ab matrix 1 of 2 is not symmetric" "batch member non-symmetric refused" -- "$DLA" solve nsym.h5 -A Ab -b bb -o ns_x2.h5 --method cholesky
no_file ns_x2.h5 "batch non-symmetric"
expect 2 "not symmetric: A\(2,0\) = 0 but A\(0,2\) = nan" "NaN above the diagonal refused" -- "$DLA" solve nsym.h5 -A An -o ns_x3.h5 --method cholesky
no_file ns_x3.h5 "NaN above the diagonal"
expect 0 "method +cholesky" "asymmetry within rounding accepted" -- "$DLA" solve nsym.h5 -A Ar -o ns_x4.h5 --method cholesky
expect 0 "method +lu" "non-symmetric A: auto takes LU" -- "$DLA" solve nsym.h5 -o ns_x5.h5
"$PY" -c "import h5py,numpy as np; f=h5py.File('rect.h5','w'); f['A']=np.ones((3,4),np.float32); f['b']=np.ones(3,np.float32); f['c']=np.ones((2,2),np.complex64); f['b5']=np.ones(5,np.float32)"
expect 2 "3x4.*square" "non-square A" -- "$DLA" solve rect.h5 -o e5.h5
no_file e5.h5 "non-square"
"$PY" -c "import h5py,numpy as np; f=h5py.File('m.h5','w'); f['A']=np.eye(3,dtype=np.float32); f['b5']=np.ones(5,np.float32); f['c']=np.ones((3,3),np.complex64)"
expect 2 "b5" "b has wrong length" -- "$DLA" solve m.h5 -b b5 -o e6.h5
no_file e6.h5 "b wrong length"
expect 2 "complex" "complex dataset refused" -- "$DLA" solve m.h5 -A c -b b5 -o e7.h5
no_file e7.h5 "complex"
# One batch member whose x overflows float32 (A = 1e-30 I, b = 1e30): refused
# like a single system, not written with inf/nan (max() must not drop a NaN residual).
"$PY" -c "import h5py,numpy as np; A=np.stack([2*np.eye(3,dtype=np.float32)]*4); A[1]=1e-30*np.eye(3,dtype=np.float32); b=np.ones((4,3),np.float32); b[1]=1e30; f=h5py.File('bovf.h5','w'); f['A']=A; f['b']=b"
expect 2 "non-finite" "batch member with non-finite x (lu)" -- "$DLA" solve bovf.h5 -o e11.h5 --method lu
no_file e11.h5 "batch non-finite x (lu)"
expect 2 "non-finite" "batch member with non-finite x (auto)" -- "$DLA" solve bovf.h5 -o e12.h5
no_file e12.h5 "batch non-finite x (auto)"
# A write that fails (a file size limit, as a full disk or a quota would):
# exit 2 with the reason, no file, an existing output kept, and no crash
# (HDF5 1.10 segfaults at exit after a failed H5Fclose).
small() { bash -c 'trap "" XFSZ; ulimit -f 100; exec "$@"' small "$@"; }
expect 2 "write failed|closing the temporary file" "write failure exit 2" -- small "$DLA" gen fsz.h5 --n 300
no_file fsz.h5 "write failure"
echo "previous result" > kept.h5
expect 2 "write failed|closing the temporary file" "write failure with --force exit 2" -- small "$DLA" gen kept.h5 --n 300 --force
if [ "$(cat kept.h5)" = "previous result" ] && ! ls -a | grep -q '^\.kept\.h5\.tmp'; then
  ok "write failure keeps the existing output"; else bad "write failure damaged kept.h5 or left a temporary"; fi
# float64 systems with entries near 1e200 (or 1e-170): the squares in the
# residual's norms must not overflow (underflow); x is finite and right.
"$PY" -c "
import h5py,numpy as np
A=np.random.default_rng(3).standard_normal((4,4))+4*np.eye(4)
with h5py.File('scaled.h5','w') as f: f['A']=A*1e200; f['b']=np.ones(4)*1e200; f['As']=A*1e-170; f['bs']=np.ones(4)*1e-170
with h5py.File('scaledb.h5','w') as f: f['A']=np.stack([A*1e200]*3); f['b']=np.ones((3,4))*1e200"
check_scaled() {  # out in A b: x matches numpy's solve, the residual attribute is small
  "$PY" - "$@" <<'PY'
import sys, h5py, numpy as np
out, inp, a, b = sys.argv[1:]
with h5py.File(out) as f, h5py.File(inp) as g:
    x, A, B = f["x"][...], g[a][...], g[b][...]
    want = np.linalg.solve(A, B[..., None])[..., 0] if A.ndim == 3 else np.linalg.solve(A, B)
    assert np.allclose(x, want, rtol=1e-12, atol=0), f"x {x} != {want}"
    r = f["x"].attrs["relative_residual"]
    assert np.isfinite(r) and r < 1e-14, f"relative_residual {r}"
PY
}
expect 0 "residual" "solve float64 entries near 1e200" -- "$DLA" solve scaled.h5 -o xscaled.h5
if check_scaled xscaled.h5 scaled.h5 A b >"$W/chk.log" 2>&1; then ok "x scaled 1e200"; else bad "x scaled 1e200: $(cat "$W/chk.log")"; fi
expect 0 "residual" "solve float64 entries near 1e-170" -- "$DLA" solve scaled.h5 -A As -b bs -o xscaleds.h5
if check_scaled xscaleds.h5 scaled.h5 As bs >"$W/chk.log" 2>&1; then ok "x scaled 1e-170"; else bad "x scaled 1e-170: $(cat "$W/chk.log")"; fi
expect 0 "residual" "solve batch float64 entries near 1e200" -- "$DLA" solve scaledb.h5 -o xscaledb.h5
if check_scaled xscaledb.h5 scaledb.h5 A b >"$W/chk.log" 2>&1; then ok "x batch scaled 1e200"; else bad "x batch scaled 1e200: $(cat "$W/chk.log")"; fi
# Datasets reached through soft links (h5py SoftLink) are found like h5py finds them.
"$PY" -c "import h5py,numpy as np; f=h5py.File('soft.h5','w'); f['data/A']=4*np.eye(3,dtype=np.float32); f['data/b']=np.ones(3,np.float32); f['A']=h5py.SoftLink('/data/A'); f['b']=h5py.SoftLink('/data/b'); f['gone']=h5py.SoftLink('/nowhere')"
expect 0 "residual" "solve through soft links" -- "$DLA" solve soft.h5 -o xsoft.h5
expect 0 "" "factor through a soft link" -- "$DLA" factor soft.h5 -o fsoft.h5
expect 2 "no dataset 'gone'" "dangling soft link is no dataset" -- "$DLA" solve soft.h5 -A gone -o e13.h5
no_file e13.h5 "dangling soft link"
# Interrupted (SIGTERM, SIGINT, SIGHUP) while writing: the temporary is removed
# and the process still dies of the signal; the target never appears.
for sig in TERM INT HUP; do
  # Background jobs of a script start with SIGINT ignored: python resets it.
  "$PY" -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
    "$DLA" gen "sig$sig.h5" --n 4000 --precision double >/dev/null 2>&1 &
  pid=$!
  for i in $(seq 500); do ls -a | grep -q "^\.sig$sig\.h5\.tmp" && break; sleep 0.01; done
  kill -"$sig" "$pid" 2>/dev/null; { wait "$pid"; rc=$?; } 2>/dev/null
  if [ "$rc" -eq 0 ]; then ok "SIG$sig: (gen finished before the signal)"; rm -f "sig$sig.h5"; continue; fi
  if [ "$rc" -ne $((128 + $(kill -l "$sig"))) ]; then bad "SIG$sig: exit $rc, want $((128 + $(kill -l "$sig")))"; fi
  no_file "sig$sig.h5" "interrupted by SIG$sig"
done
# More than the address space allows (ulimit -v 2 GB, a 7.2 GB matrix): a
# clear out-of-memory error, exit 4, no file (it used to say only "std::bad_alloc").
expect 4 "out of host memory" "gen beyond memory exit 4" -- bash -c 'ulimit -v 2000000; exec "$0" gen big.h5 --n 30000 --precision double' "$DLA"
no_file big.h5 "beyond memory"
echo "not hdf5" > junk.h5
expect 2 "junk.h5" "not an HDF5 file" -- "$DLA" solve junk.h5 -o e8.h5
no_file e8.h5 "not hdf5"
if "$DLA" info | grep -q "CUDA devices: 0"; then
  expect 4 "CUDA" "--device cuda without a GPU exit 4" -- "$DLA" solve s.h5 -o e10.h5 --device cuda
  no_file e10.h5 "no GPU"
fi
# dla bench --sizes: a size that is not a positive integer is named (exit 2);
# CLI11's PositiveNumber said "Value 0 not in range 0.000000 to 1797...368.000000"
# and took 99999999999999999999 as 9223372036854775807.
for s in 0 -5 abc 1.5 99999999999999999999; do
  expect 2 "--sizes: '$s' is not a positive integer" "bench --sizes $s" -- "$DLA" bench gemm --sizes "16,$s"
done
# dla bench --variants with a name no suite knows: exit 2 naming it, before
# any device work (it used to be ignored: a typo ran nothing, or only the
# suite's other rows, and exited 0; without a GPU it was exit 4).
if "$DLA" info | grep -q "CUDA backend: compiled"; then
  expect 2 "unknown variant 'nope'" "bench --variants with an unknown name" -- "$DLA" bench gemm --variants auto,nope
  expect 2 "unknown variant 'sgetrf2'" "bench --variants with an unknown name (getrf)" -- "$DLA" bench getrf --variants sgetrf2
  # An output that cannot be written is refused before the run (it used to be
  # found after the whole benchmark; without a GPU, exit 4).
  expect 2 "--json: .*nodir.* is not a directory" "bench --json in a missing directory" -- "$DLA" bench gemm --json nodir/b.json
  expect 2 "--csv: .* is a directory" "bench --csv naming a directory" -- "$DLA" bench gemm --csv .
fi
# --- memory ------------------------------------------------------------------
# dla gen's peak resident size beyond the program's own (gen --n 1), for an spd
# float32 system of order 6000 (A: 144 MB): one member in double and in float32,
# then the writer's 16 MB buffer: +339 MB when this check was written, against
# +686 MB (~4.8x A) before session 45, with a second n x n double temporary for
# spd and full copies of A for the writer.
peak_kb() { "$PY" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"; }
base=$(peak_kb "$DLA" gen m1.h5 --n 1) && big=$(peak_kb "$DLA" gen m6.h5 --n 6000 --kind spd)
if [ -n "${base:-}" ] && [ -n "${big:-}" ] && [ $((big - base)) -lt $((3 * 144 * 1024)) ]; then
  ok "gen 6000 spd: peak +$(((big - base) / 1024)) MB over the program (< 3x A's 144 MB)"
else
  bad "gen 6000 spd: peak +$(((${big:-0} - ${base:-0}) / 1024)) MB over the program (want < 432 MB)"
fi
rm -f m1.h5 m6.h5

expect 2 "" "usage error" -- "$DLA" solve
expect 2 "" "unknown method" -- "$DLA" solve s.h5 -o e9.h5 --method qr
no_file e9.h5 "unknown method"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
