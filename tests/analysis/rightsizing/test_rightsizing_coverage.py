"""Simulation of the recommended limit: coverage of its 90% interval, bias, and false alarms on well-sized containers.

Containers are generated with parameters drawn per container (scales, limits from 0.5x to 2x, burst spreads,
spikes, seeds other than those MODEL_ERROR was measured on); the truth is the generator's smallest limit with at
most 5% throttled periods. Measured here (50 containers, seed 2): coverage 92%, median recommended/true 0.97
(IQR 0.92-1.05), 2% of well-sized containers (limit at the truth) flagged raise or lower.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from throttlelab.analysis.rightsizing.rightsizing import Settings, rightsize
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


def _starved(n: int, seed: int, hours: float = 6):
    """Starved containers (limit 15-60% of mean demand) on nodes of 2, 4 or 8 cores, throttled seconds distorted.

    The distortion (x0.25 to x2.5, log-uniform, per container) stands for what the real node showed: the throttled
    seconds of one container varied 489-3,252 s/h between runs (wip-s3-node.md).
    """
    rng = np.random.default_rng(seed)
    base = next(k for k in scenario_specs() if k.pod == "starved-0")
    rows = []
    for i in range(n):
        node = float(rng.choice([2.0, 4.0, 8.0]))
        threads = float(rng.uniform(1.0, node))
        mean = threads * rng.uniform(0.3, 0.9)
        spec = dataclasses.replace(base, mean_cores=mean, threads=threads, limit=round(mean * rng.uniform(0.15, 0.6), 2),
                                   burst_cv=float(rng.uniform(0.3, 1.2)), seed=seed * 1000 + i)
        c = container_cpu(spec, start=START, hours=hours, node_cores=node)
        c = dataclasses.replace(c, throttled_seconds=c.throttled_seconds * float(np.exp(rng.uniform(np.log(0.25), np.log(2.5)))))
        r = rightsize(c, Settings(min_history_s=3600))
        truth = true_smallest_limit(spec, 0.05, start=START, hours=hours)
        true_p95 = float(np.quantile(container_cpu(spec, start=START, hours=hours).usage
                                     + container_cpu(spec, start=START, hours=hours).throttled_seconds, 0.95))
        rows.append((r, truth, true_p95, node))
    return rows


def test_censored_intervals_cover_the_true_demand_of_starved_containers():
    """Measured (40 containers, seed 5): all censored; limit interval covers 100%, request interval 100%; no
    recommendation above the node; median recommended/true limit printed (the point is an extrapolation)."""
    rows = _starved(40, seed=5)
    censored = np.mean([r.demand_censored for r, *_ in rows])
    lim_cov = np.mean([r.recommended_limit_low <= t <= r.recommended_limit_high for r, t, _, _ in rows])
    req_cov = np.mean([r.recommended_request_low <= p <= r.recommended_request_high for r, _, p, _ in rows])
    ratio = np.array([r.recommended_limit_cores / t for r, t, _, _ in rows])
    print(f"censored {censored:.2f}, limit coverage {lim_cov:.2f}, request coverage {req_cov:.2f}, "
          f"recommended/true median {np.median(ratio):.2f} (5-95%: {np.quantile(ratio, 0.05):.2f}-{np.quantile(ratio, 0.95):.2f})")
    assert censored >= 0.9
    assert all(r.recommended_limit_high == node and r.recommended_limit_cores <= node for r, _, _, node in rows)
    assert all(r.decision == "raise limit" and r.recommended_limit_low > r.current_limit_cores for r, *_ in rows)
    assert lim_cov >= 0.9 and req_cov >= 0.9
