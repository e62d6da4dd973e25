#!/usr/bin/env python3
"""The size-aware model from `schedule_fit --sizes` runs: Table 4.1's form (alpha_p,
alpha_r fitted per message size; median and range over the runs) as a Markdown table beside
the thesis's values, and a figure of the per-size fits with the size model's fit of each run.

    python3 perf/plot_size_model.py OUTDIR run1.csv [run2.csv ...]   # writes OUTDIR/size_model.png
"""
import statistics
import sys
from pathlib import Path

# The thesis's Table 4.1 (ARCHER, dmapp_put_flag_nbi): bytes -> (alpha_p, alpha_r) in us.
THESIS = {8: (0.88, 0.38), 64: (0.89, 0.38), 128: (0.91, 0.38), 512: (0.96, 0.46), 2048: (0.96, 0.79),
          8192: (0.86, 2.17), 32768: (0.68, 7.75), 131072: (-0.12, 30.1), 524288: (-1.7, 119.3)}


def read_run(path):
    """Per-size fits {bytes: (alpha_p, alpha_r)}, the size model line, and whether oversubscribed."""
    table, model, over = {}, "", False
    for line in Path(path).read_text().splitlines():
        if line.startswith("table,") and not line.startswith("table,bytes"):
            _, n, ap, ar, _ratio = line.split(",")
            table[int(n)] = (float(ap), float(ar))
        elif line.startswith("# size model:"):
            model = line[len("# size model:"):].strip()
        elif "OVERSUBSCRIBED" in line:
            over = True
    return table, model, over


def size_model(model_line):
    """alpha_p(n), alpha_r(n) from the printed size model line."""
    words = model_line.replace(",", " ").replace(";", " ").split()

    def after(key, skip=2):
        return float(words[words.index(key) + skip])
    ap, ar, beta = after("alpha_p"), after("alpha_r"), after("beta")
    if "above" in words:
        i = words.index("above")
        limit = int(words[i + 1])
        dp, dr, db = float(words[i + 3]), float(words[i + 6]), float(words[i + 10])
    else:
        limit, dp, dr, db = None, 0.0, 0.0, 0.0

    def at(n):
        up = limit is not None and n > limit
        return ap + (dp if up else 0.0), ar + beta * n + ((dr + db * n) if up else 0.0)
    return at


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    runs = [read_run(p) for p in sys.argv[2:]]
    sizes = sorted(set().union(*(r[0].keys() for r in runs)))
    over = any(r[2] for r in runs)
    print(f"Per-size fits, median (range) over {len(runs)} runs{' (OVERSUBSCRIBED)' if over else ''}:\n")
    print("| size | alpha_p (us) | alpha_r (us) | ratio | thesis alpha_p | thesis alpha_r | thesis ratio |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        v = [r[0][n] for r in runs if n in r[0]]
        ap = statistics.median(x[0] for x in v)
        ar = statistics.median(x[1] for x in v)
        rng = [f"{min(x[i] for x in v):.2f} … {max(x[i] for x in v):.2f}" for i in (0, 1)]
        th = THESIS.get(n)
        ths = f"{th[0]:.2f} | {th[1]:.2f} | {th[0] / th[1]:.2g}" if th else " | | "
        print(f"| {n} B | {ap:.2f} ({rng[0]}) | {ar:.2f} ({rng[1]}) | {ap / ar:.2f} | {ths} |")
    print()
    for _, model, _ in runs:
        print("size model:", model)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for k, (table, model, _) in enumerate(runs):
        ns = sorted(table)
        for i, ax in enumerate(axes):
            ax.plot(ns, [table[n][i] for n in ns], "o", ms=3, color=f"C{k}", label=f"run {k + 1} per size")
            if model:
                at = size_model(model)
                grid = sorted(set(ns + [n + 1 for n in ns]))
                ax.plot(grid, [at(n)[i] for n in grid], "-", lw=1, color=f"C{k}", alpha=0.6,
                        label=f"run {k + 1} size model")
    for i, (ax, name) in enumerate(zip(axes, ("alpha_p", "alpha_r"))):
        ax.plot(list(THESIS), [v[i] for v in THESIS.values()], "k^", ms=4, label="thesis Table 4.1 (ARCHER)")
        ax.set_xscale("log", base=2)
        if i == 1:
            ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel(f"{name} (us)")
        ax.axvline(4096, color="grey", lw=0.5, ls=":")
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=7)
    fig.suptitle("schedule_fit --sizes" + (" (OVERSUBSCRIBED)" if over else ", p = 2"))
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / "size_model.png", dpi=120)
    print(f"wrote {out / 'size_model.png'}")


if __name__ == "__main__":
    main()
