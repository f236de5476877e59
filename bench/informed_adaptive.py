"""An allocation told the truth: how often every decision is right when runs go where the true gaps say (a tuning aid).

Not a design anyone can run (it reads the simulated ground truth), and not a
bound (it does not adapt to what the runs show); it answers "would knowing
where the hard decisions are be enough to match the grid at this budget?".
For each scenario of ``bench_adaptive.py``: every cell gets one run, then each
further run goes to the cell where it most raises the normal-approximation
probability that no best thread count is wrong (for each limit, the true best
cell against every thread count more than the resolution slower, with the
simulator's true noise at that limit), until the budget (``PCT`` % of the
grid, default 50) is spent.  The runs are drawn from the simulated backend and
analysed by the same ``decide()`` as the grid's::

    PCT=50 python bench/informed_adaptive.py 40 1000
"""
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from bench_adaptive import KINDS, best_times, evaluate, in_memory  # noqa: E402


def informed_runs(rel: dict, noise: dict, budget: int, resolution: float) -> dict:
    """Runs per cell: one each, then greedily where the chance of a wrong best thread count falls most.

    ``rel``: each cell's true log time over the best at its (contention, limit); ``noise``: its run-to-run sd.

    >>> rel = {(0, 1, "1"): 0.0, (0, 1, "2"): 0.12, (0, 1, "4"): 0.5}
    >>> informed_runs(rel, {c: 0.1 for c in rel}, 7, math.log(1.1))
    {(0, 1, '1'): 3, (0, 1, '2'): 3, (0, 1, '4'): 1}
    """
    from scipy.stats import norm

    rows: dict = defaultdict(list)
    for c in rel:
        rows[c[:2]].append(c)
    pairs = [(min(cells, key=rel.get), c) for cells in rows.values() for c in cells if rel[c] > resolution]

    def log_right(n: dict) -> float:
        return sum(math.log(max(norm.cdf(rel[c] / math.sqrt(noise[b] ** 2 / n[b] + noise[c] ** 2 / n[c])), 1e-300))
                   for b, c in pairs)

    n = {c: 1 for c in rel}
    while sum(n.values()) < budget:
        now = log_right(n)
        gain = {}
        for c in n:
            n[c] += 1
            gain[c] = log_right(n) - now
            n[c] -= 1
        n[max(gain, key=gain.get)] += 1
    return n


def one(kind: str, seed: int) -> dict:
    """The grid and the informed allocation of one scenario: is every decision right?"""
    from throttlelab.experiment.simulation import draw_seconds, noise_sd
    from throttlelab.experiment.sweeps.adaptive import decide

    spec, truth_model, design, true, truth = in_memory(kind, seed, float(os.environ.get("PCT", "50")))
    lay = design.layout

    def runs(cell, k, tag):
        return [draw_seconds(truth_model, design._plan(cell, r).run_id + tag, cell[1], cell[2], cell[0])[0]
                for r in range(k)]

    def all_right(obs) -> bool:
        return evaluate(decide(obs, lay, spec.adaptive, seed=spec.seed), truth)[0]

    best = best_times(true)
    rel = {c: math.log(true[c] / best[c[:2]]) for c in lay.cells}
    noise = {c: noise_sd(truth_model, c[1]) for c in lay.cells}
    n = informed_runs(rel, noise, design.budget, math.log1p(spec.adaptive.resolution_pct / 100))
    return {"kind": kind, "grid": all_right({c: runs(c, spec.replicates, "g") for c in lay.cells}),
            "informed": all_right({c: runs(c, n[c], "a") for c in lay.cells})}


def main() -> None:
    per = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    offset = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    from multiprocessing import Pool

    with Pool(int(os.environ.get("DIAG_JOBS", "2"))) as pool:
        results = pool.starmap(one, [(k, offset + i) for k in KINDS for i in range(per)])
    tot: dict = defaultdict(lambda: [0, 0, 0])
    for r in results:
        for key in (r["kind"], "all"):
            tot[key][0] += 1
            tot[key][1] += r["grid"]
            tot[key][2] += r["informed"]
    print(f"seeds {offset}..{offset + per - 1} per kind; informed allocation at {os.environ.get('PCT', '50')}% "
          f"of the grid (every cell once, then greedy on the true gaps and noise)")
    for key, (n, g, a) in tot.items():
        print(f"{key:<11} n={n} every decision right: grid {100 * g / n:.0f}%, informed {100 * a / n:.0f}%")


if __name__ == "__main__":
    main()
