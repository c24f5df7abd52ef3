#!/usr/bin/env python3
"""The time split of one traced spotrf from timeline.cu's output (session 54).

Usage: python3 split.py TIMELINE_OUTPUT [--lib dla|cusolver]

timeline.cu (not -q) prints, per library and n, one traced run's kernels:
start end duration (us from the first kernel's start), stream, grid, block,
dynamic shared memory and the kernel's name. This groups dla's kernels by
what they do and prints per group: kernels, summed durations, and the wall
time they cover (the union of their intervals), and for the run:
  - the critical stream (the diagonal kernels' stream) busy / idle;
  - the bulk update (GEMM kernels on the other stream): its wall time and
    the part of the run where it does not run (the exposed chain: the first
    steps before it starts, the gaps between groups, the tail after its
    last kernel);
  - the tail: from the bulk update's last end to the run's end;
  - in the part without the bulk update, the wall time of each other group
    and the time with no kernel at all (launch and hand-off gaps).
Kernels of one group that overlap (the panel beside the diagonal kernel)
count once in the union. Durations of concurrent kernels are wall times,
not SM shares: a panel that waits on a flag counts its whole interval.
"""
import re
import sys
from collections import OrderedDict

GROUPS = [  # (group, pattern on the kernel name), first match wins
    ("diagonal block", r"potrf_diag"),
    ("panel (trsm)", r"potrf_panel"),
    ("critical update", r"potrf_update"),
    ("gemm", r"gemm|wgmma|mma_kernel|tuned_kernel|volkov|reg_tiled|reg128|smem32|splitk|pack_kernel"),
    ("copy / gate", r"copy_triangle|side_gate|memcpy|scale_kernel"),
]
LINE = re.compile(r"^\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+s(\d+)\s+g(\d+)x(\d+)x(\d+)\s+b(\d+)\s+sm(\d+)\s+(.*)$")
HEAD = re.compile(r"^== (\S+) n=(\d+) untraced median ([\d.]+) ms, traced kernels (\d+)(?:, span ([\d.]+) us)?")


def union(iv):
    tot, cur_s, cur_e = 0.0, None, None
    for s, e in sorted(iv):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                tot += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        tot += cur_e - cur_s
    return tot


def gaps(iv, t0, t1):
    """Intervals of [t0, t1] covered by none of iv."""
    out, t = [], t0
    for s, e in sorted(iv):
        if s > t:
            out.append((t, s))
        t = max(t, e)
    if t1 > t:
        out.append((t, t1))
    return out


def parse(path):
    runs, cur = [], None
    for line in open(path):
        m = HEAD.match(line)
        if m:
            cur = {"lib": m.group(1), "n": int(m.group(2)), "median": float(m.group(3)),
                   "span": float(m.group(5) or 0), "k": []}
            runs.append(cur)
            continue
        m = LINE.match(line)
        if m and cur is not None:
            s, e, d = map(float, m.group(1, 2, 3))
            cur["k"].append({"s": s, "e": e, "d": d, "stream": int(m.group(4)),
                             "grid": int(m.group(5)) * int(m.group(6)) * int(m.group(7)),
                             "name": m.group(10).strip()})
    return runs


def group_of(name):
    for g, pat in GROUPS:
        if re.search(pat, name):
            return g
    return "other"


def report(run):
    ks = run["k"]
    if not ks:
        print(f"== {run['lib']} n={run['n']}: no traced kernels")
        return
    t0, t1 = min(k["s"] for k in ks), max(k["e"] for k in ks)
    diag_streams = {k["stream"] for k in ks if group_of(k["name"]) == "diagonal block"}
    crit = next(iter(diag_streams)) if len(diag_streams) == 1 else None
    for k in ks:
        g = group_of(k["name"])
        if g == "gemm":
            g = "gemm, critical stream" if k["stream"] == crit else "gemm, bulk (other streams)"
        k["g"] = g
    print(f"== {run['lib']} n={run['n']}: untraced median {run['median']:.3f} ms, traced span {t1 - t0:.1f} us, "
          f"{len(ks)} kernels")
    groups = OrderedDict()
    for k in ks:
        groups.setdefault(k["g"], []).append(k)
    print(f"{'group':30s} {'kernels':>7s} {'sum us':>10s} {'wall us':>10s} {'wall %':>7s}")
    for g, lst in sorted(groups.items(), key=lambda kv: -union([(k['s'], k['e']) for k in kv[1]])):
        w = union([(k["s"], k["e"]) for k in lst])
        print(f"{g:30s} {len(lst):7d} {sum(k['d'] for k in lst):10.1f} {w:10.1f} {100 * w / (t1 - t0):6.1f}%")
    if crit is not None:
        cw = union([(k["s"], k["e"]) for k in ks if k["stream"] == crit])
        print(f"critical stream s{crit}: busy {cw:.1f} us, idle {t1 - t0 - cw:.1f} us")
    bulk = [(k["s"], k["e"]) for k in ks if k["g"] == "gemm, bulk (other streams)"]
    if bulk:
        bw = union(bulk)
        g = gaps(bulk, t0, t1)
        first = min(s for s, _ in bulk) - t0
        tail = t1 - max(e for _, e in bulk)
        inner = sum(e - s for s, e in g) - first - tail
        print(f"bulk update: runs {bw:.1f} us of {t1 - t0:.1f} ({100 * bw / (t1 - t0):.1f}%); without it: "
              f"{first:.1f} us before its first kernel, {inner:.1f} us in {max(len(g) - 2, 0)} gaps, "
              f"{tail:.1f} us after its last (the tail)")
        # Where the bulk does not run, which kernels do (the exposed chain).
        parts = []
        for gname, lst in groups.items():
            if gname == "gemm, bulk (other streams)":
                continue
            clipped = [(max(k["s"], a), min(k["e"], b)) for k in lst for a, b in g
                       if min(k["e"], b) > max(k["s"], a)]
            parts.append((union(clipped), gname))
        idle = sum(e - s for s, e in g)
        busy = union([(max(k["s"], a), min(k["e"], b)) for k in ks for a, b in g
                      if k["g"] != "gemm, bulk (other streams)" and min(k["e"], b) > max(k["s"], a)])
        print("  without the bulk update, wall us: " +
              ", ".join(f"{gname} {w:.1f}" for w, gname in sorted(parts, reverse=True) if w > 0) +
              f"; no kernel at all {idle - busy:.1f}")
    else:
        print("bulk update: none on another stream")


def main():
    args = sys.argv[1:]
    lib = "dla"
    if "--lib" in args:
        i = args.index("--lib")
        lib = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    runs = [r for r in parse(args[0]) if r["lib"] == lib]
    if not runs:
        sys.exit(f"split.py: no traced {lib} run in {args[0]}")
    for r in runs:
        report(r)


if __name__ == "__main__":
    main()
