#!/usr/bin/env python3
"""Figures and tables of the binary-tree-reduction thesis's experiments (seed 000).

Usage: plot_binary_tree_thesis.py DIR   (DIR as written by scripts/run-binary-tree-thesis)

Writes into DIR (each skipped when its CSV is absent):
  fig2_3_counts.png      messages against N within 512 of 256 * 2^i, even-lower / even-upper
  fig3_4_runtime_p<P>.png  all_reduce median per distribution relative to even-upper, for
                         each distribution_p<P>.csv (p = 2 real cores; larger p oversubscribed)
  fig3_5_per_rank.png    elements per rank of every distribution (box plots)
  distribution.md        runtime, messages and elements per rank per distribution
  table4_2.md            distinct results and max - min over p, real and virtual ranks
Needs python3 and matplotlib (Debian: python3-matplotlib).
"""

import math
import os
import re
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_results import read_csv, save, to_float, to_int, warn  # noqa: E402  (matplotlib set up there)
import matplotlib.pyplot as plt  # noqa: E402

THESIS_P = list(range(1, 242, 16))


def write_markdown(out_dir, name, lines):
    path = os.path.join(out_dir, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path}")


def fig2_3(path, out_dir):
    _, rows = read_csv(path)
    by = defaultdict(list)
    for r in rows:
        n, p = to_int(r["n"]), to_int(r["p"])
        i = min(range(41), key=lambda k: abs(n - p * 2 ** k))  # the range's centre p * 2^i
        by[(r["distribution"], i)].append((n, to_int(r["messages_unbuffered"]), to_int(r["messages_reduce"])))
    dists = sorted({d for d, _ in by})
    exps = sorted({i for _, i in by})
    fig, axes = plt.subplots(len(dists), len(exps), figsize=(3.0 * len(exps), 3.0 * len(dists)), squeeze=False,
                             sharey="row")
    for a, d in enumerate(dists):
        for b, i in enumerate(exps):
            ax = axes[a][b]
            pts = sorted(by.get((d, i), []))
            ax.plot([x for x, _, _ in pts], [u for _, u, _ in pts], lw=0.7, label="one message per root")
            ax.plot([x for x, _, _ in pts], [m for _, _, m in pts], lw=0.7, label="buffered")
            ax.set_title(f"{d}, N ≈ 256·2^{i}", fontsize=8)
            ax.tick_params(labelsize=6)
            ax.grid(True, alpha=0.3)
        axes[a][0].set_ylabel("messages (all ranks)")
    axes[0][0].legend(fontsize=6)
    fig.suptitle("Messages of the direct exchange, p = 256, every N (thesis Fig. 2.3)")
    save(fig, out_dir, "fig2_3_counts.png")


def distribution_tables(bench_paths, counts_path, per_rank_path, out_dir):
    lines = []
    for bench_path in bench_paths:
        _, rows = read_csv(bench_path)
        p = to_int(rows[0]["p"])
        oversub = " (oversubscribed)" if rows[0]["oversubscribed"] == "yes" else ""
        med = defaultdict(list)  # (dataset, n, dist, mode) -> medians of the runs
        msgs = {}
        for r in rows:
            key = (r["dataset"], to_int(r["n"]), r["distribution"], r["mode"])
            med[key].append(to_float(r["median_us"]))
            if r["mode"] == "treefold":
                msgs[(r["dataset"], r["distribution"])] = r["messages"]
        datasets = sorted({(k[0], k[1]) for k in med}, key=lambda x: x[1])
        dists = list(dict.fromkeys(k[2] for k in med))
        lines += [f"## all_reduce (direct exchange) per distribution, p = {p}{oversub}: median of the runs' medians, µs",
                  f"(ratio to even-upper in brackets; messages per call at p = {p}; fast = fast-math + MPI_Allreduce)",
                  "",
                  "| data set (N) | " + " | ".join(dists) + " | fast (even-upper) |",
                  "|---|" + "---:|" * (len(dists) + 1)]
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for k, (ds, n) in enumerate(datasets):
            ref = statistics.median(med[(ds, n, "even-upper", "treefold")])
            cells, ratios = [], []
            for d in dists:
                v = statistics.median(med[(ds, n, d, "treefold")])
                ratios.append(v / ref)
                cells.append(f"{v:.2f} ({v / ref:.2f}; {msgs.get((ds, d), 'na')} msg)")
            fast = statistics.median(med[(ds, n, "even-upper", "fast")])
            lines.append(f"| {ds} ({n:,}) | " + " | ".join(cells) + f" | {fast:.2f} |")
            ax.plot(range(len(dists)), ratios, marker="os^vD<>"[k % 7], label=f"{ds} ({n:,})")
        ax.axhline(1.0, color="black", lw=0.7)
        ax.axhline(0.82, color="grey", ls=":", lw=0.7, label="thesis: −18 % (p = 256)")
        ax.set_xticks(range(len(dists)), dists, rotation=30, fontsize=8)
        ax.set_ylabel("median time / even-upper's")
        ax.set_title(f"all_reduce per distribution, p = {p}{oversub} (thesis Fig. 3.4)")
        ax.legend(fontsize=7)
        ax.grid(True, alpha=0.3)
        save(fig, out_dir, f"fig3_4_runtime_p{p}.png")
        lines.append("")
    if counts_path:
        _, rows = read_csv(counts_path)
        dists = list(dict.fromkeys(r["distribution"] for r in rows))
        lines += ["", "## Messages per call of the direct exchange (reduce, buffered / one per root)", "",
                  "| p | N | " + " | ".join(dists) + " |", "|---:|---:|" + "---:|" * len(dists)]
        table = defaultdict(dict)
        for r in rows:
            table[(to_int(r["p"]), to_int(r["n"]))][r["distribution"]] = \
                f"{r['messages_reduce']} / {r['messages_unbuffered']}"
        for (p, n) in sorted(table):
            lines.append(f"| {p} | {n:,} | " + " | ".join(table[(p, n)].get(d, "") for d in dists) + " |")
    if per_rank_path:
        _, rows = read_csv(per_rank_path)
        groups = defaultdict(list)
        for r in rows:
            groups[(to_int(r["p"]), to_int(r["n"]), r["distribution"])].append(to_int(r["count"]))
        lines += ["", "## Elements per rank: min / median / max", "",
                  "| p | N | distribution | min | median | max | max / (N/p) |", "|---:|---:|---|---:|---:|---:|---:|"]
        for (p, n, d), c in sorted(groups.items()):
            lines.append(f"| {p} | {n:,} | {d} | {min(c)} | {statistics.median(c):.0f} | {max(c)} | "
                         f"{max(c) / (n / p):.3f} |")
        # Fig. 3.5: the spread at p = 256 for the thesis's N (or the largest N present).
        sizes = sorted({n for p, n, _ in groups if p == 256})
        if sizes:
            n = 504850 if 504850 in sizes else sizes[-1]
            # power-of-two's last rank (about half of N) would flatten every other box.
            dists = [d for (p, nn, d) in groups if p == 256 and nn == n and d != "power-of-two"]
            fig, ax = plt.subplots(figsize=(8, 4.5))
            ax.boxplot([groups[(256, n, d)] for d in dists], labels=dists)
            ax.set_ylabel("elements per rank")
            ax.set_title(f"Elements per rank, N = {n:,}, p = 256, power-of-two left out (thesis Fig. 3.5)")
            ax.tick_params(axis="x", labelsize=7, rotation=30)
            ax.grid(True, alpha=0.3)
            save(fig, out_dir, "fig3_5_per_rank.png")
    if lines:
        write_markdown(out_dir, "distribution.md", lines)


def spread(rows):
    values = [to_float(r["result"]) for r in rows]
    return len({r["result_bits"] for r in rows}), max(values) - min(values)


def table4_2(real_path, virtual_path, out_dir):
    groups = defaultdict(list)  # (dataset, n, ranks, method) -> rows
    for path in (real_path, virtual_path):
        if path:
            for r in read_csv(path)[1]:
                groups[(r["dataset"], to_int(r["n"]), r["ranks"], r["method"])].append(r)
    datasets = sorted({(k[0], k[1]) for k in groups}, key=lambda x: x[1])
    methods = ["treefold", "baseline", "fast"]
    cols = [("real", None, "real p = 1..8, 16, 17"),
            ("virtual", THESIS_P, "virtual p = 1, 17, .., 241"),
            ("virtual", None, "virtual, every p run (1..8, 16, 1, 17, .., 241, 1024, 4096)")]
    lines = ["# Table 4.2: distinct results (bit patterns) / max − min over p", "",
             "Real ranks beyond the cores are oversubscribed (bits valid). Virtual: one process runs every rank's "
             "local work; baseline and fast combine the partial sums in Open MPI's recursive-doubling order "
             "(an assumption, checked against the real rows below).", "",
             "| data set (N) | method | " + " | ".join(c[2] for c in cols) + " |", "|---|---|" + "---|" * len(cols)]
    for ds, n in datasets:
        for m in methods:
            cells = []
            for ranks, ps, _ in cols:
                g = [r for r in groups.get((ds, n, ranks, m), []) if ps is None or to_int(r["p"]) in ps]
                if not g:
                    cells.append("na")
                    continue
                k, s = spread(g)
                cells.append(f"{k} / {s:.2g}")
            lines.append(f"| {ds} ({n:,}) | {m} | " + " | ".join(cells) + " |")
    # The virtual mode against the real one where both ran.
    lines += ["", "## Virtual against real, same p: rows whose bits agree / rows compared", "",
              "| method | agree / compared |", "|---|---:|"]
    for m in methods:
        agree = total = 0
        for ds, n in datasets:
            virt = {to_int(r["p"]): r["result_bits"] for r in groups.get((ds, n, "virtual", m), [])}
            for r in groups.get((ds, n, "real", m), []):
                p = to_int(r["p"])
                if p in virt:
                    total += 1
                    agree += virt[p] == r["result_bits"]
        lines.append(f"| {m} | {agree} / {total} |")
    print("\n".join(lines))
    write_markdown(out_dir, "table4_2.md", lines)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    out = argv[1]

    def have(name):
        path = os.path.join(out, name)
        if os.path.exists(path):
            return path
        warn(f"{path} absent, skipped")
        return None

    if have("fig2_3_counts.csv"):
        fig2_3(os.path.join(out, "fig2_3_counts.csv"), out)
    benches = sorted((os.path.join(out, f) for f in os.listdir(out) if re.fullmatch(r"distribution_p\d+\.csv", f)),
                     key=lambda path: int(re.search(r"_p(\d+)", path).group(1)))
    if not benches:
        warn(f"no distribution_p<P>.csv in {out}: Fig. 3.4 skipped")
    distribution_tables(benches, have("distribution_counts.csv"), have("fig3_5_per_rank.csv"), out)
    real, virt = have("table4_2_real.csv"), have("table4_2_virtual.csv")
    if real or virt:
        table4_2(real, virt, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
