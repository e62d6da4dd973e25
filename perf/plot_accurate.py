#!/usr/bin/env python3
"""The accurate sum (perf/accurate_bench): relative error against the condition number for
the plain tree sum, std::accumulate and the accurate sum, and the time ratio accurate / plain
per (p, N) with the spread over repeated runs.

    python3 perf/plot_accurate.py ERRORS.csv TIME.csv OUT_DIR
(ERRORS.csv: accurate_bench's `error` rows; TIME.csv: `time` rows, each optionally prefixed
by a run number as in perf/results/accurate_time.csv.) Writes OUT_DIR/accurate_error.png and
OUT_DIR/accurate_time.png.
"""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FLOOR = 1e-18  # an exact result drawn at the floor of the log axis


def rows(path, kind):
    """The rows of `kind` ('error' or 'time'), without a leading run number."""
    out = []
    with open(path, newline="") as f:
        for r in csv.reader(f):
            if not r or r[0].startswith("#"):
                continue
            if r[0] != kind and len(r) > 1 and r[1] == kind:
                r = r[1:]
            if r[0] == kind:
                out.append(r)
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    errors, times, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)

    # error,input,p,N,condition,exact,ulps x3,rel_plain_tree,rel_accumulate,rel_accurate
    cond = [r for r in rows(errors, "error") if r[1].startswith("cond")]
    fig, ax = plt.subplots(figsize=(6, 4))
    x = [float(r[4]) for r in cond]
    for col, label in ((9, "plain tree sum"), (10, "std::accumulate"), (11, "accurate sum")):
        ax.loglog(x, [max(float(r[col]), FLOOR) for r in cond], marker="o", label=label)
    ax.set_xlabel("condition number  sum|x| / |sum x|")
    ax.set_ylabel(f"relative error (exact drawn at {FLOOR:g})")
    ax.set_title("Error against the correctly rounded sum (N = 100003)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "accurate_error.png", dpi=120)

    # time,machine,p,cores,N,method,exchange,reps,median,p10,p90,ratio
    ratios = defaultdict(list)
    for r in rows(times, "time"):
        if r[5] in ("accurate", "accurate_scalar"):
            ratios[(int(r[2]), int(r[4]), r[5])].append(float(r[11]))
    fig, ax = plt.subplots(figsize=(6, 4))
    keys = sorted(ratios)
    labels = [f"p={p} N={n:.0e}\n{m}" for p, n, m in keys]
    meds = [statistics.median(ratios[k]) for k in keys]
    lo = [m - min(ratios[k]) for m, k in zip(meds, keys)]
    hi = [max(ratios[k]) - m for m, k in zip(meds, keys)]
    ax.bar(range(len(keys)), meds, yerr=[lo, hi], capsize=3)
    ax.set_xticks(range(len(keys)), labels, fontsize=6)
    ax.set_yscale("log")
    ax.set_ylabel("time / plain tree sum (median of runs; bars: range)")
    ax.set_title("Accurate sum cost (2-core VM, shared; p = 2 on 2 cores)")
    fig.tight_layout()
    fig.savefig(out / "accurate_time.png", dpi=120)


if __name__ == "__main__":
    main()
