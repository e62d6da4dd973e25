#!/usr/bin/env python3
"""The binned sum beside the accurate (double-double) one (perf/accurate_bench --binned):
relative error against the condition number, and each method's time over the plain tree
sum per (p, N), median over repeated runs with their range.

    python3 perf/plot_binned.py ERRORS.csv TIME.csv OUT_DIR
(ERRORS.csv: `error` rows with the binned columns; TIME.csv: `time` rows, optionally
prefixed by a run number.) Writes OUT_DIR/binned_error.png and OUT_DIR/binned_time.png.
"""
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_accurate import FLOOR, rows  # noqa: E402

ERROR_COLUMNS = {"plain tree": 9, "std::accumulate": 10, "double-double": 11, "binned K=3": 14, "binned K=2": 15}
TIME_METHODS = ["accurate", "binned", "binned2", "local_accurate", "local_binned"]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    errors, times, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)

    cond = [r for r in rows(errors, "error") if r[1].startswith("cond") and len(r) > 15]
    if not cond:
        sys.exit("no error rows with the binned columns (run accurate_bench --binned)")
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    x = [float(r[4]) for r in cond]
    for name, col in ERROR_COLUMNS.items():
        ax.loglog(x, [max(float(r[col]), FLOOR) for r in cond], marker="o", label=name)
    ax.set_xlabel("condition number sum|x| / |sum x| (N = 100 003)")
    ax.set_ylabel(f"relative error (exact drawn at {FLOOR:g})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "binned_error.png", dpi=120)

    # time,machine,p,cores,N,method,exchange,reps,median,p10,p90,ratio
    ratios = defaultdict(list)
    for r in rows(times, "time"):
        if r[5] in TIME_METHODS:
            ratios[(r[5], int(r[2]), int(r[4]))].append(float(r[11]))
    groups = sorted({(p, n) for (_, p, n) in ratios})
    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    width = 0.8 / len(TIME_METHODS)
    for i, m in enumerate(TIME_METHODS):
        med = [statistics.median(ratios[(m, p, n)]) if ratios[(m, p, n)] else 0 for p, n in groups]
        lo = [med[j] - min(ratios[(m, p, n)], default=0) for j, (p, n) in enumerate(groups)]
        hi = [max(ratios[(m, p, n)], default=0) - med[j] for j, (p, n) in enumerate(groups)]
        ax.bar([j + i * width for j in range(len(groups))], med, width, yerr=[lo, hi], label=m)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(groups))])
    ax.set_xticklabels([f"p={p}\nN={n:g}" for p, n in groups])
    ax.set_ylabel("time / plain tree sum (median of runs; bars: range)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "binned_time.png", dpi=120)


if __name__ == "__main__":
    main()
