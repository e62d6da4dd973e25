#!/usr/bin/env python3
"""DSOP experiment matrix (scripts/run-dsop): median of every (p, N, algorithm, summation)
with a bootstrap 95 % confidence interval of the median, speedup over the allreduce
baseline's median, and violin plots of the per-call times.

    python3 perf/plot_dsop.py build/perf-results [PREFIX]   # reads PREFIX_raw.csv (default dsop)

Writes PREFIX_summary.csv, PREFIX_violin_p<P>.png and PREFIX_speedup_p<P>.png (median
speedup over allreduce against N with its bootstrap 95 % interval, the document's Fig. 2).
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


def bootstrap_speedup_ci(base, values, rng):
    """Percentile bootstrap 95 % interval of median(base) / median(values), both resampled."""
    ratios = sorted(statistics.median(rng.choices(base, k=len(base))) /
                    statistics.median(rng.choices(values, k=len(values))) for _ in range(RESAMPLES))
    return ratios[int(0.025 * RESAMPLES)], ratios[int(0.975 * RESAMPLES) - 1]


def plot_speedups(out, prefix, groups, over, rng):
    """One figure per p: median speedup over allreduce against N, with 95 % bootstrap bars."""
    for p in sorted({k[0] for k in groups}):
        fig, ax = plt.subplots(figsize=(7.5, 4.5))
        variants = sorted({(a, s) for (q, _, a, s) in groups if q == p and (a, s) != ("allreduce", "fast")})
        for a, s in variants:
            ns = sorted(n for (q, n, aa, ss) in groups if (q, aa, ss) == (p, a, s))
            meds, los, his = [], [], []
            for n in ns:
                base = groups[(p, n, "allreduce", "fast")]
                v = groups[(p, n, a, s)]
                lo, hi = bootstrap_speedup_ci(base, v, rng)
                med = statistics.median(base) / statistics.median(v)
                meds.append(med)
                los.append(med - lo)
                his.append(hi - med)
            style = "--" if a.endswith("_async") or a.endswith("_pipelined") else "-"
            ax.errorbar(ns, meds, yerr=[los, his], capsize=3, linestyle=style, marker="o", markersize=3,
                        label=a + ("" if s == "fast" else " (" + s + ")"))
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_xlabel("N = M")
        ax.set_ylabel("median speedup over allreduce")
        ax.set_title(f"DSOP, p = {p}" + (" (oversubscribed)" if over[p] else "") + ", 95 % bootstrap CI")
        ax.legend(fontsize=6, ncol=2)
        fig.tight_layout()
        fig.savefig(out / f"{prefix}_speedup_p{p}.png", dpi=100)
        plt.close(fig)


TWINS = [("allreduce_ring_pipelined", "allreduce_ring"), ("butterfly_pipelined", "butterfly"),
         ("allgather_async", "allgather"), ("bruck_async", "allgather"),
         ("generalized_rabenseifner_pipelined", "generalized_rabenseifner")]


def print_twins(groups, over, rng):
    """Each overlapped variant against its plain form: median(plain) / median(overlapped), with
    the bootstrap 95 % interval (> 1: the overlapped one is faster)."""
    keys = sorted({(p, n) for (p, n, a, s) in groups if s == "fast"})
    twins = [t for t in TWINS if any((p, n, t[0], "fast") in groups for p, n in keys)]
    if not twins:
        return
    print()
    print("| p | N = M | " + " | ".join(f"{a} vs {b}" for a, b in twins) + " |")
    print("|---|---|" + "---|" * len(twins))
    for p, n in keys:
        cells = []
        for a, b in twins:
            if (p, n, a, "fast") in groups and (p, n, b, "fast") in groups:
                plain, overlapped = groups[(p, n, b, "fast")], groups[(p, n, a, "fast")]
                lo, hi = bootstrap_speedup_ci(plain, overlapped, rng)
                cells.append(f"{statistics.median(plain) / statistics.median(overlapped):.2f} [{lo:.2f}, {hi:.2f}]")
            else:
                cells.append("")
        print(f"| {p}{' (oversubscribed)' if over[p] else ''} | {n} | " + " | ".join(cells) + " |")


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "build/perf-results")
    prefix = sys.argv[2] if len(sys.argv) > 2 else "dsop"
    groups = defaultdict(list)
    over = {}
    with open(out / f"{prefix}_raw.csv", newline="") as f:
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
    with open(out / f"{prefix}_summary.csv", "w", newline="") as f:
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
        fig.savefig(out / f"{prefix}_violin_p{p}.png", dpi=100)
        plt.close(fig)
    plot_speedups(out, prefix, groups, over, rng)
    print_twins(groups, over, rng)


if __name__ == "__main__":
    main()
