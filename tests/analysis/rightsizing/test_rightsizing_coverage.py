"""Simulation of the recommended limit against the generator's truth: ratio, interval coverage, false alarms.

Containers come from the kernel-like generator (``synthetic_containers``) with parameters drawn per container
(scales, limits from 0.5x to 2x, burst spreads, thread counts, surges); the truth is the smallest limit whose
throttled-period ratio is at most 5% over the same work (``synthetic_truth``: the work simulated at other limits),
never the recommender's model.  Each test runs more than one seed and judges both directions: a limit far above
the truth fails as one far below does.  Print the figures with
``pytest -s tests/analysis/rightsizing/test_rightsizing_coverage.py``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from throttlelab.analysis.rightsizing.recommendation import CENSORED_RATIO, Settings
from throttlelab.analysis.rightsizing.rightsizing import rightsize
from throttlelab.experiment.simulation.synthetic_containers import container_cpu, scenario_specs
from throttlelab.experiment.simulation.synthetic_truth import true_smallest_limit

START = 1_767_225_600.0
SEEDS = (3, 4)


def _covers(r, truth: float) -> bool:
    """The interval holds the truth; its low end is rounded up to the recommender's 10m grain, so a truth up to 10m
    under it counts (a truth just under a node's size, where periods wanting the whole node stop being throttled,
    is the node's size)."""
    high = np.inf if r.recommended_limit_high is None else r.recommended_limit_high
    return r.recommended_limit_low - 0.01 <= truth <= high


def _simulate(n: int, seed: int, hours: float = 24):
    """Rows of (spec, result, truth, result with the limit set to the truth) for the limited scenarios, varied."""
    rng = np.random.default_rng(seed)
    kinds = [k for k in scenario_specs() if k.limit is not None]
    rows = []
    for i in range(n):
        k = kinds[i % len(kinds)]
        scale = float(np.exp(rng.normal(0, 0.5)))
        spec = dataclasses.replace(k, mean_cores=k.mean_cores * scale, limit=round(k.limit * scale * rng.uniform(0.5, 2), 2),
                                   burst_cv=k.burst_cv * rng.uniform(0.7, 1.3), seed=seed * 1000 + i, restart_at=None)
        truth = true_smallest_limit(spec, 0.05, start=START, hours=hours)
        r = rightsize(container_cpu(spec, start=START, hours=hours), Settings())
        well = rightsize(container_cpu(dataclasses.replace(spec, limit=round(truth, 2)), start=START, hours=hours))
        rows.append((spec, r, truth, well))
    return rows


@pytest.fixture(scope="module")
def varied():
    return [row for seed in SEEDS for row in _simulate(24, seed)]


def _kind(r) -> str:
    """The rule that gave the limit, a tail split by its kind (bursts of the body, or spikes and surges)."""
    if r.limit_basis.startswith("tail"):
        return "body" if r.tail_exponent >= 3 else "spikes"
    return r.limit_basis.split(";")[0]


def test_interval_covers_the_true_limit_and_well_sized_is_kept(varied):
    """Per rule, the limit against the truth, in both directions.  Censored rows are a first round (their interval
    runs from just above the current limit, open above), judged as the kernel ladders judged it (0.81-2.5x)."""
    by: dict[str, list] = {}
    for _, r, t, _ in varied:
        by.setdefault(_kind(r), []).append((r.recommended_limit_cores / t, _covers(r, t)))
    ratio = {k: np.array([x for x, _ in v]) for k, v in by.items()}
    cover = {k: float(np.mean([c for _, c in v])) for k, v in by.items()}
    coverage = np.mean([_covers(r, t) for _, r, t, _ in varied])
    false_alarm = np.mean([w.decision != "keep" for *_, w in varied])
    print(f"{len(varied)} containers, seeds {SEEDS}: coverage {coverage:.2f}; " + "; ".join(
        f"{k} (n={len(v)}): limit/truth median {np.median(v):.2f}, {v.min():.2f}-{v.max():.2f}, covered {cover[k]:.2f}"
        for k, v in ratio.items()) + f"; well-sized flagged {false_alarm:.2f}")
    body, tails = ratio["body"], np.concatenate([ratio["body"], ratio.get("spikes", [])])
    assert len(body) >= 8 and 0.95 <= np.median(body) <= 1.08 and np.all((body >= 0.85) & (body <= 1.2))
    assert np.all((tails >= 0.7) & (tails <= 1.35)) and cover["body"] >= 0.9
    assert 0.75 <= np.median(ratio["quiet"]) <= 1.1 and np.all((ratio["quiet"] >= 0.55) & (ratio["quiet"] <= 1.6))
    assert np.all((ratio["censored"] >= 0.65) & (ratio["censored"] <= 2.6)) and cover["censored"] >= 0.9
    assert coverage >= 0.75
    assert false_alarm <= 0.1


def _never_throttled(n: int, seed: int, hours: float = 24):
    """Containers (almost) never throttled at their limit; rows of (spec, result, truth).

    Mean demand 30m-1.5 cores (log-uniform), gamma bursts of cv 0.3-1.5, 1-8 threads, running share 0.3-0.9,
    daily cycle 0-50%, slow noise 5-30%, surges in half; the limit 1-3x the one that keeps throttling at 0.1%.
    """
    rng = np.random.default_rng(seed)
    base = next(k for k in scenario_specs() if k.pod == "wellsized-0")
    rows = []
    for i in range(n):
        spec = dataclasses.replace(base, mean_cores=float(np.exp(rng.uniform(np.log(0.03), np.log(1.5)))),
                                   burst_cv=float(rng.uniform(0.3, 1.5)), threads=float(rng.choice([1, 2, 4, 8])),
                                   active_share=float(rng.uniform(0.3, 0.9)), diurnal=float(rng.uniform(0, 0.5)),
                                   noise=float(rng.uniform(0.05, 0.3)), surge_prob=float(rng.choice([0.0, 0.002])),
                                   seed=seed * 1000 + i)
        limit = round(true_smallest_limit(spec, 0.001, start=START, hours=hours) * float(rng.uniform(1, 3)) + 0.01, 2)
        spec = dataclasses.replace(spec, limit=limit, request=round(limit / 2, 2))
        truth = true_smallest_limit(spec, 0.05, start=START, hours=hours)
        rows.append((spec, rightsize(container_cpu(spec, start=START, hours=hours)), truth))
    return rows


@pytest.fixture(scope="module")
def never():
    return [row for seed in (11, 12) for row in _never_throttled(20, seed)]


def test_never_throttled_containers_get_a_limit_near_the_truth(never):
    """Their bursts are unseen: the quiet rule, 1.75 times the mean demand while running (the ladders' bodies needed
    1.5-2x).  Calm bursts (cv at most 0.6) are judged here; above a container's thread count the truth is the thread
    count (it cannot be throttled there) and the rule, not knowing it, lands above."""
    calm = [(s, r, t) for s, r, t in never if s.burst_cv <= 0.6]
    ratio = np.array([r.recommended_limit_cores / t for _, r, t in calm])
    covered = np.mean([_covers(r, t) for _, r, t in calm])
    lowered = np.mean([r.decision == "lower limit" for _, r, _ in never])
    print(f"never throttled, calm ({len(calm)} of {len(never)} containers, seeds 11, 12): limit/truth median "
          f"{np.median(ratio):.2f} ({ratio.min():.2f}-{ratio.max():.2f}); interval coverage {covered:.2f}; lowered "
          f"{lowered:.2f} of all; throttled at most {max(r.throttled_ratio for _, r, _ in never):.3%}; rules "
          f"{sorted({_kind(r) for _, r, _ in never})}")
    assert len(calm) >= 8 and max(r.throttled_ratio for _, r, _ in never) < 0.002
    assert 0.85 <= np.median(ratio) <= 1.15 and np.all((ratio >= 0.6) & (ratio <= 1.7))
    assert lowered >= 0.8  # oversized (1-3x past the 0.1% limit): lowered


@pytest.mark.xfail(strict=True, reason="the quiet rule cannot see per-period bursts: 1.75x the mean demand while "
                   "running under-sizes bursty never-throttled containers (median 0.5x the truth for cv > 0.6)")
def test_never_throttled_bursty_containers_get_a_limit_near_the_truth(never):
    bursty = [(s, r, t) for s, r, t in never if s.burst_cv > 0.6]
    ratio = np.array([r.recommended_limit_cores / t for _, r, t in bursty])
    print(f"never throttled, bursty ({len(bursty)}): limit/truth median {np.median(ratio):.2f} "
          f"({ratio.min():.2f}-{ratio.max():.2f}); interval coverage {np.mean([_covers(r, t) for _, r, t in bursty]):.2f}")
    assert 0.8 <= np.median(ratio) <= 1.25


def _throttled(n: int, seed: int, hours: float = 6, censored_ratio: float = CENSORED_RATIO):
    """Throttled containers; rows of (result, truth, true p95, node, known).

    Nodes of 2, 4 or 8 cores (the container runs on it: at most the node's cores at once); limits 15-120% of mean
    demand (censored and not); thread counts 0.5-1.5x the node; the node's size unknown to the recommender in about
    half of them; burst spreads 0.3-1.5, surges in half.  Truth: the smallest limit at most the node's size with at
    most 5% throttled periods; the request's truth is the p95 of the demand, at most the node.
    """
    rng = np.random.default_rng(seed)
    base = next(k for k in scenario_specs() if k.pod == "starved-0")
    rows = []
    for i in range(n):
        node = float(rng.choice([2.0, 4.0, 8.0]))
        threads = float(rng.uniform(0.5, 1.5) * node)
        mean = min(threads, node) * rng.uniform(0.3, 0.9)
        spec = dataclasses.replace(base, mean_cores=mean, threads=threads, cores=node,
                                   limit=round(mean * rng.uniform(0.15, 1.2), 2), burst_cv=float(rng.uniform(0.3, 1.5)),
                                   surge_prob=float(rng.choice([0.0, 0.004])), seed=seed * 1000 + i)
        known = bool(rng.random() < 0.5)
        c = container_cpu(spec, start=START, hours=hours, node_cores=node if known else None)
        r = rightsize(c, Settings(min_history_s=3600, censored_ratio=censored_ratio))
        truth = true_smallest_limit(spec, 0.05, start=START, hours=hours, node_cores=node)
        free = container_cpu(dataclasses.replace(spec, limit=None), start=START, hours=hours)
        true_p95 = min(float(np.quantile(free.usage, 0.95)), node)
        rows.append((r, truth, true_p95, node, known))
    return rows


def _coverage(rows, keep=lambda *row: True) -> tuple[float, int]:
    sel = [row for row in rows if keep(*row)]
    return (float(np.mean([_covers(row[0], row[1]) for row in sel])) if sel else float("nan")), len(sel)


@pytest.fixture(scope="module")
def throttled():
    return [row for seed in (7, 8) for row in _throttled(40, seed)]


def test_censored_intervals_run_from_what_was_observed_to_the_node(throttled):
    """The censored intervals state what was observed, not an estimate: the limit's from just above the current limit
    (it missed the target), the request's from the p95 of usage (demand is at least the usage), to the node's size
    when known, open above when not; nothing recommended above a known node."""
    censored = [row for row in throttled if row[0].demand_censored]
    assert len(censored) >= 0.3 * len(throttled)
    for r, _, _, node, known in censored:
        cap = node if known else np.inf
        assert r.recommended_limit_low == min(round(r.current_limit_cores + 0.01, 4), cap)
        assert r.recommended_request_low == min(math.ceil(round(r.usage_p95_cores / 0.01, 6)) / 100, cap)
        assert r.decision == ("raise limit" if r.current_limit_cores < cap else "keep")
        if known:
            assert r.recommended_limit_high == node and r.recommended_limit_cores <= node
        else:
            assert r.recommended_limit_high is None and r.recommended_request_high is None


def test_limit_interval_against_truths_it_can_miss(throttled):
    """The first round of a censored container is judged as the kernel ladders judged it (0.81-2.5x the truth:
    between where 1/L^2 and 1/L tails reach); the others by their interval and their ratio to the truth."""
    cov, n = _coverage(throttled)
    parts = {"censored": _coverage(throttled, lambda r, *_: r.demand_censored),
             "not censored": _coverage(throttled, lambda r, *_: not r.demand_censored),
             "node known": _coverage(throttled, lambda r, t, p, node, known: known),
             "node unknown": _coverage(throttled, lambda r, t, p, node, known: not known)}
    req = float(np.mean([r.recommended_request_low <= p <= (np.inf if r.recommended_request_high is None
                                                             else r.recommended_request_high)
                         for r, _, p, _, _ in throttled]))
    ratio = np.array([r.recommended_limit_cores / t for r, t, *_ in throttled])
    cens = np.array([r.demand_censored for r, *_ in throttled])
    no_censored_rule, _ = _coverage([row for seed in (7, 8) for row in _throttled(40, seed, censored_ratio=2.0)])
    print(f"limit interval covers {cov:.2f} of {n}; " + ", ".join(f"{k} {c:.2f} (n={m})" for k, (c, m) in parts.items())
          + f"; request interval {req:.2f}; without the censored rule {no_censored_rule:.2f}; limit/truth median "
          f"{np.median(ratio):.2f} (censored {np.median(ratio[cens]):.2f}, 5-95% {np.quantile(ratio[cens], 0.05):.2f}-"
          f"{np.quantile(ratio[cens], 0.95):.2f}; not censored {np.median(ratio[~cens]):.2f}, 5-95% "
          f"{np.quantile(ratio[~cens], 0.05):.2f}-{np.quantile(ratio[~cens], 0.95):.2f})")
    assert cov >= 0.85 and parts["censored"][0] >= 0.9 and parts["not censored"][0] >= 0.7
    assert req >= 0.7
    assert no_censored_rule <= cov - 0.1  # the censored rule is what covers the censored ones
    assert np.mean((ratio[cens] >= 0.7) & (ratio[cens] <= 2.6)) >= 0.85
    assert 0.8 <= np.median(ratio[~cens]) <= 1.3 and np.mean((ratio[~cens] >= 0.7) & (ratio[~cens] <= 1.6)) >= 0.7
    assert not any(r.recommended_limit_cores > node + 1e-9 for r, _, _, node, known in throttled if known)
