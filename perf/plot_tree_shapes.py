#!/usr/bin/env python3
"""Figures of scripts/run-tree-shapes, in the reduction-trees document's presentation:
runtime against the process count, and runtime against the array size (log-log).

    python3 perf/plot_tree_shapes.py build/perf-results
"""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def by_method(data, x_key):
    """{method: sorted [(x, median over repeats of median_us, oversubscribed)]}"""
    runs = defaultdict(list)
    over = {}
    for r in data:
        key = (r["method"], int(r[x_key]))
        runs[key].append(float(r["median_us"]))
        over[key] = r["oversubscribed"] == "1"
    out = defaultdict(list)
    for (method, x), v in runs.items():
        out[method].append((x, statistics.median(v), over[(method, x)]))
    return {m: sorted(v) for m, v in out.items()}


def summary(data, x_key):
    """Markdown table: median over repeats of median_us per x (rows) and method (columns)."""
    table = by_method(data, x_key)
    methods = list(table)
    xs = sorted({x for v in table.values() for x, _, _ in v})
    lines = ["| " + x_key + " | " + " | ".join(methods) + " |", "|" + "---|" * (len(methods) + 1)]
    for x in xs:
        cells = []
        for m in methods:
            y = [y for xx, y, _ in table[m] if xx == x]
            cells.append(f"{y[0]:.1f}" if y else "")
        lines.append(f"| {x} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot_procs(data, dest):
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for method, pts in by_method(data, "p").items():
        ax.plot([x for x, _, _ in pts], [y for _, y, _ in pts], marker="o", label=method)
    over = sorted({int(r["p"]) for r in data if r["oversubscribed"] == "1"})
    if over:
        ax.axvspan(over[0] - 0.5, over[-1] + 0.5, color="0.9", zorder=0, label="oversubscribed")
    ax.set_xlabel("processes p")
    ax.set_ylabel("median latency of MPI_Reduce-signature call (µs)")
    ax.set_title(f"Reduce, {int(data[0]['bytes']) // 4} floats per rank ({data[0]['machine']})")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(dest, dpi=110)


def plot_sizes(data, dest):
    ps = sorted({int(r["p"]) for r in data})
    fig, axes = plt.subplots(1, len(ps), figsize=(5.2 * len(ps), 4.2), squeeze=False)
    for ax, p in zip(axes[0], ps):
        part = [r for r in data if int(r["p"]) == p]
        for method, pts in by_method(part, "bytes").items():
            ax.plot([x // 4 for x, _, _ in pts], [y for _, y, _ in pts], marker="o", label=method)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("floats per rank")
        ax.set_ylabel("median latency (µs)")
        marked = " (oversubscribed)" if part[0]["oversubscribed"] == "1" else ""
        ax.set_title(f"p = {p}{marked}")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(dest, dpi=110)


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "build/perf-results")
    procs = out / "tree_shapes_procs.csv"
    sizes = out / "tree_shapes_sizes.csv"
    if procs.exists():
        data = rows(procs)
        plot_procs(data, out / "tree_shapes_procs.png")
        print("median latency (us) against p, 1000 floats per rank:")
        print(summary(data, "p"))
    if sizes.exists():
        data = rows(sizes)
        plot_sizes(data, out / "tree_shapes_sizes.png")
        for p in sorted({int(r["p"]) for r in data}):
            print(f"median latency (us) against bytes, p = {p}:")
            print(summary([r for r in data if int(r["p"]) == p], "bytes"))


if __name__ == "__main__":
    main()
