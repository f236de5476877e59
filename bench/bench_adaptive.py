"""Adaptive sweeps against the full grid on the simulated backend: runs spent and decisions right.

Goal: ``adaptive: runs X% of grid, correct A% (grid G%)`` with X <= 50 and
A >= G; the last line says whether it was met, and the script exits 1 when it
was not (``bench/run_all.py`` lists it among the missed goals).  Each seeded scenario is swept twice on the ``simulated``
backend through :func:`~throttlelab.experiment.sweeps.run_sweep` (run store on
a temporary folder): as the full grid with a fixed replicate count and with
``design: adaptive``; both are analysed by the same decision code
(:func:`~throttlelab.experiment.sweeps.adaptive.decide`) and checked against
the ground truth's acceptable answers.  Correct = every decision of the
scenario (knee, dead zone per limit, best thread count per limit, per
contention level) is acceptable.  The adaptive sweep stops on its own once
P(every decision right) reaches its confidence (or at its budget): per kind the
table shows the runs spent (mean, and min/median/max as % of the grid), the
share of sweeps that stopped ``confident`` and, of those, the share with every
decision right (``conf ok``, to hold the stated confidence).  Run one with
``python bench/run_all.py adaptive``.
"""

from __future__ import annotations

import math
import os
import random
import shutil
import sys
import tempfile
import time
from collections import defaultdict

KINDS = ("monotone", "knee", "dead_zone", "sweet_spot", "contention")
LIMITS = [0.5, 1, 1.5, 2, 3, "unlimited"]
THREADS = [1, 2, 4, 8]
REPLICATES = int(os.environ.get("BENCH_ADAPTIVE_REPLICATES", "3"))
PER_KIND = int(os.environ.get("BENCH_ADAPTIVE_PER_KIND", "40"))
BUDGET_PCT = float(os.environ.get("BENCH_ADAPTIVE_BUDGET_PCT", "0"))  # 0: the default budget (a share of the grid)
SEED_OFFSET = int(os.environ.get("BENCH_ADAPTIVE_SEED_OFFSET", "0"))  # tune on other seeds (e.g. 1000), report on 0
JOBS = int(os.environ.get("BENCH_ADAPTIVE_JOBS", "1"))  # scenarios in parallel processes


def scenario(kind: str, seed: int) -> dict:
    """A spec mapping (without name and data_root) for one seeded scenario of ``kind``."""
    rng = random.Random(f"{kind}:{seed}")
    sim = {
        "cpu_seconds": round(rng.uniform(2, 20), 2), "machine_cores": 4, "auto_threads": 4,
        "parallelism": round(rng.uniform(1.0, 3.5), 2), "knee_sharpness": round(rng.uniform(3, 12), 1),
        "thread_overhead_pct": round(rng.uniform(0, 3), 2), "oversubscription_pct": round(rng.uniform(0, 8), 1),
        "noise_cv": round(rng.uniform(0.03, 0.10), 3), "noise_growth": 0.25, "tail_df": 5,
        "outlier_rate": round(rng.uniform(0.01, 0.05), 3), "outlier_factor": [1.3, 2.5], "seed": seed,
        "contention_slowdown": 0.0,
    }
    contention = [0]
    if kind == "monotone":
        sim.update(parallelism=round(rng.uniform(4, 8), 2), knee_sharpness=round(rng.uniform(2, 4), 1))
    elif kind == "dead_zone":
        lo = rng.choice([1, 1.5, 2])
        sim["dead_zone"] = {"from": lo, "to": lo + rng.choice([0, 0.5]), "slowdown_pct": round(rng.uniform(20, 50))}
        sim["parallelism"] = round(rng.uniform(2.5, 4), 2)
    elif kind == "sweet_spot":  # GOMAXPROCS under a quota: more threads than the quota are throttled
        sim.update(parallelism=round(rng.uniform(2, 4), 2), oversubscription_pct=round(rng.uniform(15, 60), 1))
    elif kind == "contention":
        sim["contention_slowdown"] = round(rng.uniform(0.3, 1.0), 2)
        contention = [0, {"share": 0.5, "workers": 4}]
    return {"backend": "simulated", "simulated": sim, "limits": LIMITS, "threads": THREADS,
            "contention": contention, "replicates": REPLICATES, "order": "random", "seed": seed}


def budget_option(doc: dict, pct: float) -> dict:
    """The spec's ``adaptive: {budget: ...}`` for ``pct`` % of the scenario's grid runs (at least one per cell);
    ``{}`` (the default budget) for 0.

    >>> budget_option(scenario("knee", 0), 50), budget_option(scenario("knee", 0), 0)
    ({'adaptive': {'budget': 36}}, {})
    """
    if not pct:
        return {}
    cells = len(doc["limits"]) * len(doc["threads"]) * len(doc["contention"])
    return {"adaptive": {"budget": max(cells, round(cells * doc["replicates"] * pct / 100))}}


def ground_truth(doc: dict, design):
    """``(truth model, true time per cell, acceptable answers per decision)`` of a scenario mapping."""
    from throttlelab.experiment.simulation import true_seconds, truth_from_options
    from throttlelab.experiment.sweeps.adaptive import acceptable_answers

    truth_model = truth_from_options(doc["simulated"])
    true_times = {c: true_seconds(truth_model, c[1], c[2], c[0]) for c in design.layout.cells}
    return truth_model, true_times, acceptable_answers(true_times, design.layout, design.settings)


def in_memory(kind: str, seed: int, pct: float):
    """One scenario for the in-memory tuning aids (no run store): ``(spec, truth model, design, true times,
    acceptable answers)``; the spec is adaptive with ``pct`` % of the grid as its budget (0: the default)."""
    from throttlelab.experiment.sweeps import spec_from_mapping
    from throttlelab.experiment.sweeps.adaptive import AdaptiveDesign

    doc = scenario(kind, seed)
    spec = spec_from_mapping({**doc, "name": f"{kind}-{seed}", "data_root": "unused", "design": "adaptive",
                              **budget_option(doc, pct)})
    design = AdaptiveDesign(spec)
    truth_model, true_times, truth = ground_truth(doc, design)
    return spec, truth_model, design, true_times, truth


def evaluate(decisions, truth) -> tuple[bool, int, int]:
    """(all right, decisions right, decisions); no decisions at all counts as wrong."""
    if decisions is None:
        return False, 0, 1
    right = sum(d.answer in truth[(d.kind, d.contention, d.limit)] for d in decisions)
    return right == len(decisions), right, len(decisions)


def run_scenario(kind: str, seed: int, root: str) -> dict:
    """Sweep one scenario as the grid and adaptively; what each got right and how many runs it took."""
    from throttlelab.experiment.registry import get_backend
    from throttlelab.experiment.sweeps import run_sweep, spec_from_mapping
    from throttlelab.experiment.sweeps.adaptive import AdaptiveDesign, decide

    doc = scenario(kind, seed)
    grid = spec_from_mapping({**doc, "name": f"{kind}-{seed}-grid", "data_root": root})
    adap = spec_from_mapping({**doc, "name": f"{kind}-{seed}-adaptive", "design": "adaptive",
                              "data_root": root, **budget_option(doc, BUDGET_PCT)})
    design = AdaptiveDesign(grid.replace(design="adaptive"))
    _, true_times, truth = ground_truth(doc, design)
    try:
        g_runs = run_sweep(grid, get_backend(grid.backend), progress=False)
        g_design = AdaptiveDesign(grid.replace(design="adaptive"), g_runs)
        g_dec = decide(g_design.times, design.layout, grid.adaptive, seed=grid.seed)  # the same decision code
        a_runs = run_sweep(adap, get_backend(adap.backend), progress=False)
        a_status = AdaptiveDesign(adap, a_runs).status()
    finally:
        shutil.rmtree(grid.experiment_dir, ignore_errors=True)
        shutil.rmtree(adap.experiment_dir, ignore_errors=True)
    g_ok, g_right, n_dec = evaluate(g_dec, truth)
    a_ok, a_right, _ = evaluate(a_status.decisions, truth)
    return {"kind": kind, "scenarios": 1, "grid_runs": g_runs.height, "adaptive_runs": a_runs.height,
            "grid_ok": g_ok, "adaptive_ok": a_ok, "decisions": n_dec, "grid_right": g_right,
            "adaptive_right": a_right, "stopped_confident": a_status.confident,
            "confident_ok": a_status.confident and a_ok, "runs_pct": [100 * a_runs.height / g_runs.height],
            "calibration": [(d.confidence, d.answer in truth[(d.kind, d.contention, d.limit)])
                            for d in a_status.decisions or []],
            "joint": [(a_status.joint, a_ok)] if a_status.joint is not None else [],
            "paired": [(g_ok, a_ok)],
            "cells": len(true_times), "contenders": contenders(true_times, 2 * grid.adaptive.resolution_pct)}


def main() -> int:
    from throttlelab.experiment.sweeps import DEFAULT_BUDGET_SHARE, AdaptiveSettings

    root = tempfile.mkdtemp(prefix="bench-adaptive-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    t0 = time.perf_counter()
    per: dict = defaultdict(lambda: defaultdict(float))
    spread: dict = defaultdict(list)
    jobs = [(kind, SEED_OFFSET + i, root) for kind in KINDS for i in range(PER_KIND)]
    try:
        if JOBS > 1:
            from multiprocessing import Pool

            with Pool(JOBS) as pool:
                results = pool.starmap(run_scenario, jobs)
        else:
            results = [run_scenario(*j) for j in jobs]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    pairs: list = []
    joints: list = []
    paired: list = []
    for r in results:
        kind = r.pop("kind")
        p = per[kind]
        spread[kind] += r.pop("runs_pct")
        pairs += r.pop("calibration")
        joints += r.pop("joint")
        paired += r.pop("paired")
        for k, v in r.items():
            p[k] += v
    spread["all"] = [v for k in KINDS for v in spread[k]]
    seconds = time.perf_counter() - t0
    S = AdaptiveSettings()
    print(f"generator: {PER_KIND} seeded scenarios per kind ({', '.join(KINDS)}), seeds {SEED_OFFSET}.."
          f"{SEED_OFFSET + PER_KIND - 1}; limits {LIMITS}, threads {THREADS}, "
          f"machine 4 cores; grid: every cell x {REPLICATES} replicates; adaptive: defaults (stops when P(every decision "
          f"right) >= confidence {S.confidence:g} and pivotal cells have {S.min_replicates} runs; budget "
          f"{BUDGET_PCT if BUDGET_PCT else 100 * DEFAULT_BUDGET_SHARE:g}% of the grid, knee tolerance {S.knee_tolerance_pct:g}%, "
          f"dead-zone threshold {S.dead_zone_threshold_pct:g}%, resolution {S.resolution_pct:g}%); both analysed by "
          f"decide() with model '{S.model}'; noise: lognormal-t(5) "
          f"run-to-run sd 3-10% growing 25%/core, 1-5% outlying runs x1.3-2.5")
    print(f"{'kind':<11} {'scen':>4} {'grid runs':>9} {'adapt runs':>10} {'runs %':>6} {'min/med/max %':>13} "
          f"{'grid ok':>7} {'adapt ok':>8} {'grid dec':>8} {'adapt dec':>9} {'confident':>9} {'conf ok':>7}")
    tot: dict = defaultdict(float)
    for kind, p in per.items():
        for k, v in p.items():
            tot[k] += v
        _row(kind, p, spread[kind])
    _row("all", tot, spread["all"])
    print(f"{tot['scenarios']:.0f} scenarios x 2 sweeps in {seconds:.1f} s ({JOBS} process{'es' if JOBS > 1 else ''})")
    x = 100 * tot["adaptive_runs"] / tot["grid_runs"]
    a = 100 * tot["adaptive_ok"] / tot["scenarios"]
    g = 100 * tot["grid_ok"] / tot["scenarios"]
    c = tot["stopped_confident"]
    print(f"calibration: {tot['confident_ok']:.0f} of {c:.0f} sweeps that stopped confident had every decision right"
          + (f" ({100 * tot['confident_ok'] / c:.0f}%, stated {100 * S.confidence:g}%)" if c else ""))
    print(calibration_lines(pairs, joints))
    print(contender_line(tot["contenders"], tot["cells"], REPLICATES, 2 * S.resolution_pct))
    print(f"all decisions right: adaptive {tot['adaptive_ok']:.0f} of {tot['scenarios']:.0f} scenarios, "
          f"grid {tot['grid_ok']:.0f}; runs {tot['adaptive_runs']:.0f} against {tot['grid_runs']:.0f}")
    print(paired_line(paired))
    print(f"adaptive: runs {x:.0f}% of grid, correct {a:.0f}% (grid {g:.0f}%)")
    missed = goal_missed(x, a, g)
    print(f"goal (runs <= {GOAL_RUNS_PCT:g}% of the grid, correct >= the grid's): "
          + ("met" if not missed else "MISSED: " + "; ".join(missed)))
    return 1 if missed else 0


#: The goal: the adaptive design spends at most this share of the grid's runs (%) and is right as often as the grid.
GOAL_RUNS_PCT = 50.0


def goal_missed(runs_pct: float, adaptive_ok_pct: float, grid_ok_pct: float) -> list[str]:
    """What the adaptive design missed of its goal (empty: met).

    >>> goal_missed(78.2, 87.5, 87.5)
    ['runs 78% of the grid (goal <= 50%)']
    >>> print(goal_missed(50.0, 81.0, 87.5)[0])
    correct 81% against the grid's 88% (goal >= the grid's)
    >>> goal_missed(49.0, 90.0, 88.0)
    []
    """
    missed = []
    if runs_pct > GOAL_RUNS_PCT:
        missed.append(f"runs {runs_pct:.0f}% of the grid (goal <= {GOAL_RUNS_PCT:g}%)")
    if adaptive_ok_pct < grid_ok_pct:
        missed.append(f"correct {adaptive_ok_pct:.0f}% against the grid's {grid_ok_pct:.0f}% (goal >= the grid's)")
    return missed


def paired_line(paired: list[tuple[bool, bool]]) -> str:
    """Adaptive minus grid in the share of scenarios with every decision right, paired by scenario
    (:func:`paired_difference`).

    >>> print(paired_line([(True, True)] * 160 + [(True, False)] * 25 + [(False, True)] * 12 + [(False, False)] * 3))
    adaptive - grid, paired by scenario: -6.5 points (95% CI -12.4 to -0.5; exact McNemar p = 0.047; grid right only 25, adaptive right only 12)
    """
    d, lo, hi, p, b, c = paired_difference(paired)
    return (f"adaptive - grid, paired by scenario: {100 * d:+.1f} points (95% CI {100 * lo:+.1f} to "
            f"{100 * hi:+.1f}; exact McNemar p = {p:.2g}; grid right only {b}, adaptive right only {c})")


def paired_difference(paired: list[tuple[bool, bool]]) -> tuple[float, float, float, float, int, int]:
    """``(difference, 95% low, 95% high, p, b, c)`` for pairs ``(grid right, adaptive right)`` of one scenario
    each: the difference in shares right, its 95% interval (Agresti-Min adjusted Wald for paired proportions),
    and the exact McNemar p-value (two-sided binomial test of the ``c`` adaptive-only against the ``b``
    grid-only scenarios).
    """
    from scipy.stats import binomtest

    n = len(paired)
    b = sum(g and not a for g, a in paired)
    c = sum(a and not g for g, a in paired)
    # Agresti-Min: half a scenario added to each of the four cells, so no discordant pair is not a zero width
    m, pb, pc = n + 2, (b + 0.5) / (n + 2), (c + 0.5) / (n + 2)
    centre, se = pc - pb, math.sqrt((pb + pc - (pc - pb) ** 2) / m)
    p = binomtest(c, b + c, 0.5).pvalue if b + c else 1.0
    return (c - b) / n, centre - 1.96 * se, centre + 1.96 * se, p, b, c


def contenders(true_times: dict, within_pct: float) -> int:
    """Cells whose true time is within ``within_pct`` % of the fastest thread count at their limit
    (and contention level): the best, its acceptable ties and the answers only more runs tell apart from it.

    >>> contenders({(0.0, 1.0, "1"): 10.0, (0.0, 1.0, "2"): 11.5, (0.0, 1.0, "4"): 15.0, (0.0, None, "1"): 8.0}, 20)
    3
    """
    best = best_times(true_times)
    return sum(t <= best[(share, limit)] * (1 + within_pct / 100) for (share, limit, _), t in true_times.items())


def best_times(true_times: dict) -> dict:
    """The fastest true time at each (contention, limit), over its thread counts.

    >>> best_times({(0.0, 1.0, "1"): 10.0, (0.0, 1.0, "2"): 11.5, (0.0, None, "1"): 8.0})
    {(0.0, 1.0): 10.0, (0.0, None): 8.0}
    """
    best: dict = {}
    for (share, limit, _), t in true_times.items():
        best[(share, limit)] = min(t, best.get((share, limit), t))
    return best


def contender_line(contender_cells: float, cells: float, replicates: int, within_pct: float) -> str:
    """What the contenders alone would cost: one run for every other cell and the grid's replicates for each
    contender, as a share of the grid (an estimate of where the adaptive design can match the grid, not a bound).

    >>> print(contender_line(57, 100, 3, 20))
    contenders: 57% of the cells are within 20% of the best thread count at their limit; one run for every other cell and 3 for each of them is 71% of the grid's runs
    """
    share = contender_cells / cells
    need = (1 - share) / replicates + share
    return (f"contenders: {100 * share:.0f}% of the cells are within {within_pct:g}% of the best thread count at "
            f"their limit; one run for every other cell and {replicates} for each of them is {100 * need:.0f}% of "
            f"the grid's runs")


def calibration_lines(pairs: list[tuple[float, bool]], joints: list[tuple[float, bool]]) -> str:
    """The adaptive design's stated confidence against how often it was right: single decisions in bins of
    stated confidence, and the joint confidence at the stop against the share of sweeps with every decision right.

    >>> print(calibration_lines([(0.85, True), (0.97, True), (0.97, False)], [(0.8, True), (0.6, False)]))
    decisions (adaptive), stated -> right: 80-90% 85% -> 100% (n=1); 95-99% 97% -> 50% (n=2)
    joint confidence at the stop: stated 70% on average, every decision right in 50% of sweeps
    """
    bins = ((0.0, 0.8, "<80%"), (0.8, 0.9, "80-90%"), (0.9, 0.95, "90-95%"), (0.95, 0.99, "95-99%"), (0.99, 1.01, ">=99%"))
    parts = []
    for lo, hi, label in bins:
        inside = [(c, ok) for c, ok in pairs if lo <= c < hi]
        if inside:
            parts.append(f"{label} {100 * sum(c for c, _ in inside) / len(inside):.0f}% -> "
                         f"{100 * sum(ok for _, ok in inside) / len(inside):.0f}% (n={len(inside)})")
    joint = (f"joint confidence at the stop: stated {100 * sum(j for j, _ in joints) / len(joints):.0f}% on average, "
             f"every decision right in {100 * sum(ok for _, ok in joints) / len(joints):.0f}% of sweeps") if joints else ""
    return "decisions (adaptive), stated -> right: " + "; ".join(parts) + "\n" + joint


def _row(kind: str, p: dict, pcts: list[float]) -> None:
    """One table row; ``pcts`` are the scenarios' adaptive runs as % of their grid (min/median/max)."""
    import statistics

    n = p["scenarios"]
    c = p["stopped_confident"]
    spread = f"{min(pcts):.0f}/{statistics.median(pcts):.0f}/{max(pcts):.0f}"
    print(f"{kind:<11} {n:>4.0f} {p['grid_runs'] / n:>9.1f} {p['adaptive_runs'] / n:>10.1f} "
          f"{100 * p['adaptive_runs'] / p['grid_runs']:>5.0f}% {spread:>13} {100 * p['grid_ok'] / n:>6.0f}% "
          f"{100 * p['adaptive_ok'] / n:>7.0f}% {100 * p['grid_right'] / p['decisions']:>7.1f}% "
          f"{100 * p['adaptive_right'] / p['decisions']:>8.1f}% {100 * c / n:>8.0f}% "
          + (f"{100 * p['confident_ok'] / c:>6.0f}%" if c else f"{'-':>7}"))


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
    sys.exit(main())
