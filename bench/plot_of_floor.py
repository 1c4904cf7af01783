#!/usr/bin/env python3
"""plot_of_floor.py CSV PNG [--linear] -- of_floor (a call's time over the
least it could take) per shape, one marker series per class, from
bench_gpu_tiled_mtimes's CSV: method default on 1 GPU filled, on more GPUs
hollow; lines at 1.3 and 1.5.  Log y unless --linear (tiny shapes sit
tens of times over their floor, large ones near 1).  Exits non-zero
without matplotlib, which the Octave side reports as "no plot"."""
import csv
import math
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot_of_floor.py: matplotlib needed")

CLASSES = [("single", "o"), ("double", "s"), ("complex single", "^"),
           ("complex double", "D")]


def label(r):
    """m x k x n, as the benchmark names shapes; n^3 for squares."""
    m, k, n = r["m"], r["k"], r["n"]
    return "%s^3" % m if m == k == n else "%sx%sx%s" % (m, k, n)


def points(rows, cls, many_gpus):
    """(shape label, of_floor) of the default path's finite rows."""
    pts = []
    for r in rows:
        if r["method"] != "default" or r.get("class", "single") != cls:
            continue
        if (int(r.get("gpus") or 1) > 1) != many_gpus:
            continue
        y = float(r.get("of_floor") or "nan")
        if math.isfinite(y) and y > 0:
            pts.append((label(r), y))
    return pts


def main():
    args = [a for a in sys.argv[1:] if a != "--linear"]
    if len(args) != 2:
        sys.exit("usage: plot_of_floor.py CSV PNG [--linear]")
    rows = list(csv.DictReader(open(args[0])))
    if not rows or "of_floor" not in rows[0]:
        sys.exit("plot_of_floor.py: no of_floor column in %s" % args[0])
    # shapes in the order the benchmark ran them
    shapes = list(dict.fromkeys(label(r) for r in rows if r["method"] == "default"))
    x = {s: i for i, s in enumerate(shapes)}
    fig, ax = plt.subplots(figsize=(max(7, 0.45 * len(shapes) + 2), 5))
    for c, (cls, marker) in enumerate(CLASSES):
        for many in (False, True):
            # classes and GPU counts side by side at a shape
            dx = (2 * c + many - 3.5) * 0.06
            pts = points(rows, cls, many)
            if not pts:
                continue
            gpus = max(int(r.get("gpus") or 1) for r in rows) if many else 1
            ax.plot([x[s] + dx for s, _ in pts], [y for _, y in pts],
                    linestyle="none", marker=marker, color="C%d" % c,
                    markerfacecolor="none" if many else "C%d" % c,
                    label="%s, %d GPU%s" % (cls, gpus, "s" if many else ""))
    for level, style, va in ((1.5, "--", "bottom"), (1.3, ":", "top")):
        ax.axhline(level, color="gray", linestyle=style, linewidth=1)
        ax.annotate("%.1f" % level, (len(shapes) - 0.5, level), fontsize=8,
                    color="gray", va=va, ha="right")
    if "--linear" not in sys.argv:
        ax.set_yscale("log")
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels(shapes, rotation=60, ha="right", fontsize=8)
    ax.set_xlim(-0.7, len(shapes) - 0.3)
    ax.set_xlabel("shape (m x k x n)")
    ax.set_ylabel("time / floor, end to end from Octave")
    ax.set_title("gpu_tiled_mtimes, time over floor, on %s (%s)"
                 % (rows[0]["device"], rows[0]["date"]))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args[1], dpi=110)


main()
