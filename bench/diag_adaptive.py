"""Why the adaptive design gets a scenario wrong that the grid gets right (a tuning aid, not a benchmark).

The scenarios of bench_adaptive.py, swept in memory (no run store: the same
AdaptiveDesign and decide() code, the simulated backend's draw function, runs
keyed apart for grid and adaptive).  Prints the table by kind and, with
``--verbose``, for every scenario the adaptive gets wrong and the grid right:
each wrong decision, its answer and confidence, the grid's, the truth, the
pivotal cells with their runs (as observed / true time) and whether a pivotal
cell had no run (predicted by the model).  Tune on other seeds than the report's:

    DIAG_JOBS=2 python bench/diag_adaptive.py 16 1000 --verbose

``DIAG_OUT=file.json`` also writes every scenario's result; ``DIAG_BUDGET_PCT=50`` sets the
adaptive budget to that share of the grid's runs.
"""
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from bench_adaptive import KINDS, in_memory  # noqa: E402


def one(kind, seed):
    from throttlelab.experiment.simulation import draw_seconds
    from throttlelab.experiment.sweeps.adaptive import decide

    spec, truth_model, des, tt, truth = in_memory(kind, seed, float(os.environ.get("DIAG_BUDGET_PCT") or 0))
    lay = des.layout

    def row(plan, tag):
        wall, _ = draw_seconds(truth_model, plan.run_id + tag, plan.limit_cores, plan.threads, plan.contention.share)
        return {"run_id": plan.run_id, "warmup": plan.warmup, "contention": plan.contention.share,
                "cpu_limit_cores": plan.limit_cores, "threads": plan.threads, "status": "ok", "wall_seconds": wall}

    # grid
    grid = {c: [] for c in lay.cells}
    for c in lay.cells:
        for r in range(spec.replicates):
            grid[c].append(row(des._plan(c, r), "g")["wall_seconds"])
    g_dec = decide(grid, lay, spec.adaptive, seed=spec.seed)
    # adaptive
    whys = []
    while True:
        nxt = des.next_run()
        if nxt is None:
            break
        plan, why = nxt
        whys.append(why)
        des.record(row(plan, "a"))
    st = des.status()
    a_dec = st.decisions

    def ok(decs):
        if decs is None:
            return {}
        return {(d.kind, d.contention, d.limit): d for d in decs}

    gd, ad = ok(g_dec), ok(a_dec)
    g_right = {k: d.answer in truth[k] for k, d in gd.items()}
    a_right = {k: d.answer in truth[k] for k, d in ad.items()}
    bad = []
    for k, d in ad.items():
        if not a_right[k]:
            piv = [(c, len(des.times[c])) for c in d.pivotal]
            obs = {f"{c[0]:g}/{c[1]}/{c[2]}": [round(v / tt[c], 2) for v in des.times[c]] for c in d.pivotal}
            bad.append({"dec": f"{k[0]} c{k[1]:g} l{k[2]}", "ans": d.answer, "truth": sorted(truth[k]),
                        "conf": round(d.confidence, 3), "grid_ok": g_right.get(k, False),
                        "grid_ans": gd[k].answer if k in gd else None,
                        "grid_conf": round(gd[k].confidence, 3) if k in gd else None,
                        "piv": [(f"{c[0]:g}/{c[1]}/{c[2]}", n) for c, n in piv],
                        "zero_runs": any(n == 0 for _, n in piv), "obs/true": obs,
                        "true_rel": _true_rel(k, tt, lay)})
    n_runs = {f"{c[0]:g}/{c[1]}/{c[2]}": len(v) for c, v in des.times.items()}
    return {"kind": kind, "seed": seed, "runs": des.runs_used, "grid_runs": len(lay.cells) * spec.replicates,
            "grid_ok": bool(g_dec) and all(g_right.values()), "adaptive_ok": bool(a_dec) and all(a_right.values()),
            "n_dec": len(gd) or 1, "g_right": sum(g_right.values()), "a_right": sum(a_right.values()),
            "bad": bad, "n_runs": n_runs, "why_kinds": _whys(whys)}


def _true_rel(k, tt, lay):
    kind, c, lim = k
    if kind == "best_threads":
        v = {t: tt[(c, lim, t)] for t in lay.threads}
        b = min(v.values())
        return {t: round(100 * (x / b - 1), 1) for t, x in v.items()}
    env = {l: min(tt[(c, l, t)] for t in lay.threads) for l in lay.limits}
    b = min(env.values())
    return {str(l): round(100 * (x / b - 1), 1) for l, x in env.items()}


def _whys(whys):
    out = defaultdict(int)
    for w in whys:
        out[w.split(":")[0][:30]] += 1
    return dict(out)


def main():
    per = int(sys.argv[1])
    off = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    verbose = "--verbose" in sys.argv
    jobs = [(k, off + i) for k in KINDS for i in range(per)]
    from multiprocessing import Pool

    with Pool(int(os.environ.get("DIAG_JOBS", "2"))) as pool:
        res = pool.starmap(one, jobs)
    if os.environ.get("DIAG_OUT"):
        with open(os.environ["DIAG_OUT"], "w") as f:
            json.dump(res, f, default=str)
    tot = defaultdict(lambda: defaultdict(float))
    for r in res:
        for key in (r["kind"], "all"):
            t = tot[key]
            t["n"] += 1
            t["g"] += r["grid_ok"]
            t["a"] += r["adaptive_ok"]
            t["runs"] += r["runs"]
            t["gr"] += r["grid_runs"]
            t["gd"] += r["g_right"]
            t["ad"] += r["a_right"]
            t["nd"] += r["n_dec"]
            t["a_not_g"] += r["grid_ok"] and not r["adaptive_ok"]
            t["g_not_a"] += r["adaptive_ok"] and not r["grid_ok"]
    for k, t in tot.items():
        print(f"{k:<11} n={t['n']:.0f} runs {100 * t['runs'] / t['gr']:.0f}% grid {100 * t['g'] / t['n']:.0f}% "
              f"adapt {100 * t['a'] / t['n']:.0f}%  dec g {100 * t['gd'] / t['nd']:.1f} a {100 * t['ad'] / t['nd']:.1f}"
              f"  (grid ok & adapt not: {t['a_not_g']:.0f}, adapt ok & grid not: {t['g_not_a']:.0f})")
    if verbose:
        cnt = defaultdict(int)
        for r in res:
            if r["grid_ok"] and not r["adaptive_ok"]:
                print(f"--- {r['kind']} {r['seed']} runs {r['runs']} whys {r['why_kinds']}")
                for b in r["bad"]:
                    cnt[(b["dec"].split()[0], b["zero_runs"])] += 1
                    print("   ", b)
        print(dict(cnt))


if __name__ == "__main__":
    main()
