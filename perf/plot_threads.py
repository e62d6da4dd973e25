#!/usr/bin/env python3
"""Threads inside a rank (perf/thread_bench): median time of the split tree and of the
fast-math ceiling per (N, t), one panel per N, one group of bars per run, and the tree's ratio
to the ceiling printed above each pair.

    python3 perf/plot_threads.py perf/results/thread_bench_2026-11-25.csv build/thread-results
    # reads the CSV (columns of thread_bench's CSV, with `run` and `load` first), writes
    # threads.png into the output folder (created if absent)
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    source = Path(sys.argv[1] if len(sys.argv) > 1 else "perf/results/thread_bench_2026-11-25.csv")
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "build/thread-results")
    out.mkdir(parents=True, exist_ok=True)
    ms = {}
    loads = {}
    sizes = set()
    threads = set()
    with open(source, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["run"], int(r["N"]), int(r["threads"]), r["mode"])
            ms[key] = float(r["median_ms"])
            loads[r["run"]] = r["load"]
            sizes.add(int(r["N"]))
            threads.add(int(r["threads"]))
    runs = sorted(loads, key=int)
    fig, axes = plt.subplots(1, len(sizes), figsize=(6 * len(sizes), 4))
    axes = axes if len(sizes) > 1 else [axes]
    width = 0.8 / (2 * len(threads))
    for ax, n in zip(axes, sorted(sizes)):
        for j, t in enumerate(sorted(threads)):
            for k, mode in enumerate(("ceiling", "tree")):
                xs = [i + (2 * j + k) * width for i in range(len(runs))]
                ys = [ms.get((run, n, t, mode), 0.0) for run in runs]
                ax.bar(xs, ys, width, label=f"{mode}, t = {t}", hatch="//" if mode == "ceiling" else None,
                       color=f"C{j}", alpha=0.5 if mode == "ceiling" else 1.0)
                if mode == "tree":
                    for x, run, y in zip(xs, runs, ys):
                        c = ms.get((run, n, t, "ceiling"))
                        if c:
                            ax.annotate(f"{y / c:.2f}", (x, y), ha="center", va="bottom", fontsize=7)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(runs))])
        ax.set_xticklabels([f"run {r}\nload {loads[r]}" for r in runs], fontsize=8)
        ax.set_ylabel("median ms per call")
        ax.set_title(f"N = {n:,}")
        ax.legend(fontsize=8)
    fig.suptitle("kernel::split<best> (tree) against the fast-math ceiling on the same t threads; tree ÷ ceiling above")
    fig.tight_layout()
    fig.savefig(out / "threads.png", dpi=120)
    print(f"wrote {out / 'threads.png'}")


if __name__ == "__main__":
    main()
