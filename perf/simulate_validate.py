#!/usr/bin/env python3
"""scripts/run-simulate's fitting step: the task-graph simulator (`treefold simulate`) against
the p = 2 measurements, and the simulated sweep at large p.

Constants: alpha_p and alpha_r from schedule_fit (p = 2, simulate_constants.txt); the
local kernel's time per element fitted (least relative squares) to reduction_bench's medians,
the time per byte fitted to osu_allreduce's medians; a combine costs layout::score_params'
t_op (4.15 ns). Writes simulate_fit.txt, simulate_validation.csv and simulate_scale.csv.

    python3 perf/simulate_validate.py BUILD/src/cli/treefold OUT
"""
import csv
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

T_OP_US = 0.00415  # layout::score_params::t_op, one operator call
# Open MPI's shared-memory eager limit is 4 KiB with the match header: a 4096-byte payload
# already goes by rendezvous (osu_allreduce's step from 2 to 4 KiB).
EAGER_LIMIT = 4095
SCALE_P = [256, 1024, 4096]
SCALE_N = [460, 10**4, 10**5, 10**6, 2 * 10**7]
EXCHANGES = ["direct", "binomial", "fibonacci", "binary", "schedule_rd"]


def constants(path):
    out = {}
    for line in open(path):
        parts = line.split()
        if len(parts) == 2 and not parts[0].startswith("#"):
            out[parts[0]] = float(parts[1])
    return out["alpha_p"], out["alpha_r"]


def simulate(cli, p, n, c, what, per_element=0.0, beta=0.0, value_bytes=8, step=0.0, per_call=0.0):
    """Makespans by label from one `treefold simulate --csv` call."""
    args = [cli, "simulate", "--p", str(p), "--n", str(n), "--distribution", "even-lower", "--model", "size",
            "--alpha-p", str(c["alpha_p"]), "--alpha-r", str(c["alpha_r"]), "--beta", str(beta),
            "--eager-limit", str(EAGER_LIMIT), "--rendezvous-step", str(step),
            "--per-call", str(per_call), "--per-element", str(per_element), "--per-value", str(T_OP_US),
            "--value-bytes", str(value_bytes), "--csv"]
    for w in what:
        args += ["--schedule", w[len("schedule "):]] if w.startswith("schedule ") else ["--exchange", w]
    rows = subprocess.run(args, check=True, capture_output=True, text=True).stdout.splitlines()
    return {r.split(",")[3]: float(r.split(",")[4]) for r in rows}


def medians(rows, key, value):
    runs = defaultdict(list)
    for r in rows:
        runs[key(r)].append(float(r[value]))
    return {k: statistics.median(v) for k, v in runs.items()}


def fit_linear(points):
    """(c, x) minimising sum(((t0 + c + s*x) - m) / m)^2 over the points (t0, s, m): a per-call
    cost c (every rank starts c later, so the makespan moves by c) and a slope's factor x, both
    at least 0 (the normal equations of the 2x2 weighted least squares)."""
    w = [1 / m**2 for _, _, m in points]
    a11 = sum(w)
    a12 = sum(wi * s for wi, (_, s, _) in zip(w, points))
    a22 = sum(wi * s * s for wi, (_, s, _) in zip(w, points))
    b1 = sum(wi * (m - t0) for wi, (t0, _, m) in zip(w, points))
    b2 = sum(wi * (m - t0) * s for wi, (t0, s, m) in zip(w, points))
    det = a11 * a22 - a12 * a12
    c, x = (b1 * a22 - b2 * a12) / det, (a11 * b2 - a12 * b1) / det
    if x < 0:
        c, x = b1 / a11, 0.0
    if c < 0:
        c, x = 0.0, max(0.0, b2 / a22)
    return c, x


def main():
    cli, out = sys.argv[1], Path(sys.argv[2])
    a_p, a_r = constants(out / "simulate_constants.txt")
    c = {"alpha_p": a_p, "alpha_r": a_r}
    with open(out / "simulate_reduction.csv", newline="") as f:
        red = [r for r in csv.DictReader(row for row in f if not row.startswith("#")) if r["mode"] == "treefold"]
    with open(out / "simulate_osu.csv", newline="") as f:
        osu = [r for r in csv.DictReader(row for row in f if not row.startswith("#"))
               if r["method"] in ("recursive_doubling", "heuristic", "best")]
    red_med = medians(red, lambda r: (r["exchange"], int(r["n"])), "median_us")
    red_p1 = medians(red, lambda r: (r["exchange"], int(r["n"])), "p1_us")
    osu_med = medians(osu, lambda r: (r["method"], r["stages"], int(r["bytes"])), "median_us")
    osu_p1 = medians(osu, lambda r: (r["method"], r["stages"], int(r["bytes"])), "p1_us")

    # Per element: the simulated time is affine in it at p = 2 (the larger block's kernel is on
    # the critical path), so two simulations give each point's intercept and slope.
    pts = []
    sims = {}
    for (e, n), m in red_med.items():
        t0 = simulate(cli, 2, n, c, [e])[e]
        t1 = simulate(cli, 2, n, c, [e], per_element=1e-3)[e]
        pts.append((t0, (t1 - t0) / 1e-3, m))
    call_reducer, per_element = fit_linear(pts)
    # Per byte: osu_allreduce's schedules move the whole vector in every message; fitted on
    # the eager sizes, then the rendezvous step as the median residual above the limit.
    pts = []
    for (meth, stages, b), m in osu_med.items():
        if b <= EAGER_LIMIT:
            label = "schedule " + stages
            t0 = simulate(cli, 2, 2, c, [label], value_bytes=b)[label]
            t1 = simulate(cli, 2, 2, c, [label], beta=1e-3, value_bytes=b)[label]
            pts.append((t0, (t1 - t0) / 1e-3, m))
    call_osu, beta = fit_linear(pts)
    residuals = [m - simulate(cli, 2, 2, c, ["schedule " + stages], beta=beta, value_bytes=b,
                              per_call=call_osu)["schedule " + stages]
                 for (meth, stages, b), m in osu_med.items() if b > EAGER_LIMIT]
    step = max(0.0, statistics.median(residuals)) if residuals else 0.0
    with open(out / "simulate_fit.txt", "w") as f:
        f.write("# task-graph simulator constants (us): alpha_p/alpha_r from schedule_fit at p = 2,\n"
                "# per_call_reducer and per_element fitted to reduction_bench medians, per_call_osu and beta\n"
                "# to osu_allreduce medians at or below eager_limit, rendezvous_step above it (p = 2)\n")
        f.write(f"alpha_p {a_p}\nalpha_r {a_r}\nper_element {per_element}\nbeta {beta}\nper_value {T_OP_US}\n"
                f"eager_limit {EAGER_LIMIT}\nrendezvous_step {step}\nper_call_reducer {call_reducer}\n"
                f"per_call_osu {call_osu}\n")
    print(f"alpha_p {a_p:.3f} us, alpha_r {a_r:.3f} us, per_element {1000 * per_element:.3f} ns, "
          f"beta {1000 * beta:.4f} ns/byte, per_value {1000 * T_OP_US} ns, rendezvous step {step:.3f} us "
          f"above {EAGER_LIMIT} bytes, per call {call_reducer:.3f} us (reducer), {call_osu:.3f} us (osu_allreduce)")

    with open(out / "simulate_validation.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["source", "what", "n", "measured_us", "p1_us", "simulated_us"])
        for (e, n), m in sorted(red_med.items()):
            s = simulate(cli, 2, n, c, [e], per_element=per_element, beta=beta, step=step, per_call=call_reducer)[e]
            w.writerow(["reduction_bench", e, n, m, red_p1[(e, n)], s])
        for (meth, stages, b), m in sorted(osu_med.items()):
            label = "schedule " + stages
            s = simulate(cli, 2, 2, c, [label], beta=beta, value_bytes=b, step=step, per_call=call_osu)[label]
            w.writerow(["osu_allreduce", f"{meth} ({stages})", b, m, osu_p1[(meth, stages, b)], s])

    with open(out / "simulate_scale.csv", "w") as f:
        for p in SCALE_P:
            for n in SCALE_N:
                args = [cli, "simulate", "--p", str(p), "--n", str(n), "--distribution", "even-lower", "--model", "size",
                        "--alpha-p", str(a_p), "--alpha-r", str(a_r), "--beta", str(beta), "--per-element",
                        str(per_element), "--per-value", str(T_OP_US), "--eager-limit", str(EAGER_LIMIT),
                        "--rendezvous-step", str(step), "--per-call", str(call_reducer), "--csv"]
                for e in EXCHANGES + ["truncated_fibonacci", "truncated_binary", "mary4", "mary8"]:
                    args += ["--exchange", e]
                f.write(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    print(f"wrote {out / 'simulate_validation.csv'} and {out / 'simulate_scale.csv'}")


if __name__ == "__main__":
    main()
