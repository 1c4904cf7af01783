#!/usr/bin/env python3
"""plot_e2e.py CSV PNG -- GFLOP/s against n (square shapes) on log axes, one
line per method, from bench_gpu_tiled_mtimes's CSV."""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
square = [r for r in rows if r["m"] == r["n"] == r["k"] and int(r["m"]) & (int(r["m"]) - 1) == 0
          and r.get("class", "single") == "single"]
fig, ax = plt.subplots(figsize=(7, 4.5))
for method in ["builtin", "tile8", "tile16", "tile32", "default"]:
    pts = sorted((int(r["n"]), float(r["gflops"])) for r in square if r["method"] == method)
    if pts:
        ax.plot(*zip(*pts), marker="o", label=method)
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("n (n x n times n x n, single)")
ax.set_ylabel("GFLOP/s, end to end from Octave")
ax.set_title("gpu_tiled_mtimes on %s (%s)" % (rows[0]["device"], rows[0]["date"]))
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
