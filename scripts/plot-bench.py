#!/usr/bin/env python3
"""Turn `dla bench --json` output into PNG plots (Debian's python3-matplotlib).

usage: plot-bench.py bench.json [-o docs/img] [--markdown tables.md]

Writes, for each suite present:
  <suite>_rate.png   rate vs problem size, dla (each variant) next to the vendor
  gemm_variants.png  the GEMM seed-kernel progression at one size (bar chart)
"""
import argparse
import collections
import json
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def size_of(shape):
    """A scalar size for the x axis: n of 'n=..', else the first number."""
    m = re.search(r"n=(\d+)", shape) or re.search(r"(\d+)", shape)
    return int(m.group(1)) if m else 0


def plot_rates(rows, suite, out):
    by_variant = collections.defaultdict(list)
    vendor = {}
    for r in rows:
        if r["rate"] is None:
            continue
        key = (r["variant"], r["op"])
        by_variant[key].append((size_of(r["shape"]), r["rate"]))
        if r.get("vendor_rate") is not None:
            vendor[(r["op"], size_of(r["shape"]))] = r["vendor_rate"]
    if not by_variant:
        return None
    fig, ax = plt.subplots(figsize=(8, 5))
    for (variant, op), pts in sorted(by_variant.items()):
        pts.sort()
        if len(pts) < 2:
            continue
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"dla {variant} {op}")
    by_op = collections.defaultdict(list)
    for (op, n), v in vendor.items():
        by_op[op].append((n, v))
    for op, pts in by_op.items():
        pts.sort()
        if len(pts) >= 2:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "k--", marker="s", label=f"vendor {op}")
    unit = rows[0].get("unit", "TFLOP/s")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n")
    ax.set_ylabel(unit)
    ax.set_title(f"dla bench {suite}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    path = os.path.join(out, f"{suite}_rate.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_gemm_variants(rows, out):
    # The progression at the largest square NN size every variant ran.
    sizes = collections.defaultdict(dict)
    for r in rows:
        if r["suite"] == "gemm" and r["op"] == "NN" and r["rate"] is not None and r["variant"] != "dgemm":
            sizes[r["shape"]][r["variant"]] = (r["rate"], r.get("vendor_rate"))
    if not sizes:
        return None
    shape = max(sizes, key=lambda s: (len(sizes[s]), size_of(s)))
    data = sizes[shape]
    names = list(data)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.bar(names, [data[n][0] for n in names], color="tab:blue")
    vend = [v[1] for v in data.values() if v[1] is not None]
    if vend:
        ax.axhline(vend[0], color="k", linestyle="--", label=f"cuBLAS {vend[0]:.1f}")
        ax.legend()
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"SGEMM kernel progression, NN {shape}")
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right", fontsize=8)
    fig.tight_layout()
    path = os.path.join(out, "gemm_variants.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_markdown(rows, path):
    """One markdown table per suite: the rows as the console table shows them."""
    def f(v, fmt):
        return "-" if v is None else fmt % v
    with open(path, "w") as out:
        suites = collections.OrderedDict()
        for r in rows:
            suites.setdefault(r["suite"], []).append(r)
        for suite, rs in suites.items():
            unit = rs[0].get("unit", "TFLOP/s")
            out.write(f"\n### {suite}\n\n")
            out.write(f"| variant | op | shape | dla ms | dla {unit} | vendor {unit} | ratio | error | status |\n")
            out.write("|---|---|---|---:|---:|---:|---:|---:|---|\n")
            for r in rs:
                out.write("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
                    r["variant"], r["op"], r["shape"], f(r["ms"], "%.3f"), f(r["rate"], "%.2f"),
                    f(r.get("vendor_rate"), "%.2f"), f(r.get("ratio"), "%.2fx"), f(r.get("error"), "%.1e"),
                    "ok" if r["ok"] else "FAILED"))
    print("wrote", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json")
    ap.add_argument("-o", "--out", default="docs/img")
    ap.add_argument("--markdown", help="also write the rows as markdown tables to this file")
    a = ap.parse_args()
    rows = json.load(open(a.json))
    if a.markdown:
        write_markdown(rows, a.markdown)
    os.makedirs(a.out, exist_ok=True)
    suites = collections.defaultdict(list)
    for r in rows:
        suites[r["suite"]].append(r)
    for suite, rs in suites.items():
        p = plot_rates(rs, suite, a.out)
        if p:
            print("wrote", p)
    p = plot_gemm_variants(rows, a.out)
    if p:
        print("wrote", p)


if __name__ == "__main__":
    main()
