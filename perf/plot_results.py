#!/usr/bin/env python3
"""Turns the benchmark CSVs in a folder into PNG figures and a reproducibility table.

Usage: plot_results.py DIR

Reads every DIR/*.csv (lines starting with '#' are comments; the first other line is the
header) and recognises two kinds by their header:
  bench   reduction_bench: machine,p,oversubscribed,n,dataset,mode,distribution,exchange,
          reps,median_us,p1_us,p99_us,messages,bytes,result,result_bits
  counts  message_counts: p,n,distribution,exchange,messages_reduce,messages_unbuffered,
          messages_allreduce,bound
Writes into DIR (a figure is skipped when its data is absent):
  runtime_vs_n.png        median time (p1-p99 bars) vs N per mode/exchange at p = 2
  slowdown_vs_n.png       median time / baseline's at the same N, dataset and p
  runtime_vs_p_<ds>.png   median time vs p per mode/exchange, oversubscribed p shaded
  message_counts_p<P>.png messages per call vs N, one panel per distribution
  reproducibility.md      max - min of the results over p, distinct result bits
Needs python3 and matplotlib (Debian: python3-matplotlib; `scripts/setup --figures`).
"""

import csv
import math
import os
import re
import statistics
import sys
from collections import defaultdict

try:
    import matplotlib
except ImportError:
    # Debian's python3-matplotlib lives in the system python; a python3 first on PATH (pyenv,
    # venv) may not see it, so retry once with the system interpreter.
    SYSTEM_PYTHON = "/usr/bin/python3"
    if os.path.exists(SYSTEM_PYTHON) and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON):
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    sys.exit("plot_results: matplotlib is missing (install it with scripts/setup --figures)")

matplotlib.use("Agg")  # files only: no display on build machines
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

BENCH_COLUMNS = ["machine", "p", "oversubscribed", "n", "dataset", "mode", "distribution", "exchange",
                 "reps", "median_us", "p1_us", "p99_us", "messages", "bytes", "result", "result_bits"]
COUNTS_COLUMNS = ["p", "n", "distribution", "exchange", "messages_reduce", "messages_unbuffered",
                  "messages_allreduce", "bound"]
# Fixed order and styles so a mode/exchange looks the same in every figure.
SERIES_ORDER = ["baseline", "fast", "treefold/direct", "treefold/binomial", "treefold/fibonacci",
                "treefold/binary", "treefold/one_sided", "treefold/schedule_best"]
MARKERS = "os^vD<>ph*x+"


def warn(msg):
    print(f"plot_results: {msg}", file=sys.stderr)


def read_csv(path):
    """Returns (header, rows as dicts) of a CSV whose '#' lines are comments."""
    with open(path, newline="", encoding="utf-8") as f:
        lines = [ln for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        return [], []
    reader = csv.reader(lines)
    header = [h.strip() for h in next(reader)]
    rows = []
    for i, fields in enumerate(reader, start=2):
        if len(fields) != len(header):
            warn(f"{path}: data line {i} has {len(fields)} fields, header has {len(header)}; skipped")
            continue
        rows.append({h: v.strip() for h, v in zip(header, fields)})
    return header, rows


def kind_of(header):
    cols = set(header)
    if set(BENCH_COLUMNS) <= cols:
        return "bench"
    if set(COUNTS_COLUMNS) <= cols:
        return "counts"
    return None


def to_float(text):
    """A float, or None for 'na', empty or malformed fields."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def to_int(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def truthy(text):
    return str(text).strip().lower() in ("1", "true", "yes", "y")


def series_label(row):
    return f"treefold/{row['exchange']}" if row["mode"] == "treefold" else row["mode"]


def series_key(label):
    return (SERIES_ORDER.index(label) if label in SERIES_ORDER else len(SERIES_ORDER), label)


def style(label):
    i = series_key(label)[0]
    return {"marker": MARKERS[i % len(MARKERS)], "linestyle": "--" if not label.startswith("treefold") else "-"}


def clean_bench(rows):
    """Bench rows with numeric p, n and median; others are dropped with a warning."""
    out = []
    for r in rows:
        p, n, med = to_int(r["p"]), to_int(r["n"]), to_float(r["median_us"])
        if p is None or n is None or med is None:
            warn(f"bench row without numeric p/n/median_us skipped: {r}")
            continue
        r = dict(r, p=p, n=n, median_us=med, p1_us=to_float(r["p1_us"]), p99_us=to_float(r["p99_us"]))
        out.append(r)
    return out


def main_distribution(rows):
    """The distribution the timing figures use: even-lower if timed, else the most common."""
    counts = defaultdict(int)
    for r in rows:
        counts[r["distribution"]] += 1
    if not counts:
        return None
    return "even-lower" if "even-lower" in counts else max(counts, key=counts.get)


def median_row(rows):
    """Of several rows for the same point (e.g. data sets of the same N), the median one."""
    rows = sorted(rows, key=lambda r: r["median_us"])
    return rows[(len(rows) - 1) // 2]


def error_bars(points):
    lo = [max(0.0, y - (p1 if p1 is not None else y)) for _, y, p1, _ in points]
    hi = [max(0.0, (p99 if p99 is not None else y) - y) for _, y, _, p99 in points]
    return [lo, hi]


def fig_runtime_vs_n(rows, dist, out_dir, p_fixed=2):
    sel = [r for r in rows if r["p"] == p_fixed and r["distribution"] == dist]
    if not sel:
        warn(f"no bench rows at p = {p_fixed}: runtime_vs_n.png skipped")
        return
    by_series = defaultdict(lambda: defaultdict(list))
    for r in sel:
        by_series[series_label(r)][r["n"]].append(r)
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for label in sorted(by_series, key=series_key):
        pts = []
        for n in sorted(by_series[label]):
            m = median_row(by_series[label][n])
            pts.append((n, m["median_us"], m["p1_us"], m["p99_us"]))
        ax.errorbar([x for x, *_ in pts], [y for _, y, *_ in pts], yerr=error_bars(pts), label=label,
                    capsize=3, markersize=4, **style(label))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N (values)")
    ax.set_ylabel("time per call (µs, median; bars p1–p99)")
    ax.set_title(f"Runtime vs N at p = {p_fixed} ({dist})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out_dir, "runtime_vs_n.png")


def fig_slowdown_vs_n(rows, dist, out_dir, p_fixed=2):
    sel = [r for r in rows if r["p"] == p_fixed]
    base = defaultdict(list)
    for r in sel:
        if r["mode"] == "baseline":
            base[(r["n"], r["dataset"], r["distribution"])].append(r["median_us"])
    if not base:
        warn(f"no baseline rows at p = {p_fixed}: slowdown_vs_n.png skipped")
        return
    ratios = defaultdict(lambda: defaultdict(list))
    for r in sel:
        if r["mode"] == "baseline" or r["distribution"] != dist:
            continue
        ref = base.get((r["n"], r["dataset"], r["distribution"]))
        if ref is None:  # the baseline may have been timed under another distribution only
            ref = [m for (n, ds, _), ms in base.items() if n == r["n"] and ds == r["dataset"] for m in ms]
        ref_med = statistics.median(ref) if ref else None
        if ref_med:
            ratios[series_label(r)][r["n"]].append(r["median_us"] / ref_med)
    if not ratios:
        warn("no rows to compare with the baseline: slowdown_vs_n.png skipped")
        return
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for label in sorted(ratios, key=series_key):
        ns = sorted(ratios[label])
        ax.plot(ns, [statistics.median(ratios[label][n]) for n in ns], label=label, markersize=4, **style(label))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":", label="0.5× baseline (target, N ≥ 1e5)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N (values)")
    ax.set_ylabel("median time / baseline median (same N, data set, p)")
    ax.set_title(f"Slowdown vs baseline at p = {p_fixed} ({dist})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out_dir, "slowdown_vs_n.png")


def safe_name(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "dataset"


def fig_runtime_vs_p(rows, dist, out_dir):
    sel = [r for r in rows if r["distribution"] == dist]
    by_dataset = defaultdict(list)
    for r in sel:
        by_dataset[r["dataset"]].append(r)
    made = 0
    for dataset, drows in sorted(by_dataset.items()):
        # One N per figure: the one timed at the most process counts (ties: the largest).
        ps_per_n = defaultdict(set)
        for r in drows:
            ps_per_n[r["n"]].add(r["p"])
        n = max(ps_per_n, key=lambda k: (len(ps_per_n[k]), k))
        if len(ps_per_n[n]) < 2:
            continue
        nrows = [r for r in drows if r["n"] == n]
        by_series = defaultdict(lambda: defaultdict(list))
        for r in nrows:
            by_series[series_label(r)][r["p"]].append(r)
        fig, ax = plt.subplots(figsize=(8, 5.5))
        for label in sorted(by_series, key=series_key):
            pts = []
            for p in sorted(by_series[label]):
                m = median_row(by_series[label][p])
                pts.append((p, m["median_us"], m["p1_us"], m["p99_us"]))
            ax.errorbar([x for x, *_ in pts], [y for _, y, *_ in pts], yerr=error_bars(pts), label=label,
                        capsize=3, markersize=4, **style(label))
        over = sorted({r["p"] for r in nrows if truthy(r["oversubscribed"])})
        if over:
            top = max(r["p"] for r in nrows)
            ax.axvspan(over[0] - 0.5, top + 0.5, color="grey", alpha=0.15, hatch="//",
                       label="oversubscribed (p > cores)")
        ax.set_yscale("log")
        ax.set_xlabel("p (processes)")
        ax.set_ylabel("time per call (µs, median; bars p1–p99)")
        ax.set_title(f"Runtime vs p: {dataset}, N = {n} ({dist})")
        ax.set_xticks(sorted({r["p"] for r in nrows}))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        save(fig, out_dir, f"runtime_vs_p_{safe_name(dataset)}.png")
        made += 1
    if made == 0:
        warn("no data set timed at two or more p: runtime_vs_p_*.png skipped")


def fig_message_counts(rows, out_dir):
    by_p = defaultdict(list)
    for r in rows:
        p, n = to_int(r["p"]), to_int(r["n"])
        if p is None or n is None:
            continue
        by_p[p].append(dict(r, p=p, n=n))
    for p, prow in sorted(by_p.items()):
        dists = list(dict.fromkeys(r["distribution"] for r in prow))
        cols = min(2, len(dists))
        nrows = math.ceil(len(dists) / cols)
        fig, axes = plt.subplots(nrows, cols, figsize=(6.5 * cols, 4.5 * nrows), squeeze=False, sharey=True)
        for ax, dist in zip(axes.flat, dists):
            drows = [r for r in prow if r["distribution"] == dist]
            for exchange, column, label, ls in [
                ("direct", "messages_reduce", "direct (buffered)", "-"),
                ("direct", "messages_unbuffered", "direct, one message per root", "--"),
                ("tree", "messages_reduce", "tree (p − 1)", "-"),
                ("schedule_best", "messages_allreduce", "schedule_best (all_reduce, no broadcast)", "-."),
            ]:
                pts = sorted((r["n"], to_float(r[column])) for r in drows if r["exchange"] == exchange)
                pts = [(x, y) for x, y in pts if y is not None]
                if pts:
                    ax.plot([x for x, _ in pts], [y for _, y in pts], linestyle=ls, label=label)
            bound = sorted({(r["n"], to_float(r["bound"])) for r in drows if to_float(r["bound"]) is not None})
            if bound:
                ax.plot([x for x, _ in bound], [y for _, y in bound], color="black", linestyle=":",
                        label="(p−1)(log2((N−1)/p)+1)")
            ax.set_xscale("log")
            ax.set_title(dist)
            ax.set_xlabel("N (values)")
            ax.set_ylabel("messages per reduce (all ranks)")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
        for ax in list(axes.flat)[len(dists):]:
            ax.set_visible(False)
        fig.suptitle(f"Messages per call from the plan, p = {p} (all_reduce adds p − 1 = {p - 1})")
        save(fig, out_dir, f"message_counts_p{p}.png")


def reproducibility_table(rows):
    """Markdown table: per data set, N, mode and exchange, the spread of results over p."""
    groups = defaultdict(list)
    for r in rows:
        # allreduce1 sums the constant 1.0 over the ranks: its result is p by design, a latency
        # floor, not a reduction of the data set.
        if r["mode"] == "allreduce1":
            continue
        groups[(r["dataset"], r["n"], r["mode"], r["exchange"])].append(r)
    mode_rank = {"treefold": 0, "baseline": 1, "fast": 2}
    lines = ["| data set | N | mode | exchange | p | distributions | max − min | distinct bits | identical |",
             "|---|---:|---|---|---|---|---:|---:|---|"]
    for key in sorted(groups, key=lambda k: (k[0], k[1], mode_rank.get(k[2], 9), series_key(f"treefold/{k[3]}"))):
        g = groups[key]
        if len({r["p"] for r in g}) < 2:
            continue  # one process count says nothing about reproducibility over p
        values = [to_float(r["result"]) for r in g]
        values = [v for v in values if v is not None]
        if not values:
            spread = "na"
        elif any(math.isnan(v) for v in values):
            spread = "nan"
        else:
            spread = f"{max(values) - min(values):.3g}"
        bits = {r["result_bits"].upper() for r in g}
        ps = ",".join(str(p) for p in sorted({r["p"] for r in g}))
        dists = ",".join(sorted({r["distribution"] for r in g}))
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {ps} | {dists} | {spread} | {len(bits)} | "
                     f"{'yes' if len(bits) == 1 else 'no'} |")
    return "\n".join(lines) + "\n"


def save(fig, out_dir, name):
    fig.tight_layout()
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path}")


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    out_dir = argv[1]
    if not os.path.isdir(out_dir):
        warn(f"{out_dir} is not a directory")
        return 2
    bench, counts = [], []
    for name in sorted(os.listdir(out_dir)):
        if not name.endswith(".csv"):
            continue
        path = os.path.join(out_dir, name)
        header, rows = read_csv(path)
        kind = kind_of(header)
        if kind == "bench":
            bench += rows
        elif kind == "counts":
            counts += rows
        else:
            warn(f"{path}: header not recognised, skipped")
    if not bench and not counts:
        warn(f"no benchmark or message-count CSV in {out_dir}: nothing to plot")
        return 0  # an empty run is not an error for the scripts that call this one
    bench = clean_bench(bench)
    if bench:
        dist = main_distribution(bench)
        fig_runtime_vs_n(bench, dist, out_dir)
        fig_slowdown_vs_n(bench, dist, out_dir)
        fig_runtime_vs_p(bench, dist, out_dir)
        table = reproducibility_table(bench)
        path = os.path.join(out_dir, "reproducibility.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write("# Reproducibility over p (max − min of the results, distinct result bits)\n\n" + table)
        print(table, end="")
        print(f"wrote {path}")
    else:
        warn("no benchmark CSV: timing figures and reproducibility.md skipped")
    if counts:
        fig_message_counts(counts, out_dir)
    else:
        warn("no message-count CSV: message_counts_p*.png skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
