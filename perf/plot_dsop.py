#!/usr/bin/env python3
"""DSOP experiment matrix (scripts/run-dsop): median of every (p, N, algorithm, summation)
with a bootstrap 95 % confidence interval of the median, speedup over the allreduce
baseline's median, and violin plots of the per-call times.

    python3 perf/plot_dsop.py build/perf-results   # reads dsop_raw.csv
"""
import csv
import random
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RESAMPLES = 2000


def bootstrap_median_ci(values, rng):
    """Percentile bootstrap 95 % interval of the median (RESAMPLES resamples)."""
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(RESAMPLES))
    return meds[int(0.025 * RESAMPLES)], meds[int(0.975 * RESAMPLES) - 1]


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "build/perf-results")
    groups = defaultdict(list)
    over = {}
    with open(out / "dsop_raw.csv", newline="") as f:
        for r in csv.DictReader(f):
            key = (int(r["p"]), int(r["N"]), r["algorithm"], r["summation"])
            groups[key].append(float(r["ms"]))
            over[int(r["p"])] = r["oversubscribed"] == "yes"
    rng = random.Random(1)
    rows = []
    for (p, n, alg, summ), v in sorted(groups.items()):
        base = statistics.median(groups[(p, n, "allreduce", "fast")])
        lo, hi = bootstrap_median_ci(v, rng)
        med = statistics.median(v)
        rows.append((p, n, alg, summ, len(v), med, lo, hi, base / med))
    with open(out / "dsop_summary.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["p", "oversubscribed", "N", "algorithm", "summation", "calls", "median_ms", "ci95_lo_ms",
                    "ci95_hi_ms", "speedup_vs_allreduce"])
        for p, n, alg, summ, c, med, lo, hi, sp in rows:
            w.writerow([p, int(over[p]), n, alg, summ, c, f"{med:.3f}", f"{lo:.3f}", f"{hi:.3f}", f"{sp:.2f}"])
    print("| p | N = M | algorithm | summation | calls | median ms [95 % CI] | speedup vs allreduce |")
    print("|---|---|---|---|---|---|---|")
    for p, n, alg, summ, c, med, lo, hi, sp in rows:
        mark = " (oversubscribed)" if over[p] else ""
        print(f"| {p}{mark} | {n} | {alg} | {summ} | {c} | {med:.2f} [{lo:.2f}, {hi:.2f}] | {sp:.2f}× |")

    variants = sorted({(alg, summ) for (_, _, alg, summ) in groups}, key=lambda x: (x[1], x[0]))
    for p in sorted({k[0] for k in groups}):
        ns = sorted({k[1] for k in groups if k[0] == p})
        fig, axes = plt.subplots(1, len(ns), figsize=(4.0 * len(ns), 4.2), squeeze=False)
        for ax, n in zip(axes[0], ns):
            data = [groups[(p, n, a, s)] for a, s in variants if (p, n, a, s) in groups]
            labels = [f"{a}\n{s}" for a, s in variants if (p, n, a, s) in groups]
            ax.violinplot(data, showmedians=True)
            ax.set_xticks(range(1, len(labels) + 1), labels, rotation=60, ha="right", fontsize=6)
            ax.set_title(f"N = M = {n}")
            ax.set_ylabel("ms per call (slowest rank)")
        fig.suptitle(f"DSOP, p = {p}" + (" (oversubscribed)" if over[p] else ""))
        fig.tight_layout()
        fig.savefig(out / f"dsop_violin_p{p}.png", dpi=100)
        plt.close(fig)


if __name__ == "__main__":
    main()
