"""Simulation of the recommended limit: coverage of its 90% interval, bias, and false alarms on well-sized containers.

Containers are generated with parameters drawn per container (scales, limits from 0.5x to 2x, burst spreads,
spikes, seeds other than those MODEL_ERROR was measured on); the truth is the generator's smallest limit with at
most 5% throttled periods. Measured here (50 containers, seed 2): coverage 100%, median recommended/true 1.00
(IQR 0.96-1.14; before the gamma tail cross-check 0.97, IQR 0.91-1.05), 2% of well-sized containers (limit at the
truth) flagged raise or lower.  Never-throttled containers of varied burstiness are measured on their own below.

Throttled containers (below) are tested against truths their interval can miss: the truth is the smallest limit at
most the node's size that meets the target, or the node's size when none does, and the recommender may not know
the node's size or may be fed a wrong burst model.  Print the figures with
``pytest -s tests/analysis/rightsizing/test_rightsizing_coverage.py``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from throttlelab.analysis.rightsizing.recommendation import CENSORED_RATIO, HEAVY, Settings
from throttlelab.analysis.rightsizing.rightsizing import rightsize
from throttlelab.experiment.simulation.synthetic_containers import container_cpu, scenario_specs, true_smallest_limit

START = 1_767_225_600.0


def _simulate(n: int, seed: int, hours: float = 72):
    rng = np.random.default_rng(seed)
    kinds = [k for k in scenario_specs() if k.limit is not None]
    covered, ratios, false_alarms = [], [], []
    for i in range(n):
        k = kinds[i % len(kinds)]
        scale = float(np.exp(rng.normal(0, 0.5)))
        spec = dataclasses.replace(k, mean_cores=k.mean_cores * scale, limit=round(k.limit * scale * rng.uniform(0.5, 2), 2),
                                   burst_cv=k.burst_cv * rng.uniform(0.7, 1.3), seed=seed * 1000 + i, restart_at=None)
        truth = true_smallest_limit(spec, 0.05, start=START, hours=hours)
        r = rightsize(container_cpu(spec, start=START, hours=hours), Settings())
        high = np.inf if r.recommended_limit_high is None else r.recommended_limit_high  # None: open above (censored)
        covered.append(r.recommended_limit_low <= truth <= high)
        ratios.append(r.recommended_limit_cores / truth)
        well = rightsize(container_cpu(dataclasses.replace(spec, limit=round(truth, 2)), start=START, hours=hours))
        false_alarms.append(well.decision not in ("keep",))
    return np.mean(covered), np.array(ratios), np.mean(false_alarms)


def test_interval_covers_the_true_limit_and_well_sized_is_kept():
    coverage, ratios, false_alarm = _simulate(30, seed=3)
    print(f"coverage {coverage:.2f}, median ratio {np.median(ratios):.3f}, false alarms {false_alarm:.2f}")
    assert coverage >= 0.8  # nominal 0.90; 30 containers: binomial sd ~0.055
    assert 0.9 < np.median(ratios) < 1.1
    assert false_alarm <= 0.15


def _never_throttled(n: int, seed: int, hours: float = 48):
    """Containers (almost) never throttled at their limit; rows of (spec, result, truth).

    Mean demand 30m-1.5 cores (log-uniform), gamma bursts of cv 0.3-1.5, 1-8 threads, running share 0.3-0.9,
    daily cycle 0-50%, slow noise 5-30%, spikes in half; the limit 1-3x the one that keeps throttling at 0.1% (so
    throttled in under ~0.1% of periods; above the thread count, never).  Truth: the generator's smallest limit with
    at most 5% throttled periods.
    """
    rng = np.random.default_rng(seed)
    base = next(k for k in scenario_specs() if k.pod == "wellsized-0")
    rows = []
    for i in range(n):
        spec = dataclasses.replace(base, mean_cores=float(np.exp(rng.uniform(np.log(0.03), np.log(1.5)))),
                                   burst_cv=float(rng.uniform(0.3, 1.5)), threads=float(rng.choice([1, 2, 4, 8])),
                                   active_share=float(rng.uniform(0.3, 0.9)), diurnal=float(rng.uniform(0, 0.5)),
                                   noise=float(rng.uniform(0.05, 0.3)), spike_prob=float(rng.choice([0.0, 0.002])),
                                   seed=seed * 1000 + i)
        limit = round(true_smallest_limit(spec, 0.001, start=START, hours=hours) * float(rng.uniform(1, 3)) + 0.01, 2)
        spec = dataclasses.replace(spec, limit=limit, request=round(limit / 2, 2))
        truth = true_smallest_limit(spec, 0.05, start=START, hours=hours)
        rows.append((spec, rightsize(container_cpu(spec, start=START, hours=hours)), truth))
    return rows


def test_never_throttled_containers_get_a_limit_near_the_truth():
    """Their burstiness near the target is unseen: the throttling seen (if any) is far in the tail, and the limit is the
    larger of the log-normal's and a gamma burst factor's (nothing throttled: a conservative prior).  Measured (40
    containers, seed 11): within 0.9-1.6x the truth 78% (limit below the thread count 100% of 16, at or above it 62% of
    24), median 0.99, interval coverage 85%, 97% lowered; the log-normal alone: 28% (50% / 12%), median 0.78, coverage
    68%.  60 containers, seeds 11 and 12: 75% and 65% (log-normal alone 35% and 30%).  None above 1.6x; the misses are
    below 0.9x, almost all where the limit is at or above the container's thread count (it cannot be throttled
    there, so "no throttling seen" bounds the bursts too tightly)."""
    rows = _never_throttled(40, seed=11)
    ratio = np.array([r.recommended_limit_cores / t for _, r, t in rows])
    inside = (ratio >= 0.9) & (ratio <= 1.6)
    capped = np.array([s.limit >= s.threads for s, _, _ in rows])
    covered = np.mean([r.recommended_limit_low <= t <= r.recommended_limit_high for _, r, t in rows])
    lowered = np.mean([r.decision == "lower limit" for _, r, _ in rows])
    print(f"never throttled (40 containers, seed 11): within 0.9-1.6x {inside.mean():.2f} (limit below the thread "
          f"count {inside[~capped].mean():.2f} of {(~capped).sum()}, at or above it {inside[capped].mean():.2f} of "
          f"{capped.sum()}); median {np.median(ratio):.2f} (5-95%: {np.quantile(ratio, 0.05):.2f}-"
          f"{np.quantile(ratio, 0.95):.2f}); interval coverage {covered:.2f}; lowered {lowered:.2f}; "
          f"throttled at most {max(r.throttled_ratio for _, r, _ in rows):.2%}")
    assert max(r.throttled_ratio for _, r, _ in rows) < 0.002
    assert inside.mean() >= 0.6 and inside[~capped].mean() >= 0.75 and np.all(ratio <= 1.6)
    assert 0.9 <= np.median(ratio) <= 1.2
    assert covered >= 0.75
    assert lowered >= 0.85  # oversized (1-3x past the 0.1% limit): still lowered


def _throttled(n: int, seed: int, hours: float = 6, censored_ratio: float = CENSORED_RATIO, clearly_missing: float = HEAVY):
    """Throttled containers whose limit interval can miss the truth; rows of (result, truth, true p95, node, known).

    Nodes of 2, 4 or 8 cores; limits 15-120% of mean demand (censored and not); thread counts 0.5-1.5x the node (the
    truth is then often the node itself, and a limit may exceed the node); the node's size unknown to the recommender
    in about half of them; a wrong burst model: burst spreads 0.3-1.5, spikes in half, and the throttled seconds
    distorted x0.25 to x2.5 (log-uniform, per container).  Truth: the smallest limit at most the node's size with at
    most 5% throttled periods, or the node's size when none does; the request's truth is the p95 of the demand,
    at most the node.
    """
    rng = np.random.default_rng(seed)
    base = next(k for k in scenario_specs() if k.pod == "starved-0")
    rows = []
    for i in range(n):
        node = float(rng.choice([2.0, 4.0, 8.0]))
        threads = float(rng.uniform(0.5, 1.5) * node)
        mean = threads * rng.uniform(0.3, 0.9)
        spec = dataclasses.replace(base, mean_cores=mean, threads=threads, limit=round(mean * rng.uniform(0.15, 1.2), 2),
                                   burst_cv=float(rng.uniform(0.3, 1.5)), spike_prob=float(rng.choice([0.0, 0.004])),
                                   seed=seed * 1000 + i)
        known = bool(rng.random() < 0.5)
        distort = float(np.exp(rng.uniform(np.log(0.25), np.log(2.5))))
        c = container_cpu(spec, start=START, hours=hours, node_cores=node if known else None)
        c = dataclasses.replace(c, throttled_seconds=c.throttled_seconds * distort)
        r = rightsize(c, Settings(min_history_s=3600, censored_ratio=censored_ratio, clearly_missing=clearly_missing))
        truth = true_smallest_limit(spec, 0.05, start=START, hours=hours, node_cores=node)
        true = container_cpu(spec, start=START, hours=hours)
        true_p95 = min(float(np.quantile(true.usage + true.throttled_seconds, 0.95)), node)
        rows.append((r, truth, true_p95, node, known))
    return rows


def _covers(r, truth: float) -> bool:
    return r.recommended_limit_low <= truth <= (np.inf if r.recommended_limit_high is None else r.recommended_limit_high)


def _coverage(rows, keep=lambda *row: True) -> tuple[float, int]:
    sel = [row for row in rows if keep(*row)]
    return (float(np.mean([_covers(row[0], row[1]) for row in sel])) if sel else float("nan")), len(sel)


@pytest.fixture(scope="module")
def throttled():
    return _throttled(120, seed=7)


def test_censored_intervals_run_from_what_was_observed_to_the_node(throttled):
    """The censored intervals state what was observed, not an estimate: the limit's from just above the current limit
    (it missed the target), the request's from the p95 of usage (demand is at least the usage), to the node's size
    when known, open above when not; nothing recommended above a known node.  (Their coverage is by construction
    wherever the truth lies in that range; the next test measures where it can miss.)
    """
    censored = [row for row in throttled if row[0].demand_censored]
    assert len(censored) >= 0.6 * len(throttled)
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
    """Measured (120 containers, seed 7): the limit interval covers 99% (censored 100% of 102, not censored 94% of
    18; node known 100%, unknown 98%; where the truth is the node itself 98%); the request interval 88%; with the
    bootstrap interval alone (the censored and clearly-missing rules switched off) 42%, without the censored rule
    99% (the clearly-missing rule's interval, from just above the current limit to the throttled periods' estimate,
    covers them too); 23% of recommendations above the true node (all with the node's size unknown);
    recommended/true median 1.00 (5-95%: 0.58-2.68)."""
    cov, n = _coverage(throttled)
    parts = {
        "censored": _coverage(throttled, lambda r, *_: r.demand_censored),
        "not censored": _coverage(throttled, lambda r, *_: not r.demand_censored),
        "node known": _coverage(throttled, lambda r, t, p, node, known: known),
        "node unknown": _coverage(throttled, lambda r, t, p, node, known: not known),
        "truth = node": _coverage(throttled, lambda r, t, p, node, known: abs(t - node) < 1e-9),
    }
    req = float(np.mean([r.recommended_request_low <= p <= (np.inf if r.recommended_request_high is None
                                                             else r.recommended_request_high)
                         for r, _, p, _, _ in throttled]))
    above = [(r.recommended_limit_cores > node + 1e-9, known) for r, _, _, node, known in throttled]
    # the censored and clearly-missing rules switched off, then only the censored one
    bootstrap_only, _ = _coverage(_throttled(120, seed=7, censored_ratio=2.0, clearly_missing=np.inf))
    no_censored_rule, _ = _coverage(_throttled(120, seed=7, censored_ratio=2.0))
    ratio = np.array([r.recommended_limit_cores / t for r, t, *_ in throttled])
    print(f"limit interval covers {cov:.2f} of {n}; " + ", ".join(f"{k} {c:.2f} (n={m})" for k, (c, m) in parts.items())
          + f"; request interval {req:.2f}; bootstrap interval alone {bootstrap_only:.2f}; without the censored rule "
          f"{no_censored_rule:.2f}; above the true node "
          f"{np.mean([a for a, _ in above]):.2f}; recommended/true median {np.median(ratio):.2f} "
          f"(5-95%: {np.quantile(ratio, 0.05):.2f}-{np.quantile(ratio, 0.95):.2f})")
    assert cov >= 0.85 and parts["censored"][0] >= 0.9 and parts["node known"][0] >= 0.9
    assert req >= 0.8
    assert bootstrap_only <= cov - 0.3  # the rules for throttled containers are what cover them
    assert not any(a and known for a, known in above)  # never above a node whose size is known


def test_heavily_throttled_but_not_censored_intervals_cover(throttled):
    """Throttled in 30-50% of periods (below the censoring threshold): the interval starts just above the current limit
    (it clearly missed the target) and reaches the limit estimated from the throttled periods alone (the throttled
    seconds may be off: here x0.25-x2.5).  Measured (120 containers, seed 7): covers 94% of 18 (the bootstrap
    interval alone: 44%); the one miss is a current limit above an unknown node's size (the truth, the node, is below
    it).  The intervals are wide: median high/low 6.7 (8.7 where the node's size is unknown)."""
    sel = [row for row in throttled if not row[0].demand_censored]
    cov, n = _coverage(sel)
    width = [r.recommended_limit_high / r.recommended_limit_low for r, *_ in sel]
    unknown = [w for w, (*_, known) in zip(width, sel) if not known]
    print(f"not censored: covers {cov:.2f} of {n}; high/low median {np.median(width):.1f} (node unknown "
          f"{np.median(unknown):.1f}); throttled {min(r.throttled_ratio for r, *_ in sel):.0%}-"
          f"{max(r.throttled_ratio for r, *_ in sel):.0%}")
    assert n >= 10 and cov >= 0.85
    assert all(r.recommended_limit_low > r.current_limit_cores or r.recommended_limit_low == r.node_cores
               for r, *_ in sel)
