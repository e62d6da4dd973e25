#!/usr/bin/env python3
"""Figures and tables of scripts/run-simulate.

validation: the measured medians at p = 2 (reduction_bench, osu_allreduce) beside the
task-graph simulator's times, with the relative error (simulated - measured) / measured.
scale: the simulated all_reduce time of every reproducible exchange against p for each N
(one panel per N, log-log), from `treefold simulate --csv` rows.

    python3 perf/plot_simulate.py build/perf-results
"""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SIM_FIELDS = ["model", "p", "n", "what", "makespan", "messages", "bytes", "path_messages", "max_busy", "skew"]


def sim_rows(path):
    with open(path, newline="") as f:
        return [dict(zip(SIM_FIELDS, r)) for r in csv.reader(f) if r and not r[0].startswith("#")]


def validation(out):
    """Markdown table of measured vs simulated (simulate_validation.csv from perf/simulate_validate.py)."""
    path = out / "simulate_validation.csv"
    if not path.exists():
        return
    with open(path, newline="") as f:
        data = list(csv.DictReader(f))
    print("| source | exchange / schedule | N or bytes | measured median (us) | measured p1 (us) | simulated (us) "
          "| error vs median | error vs p1 |")
    print("|---|---|---|---|---|---|---|---|")
    errors = []
    for r in data:
        m, p1, s = float(r["measured_us"]), float(r["p1_us"]), float(r["simulated_us"])
        errors.append(abs(s - m) / m)
        print(f"| {r['source']} | {r['what']} | {r['n']} | {m:.2f} | {p1:.2f} | {s:.2f} | {100 * (s - m) / m:+.0f} % "
              f"| {100 * (s - p1) / p1:+.0f} % |")
    if errors:
        print(f"\nmedian |error| vs medians {100 * statistics.median(errors):.0f} %, largest {100 * max(errors):.0f} % "
              f"over {len(errors)} points")


def scale(out):
    path = out / "simulate_scale.csv"
    if not path.exists():
        return
    data = sim_rows(path)
    ns = sorted({int(r["n"]) for r in data})
    fig, axes = plt.subplots(1, len(ns), figsize=(4 * len(ns), 4), sharey=False)
    if len(ns) == 1:
        axes = [axes]
    for ax, n in zip(axes, ns):
        series = defaultdict(list)
        for r in data:
            if int(r["n"]) == n:
                series[r["what"]].append((int(r["p"]), float(r["makespan"])))
        for what, pts in sorted(series.items()):
            pts.sort()
            ax.plot([p for p, _ in pts], [t for _, t in pts], marker="o", label=what)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"N = {n:g}")
        ax.set_xlabel("p (simulated)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("simulated all_reduce time (us)")
    axes[-1].legend(fontsize=7)
    fig.suptitle("treefold exchanges, task-graph simulation (size-aware model fitted at p = 2)")
    fig.tight_layout()
    fig.savefig(out / "simulate_scale.png", dpi=120)
    print(f"\nwrote {out / 'simulate_scale.png'}")
    # A table: per (N, p) the fastest exchange and its time.
    print("\n| N | p | " + " | ".join(sorted({r['what'] for r in data})) + " |")
    whats = sorted({r["what"] for r in data})
    print("|---|---|" + "---|" * len(whats))
    table = {(int(r["n"]), int(r["p"]), r["what"]): float(r["makespan"]) for r in data}
    for n in ns:
        for p in sorted({int(r["p"]) for r in data}):
            cells = [f"{table[(n, p, w)]:.1f}" if (n, p, w) in table else "" for w in whats]
            print(f"| {n:g} | {p} | " + " | ".join(cells) + " |")


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "build/perf-results")
    validation(out)
    scale(out)


if __name__ == "__main__":
    main()
