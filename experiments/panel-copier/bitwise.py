# Session 53: spotrf with and without the panel's copier warp must give the
# same factor bit for bit (the compute warps run the same FMAs in the same
# order). Writes an SPD float32 matrix, runs `dla factor --method cholesky`
# under DLA_POTRF_PANEL_COPIER=0 and =1, and compares every dataset's bytes.
# Usage: python3 bitwise.py DLA_BINARY OUTDIR N [N ...]
# BITWISE_VAR=NAME compares NAME=0 against NAME=1 instead (default
# DLA_POTRF_PANEL_COPIER).
import os, subprocess, sys
import h5py, numpy as np

var = os.environ.get("BITWISE_VAR", "DLA_POTRF_PANEL_COPIER")

dla, out = sys.argv[1], sys.argv[2]
for n in map(int, sys.argv[3:]):
    rng = np.random.default_rng(n)
    G = rng.standard_normal((n, n))
    A = (G @ G.T / n + np.eye(n)).astype(np.float32)
    src = os.path.join(out, f"spd{n}.h5")
    with h5py.File(src, "w") as f:
        f["A"] = A
    res = []
    for v in ("0", "1"):
        dst = os.path.join(out, f"L{n}-{v}.h5")
        env = dict(os.environ, **{var: v})
        subprocess.run([dla, "factor", src, "-o", dst, "--method", "cholesky", "--precision",
                        "single", "--device", "cuda", "--force"], check=True, env=env)
        with h5py.File(dst, "r") as f:
            res.append({k: f[k][()] for k in f.keys() if isinstance(f[k], h5py.Dataset)})
    same = all(np.array_equal(res[0][k].view(np.uint8), res[1][k].view(np.uint8)) for k in res[0])
    print(f"n={n} {var} 0/1 datasets={sorted(res[0])} bitwise {'equal' if same else 'DIFFERENT'}")
    for p in (src, os.path.join(out, f"L{n}-0.h5"), os.path.join(out, f"L{n}-1.h5")):
        os.remove(p)
