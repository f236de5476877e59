"""A hand-made ContainerCPU (two days of one-minute steps) shared by the right-sizing view, chart and page tests."""

from __future__ import annotations

import numpy as np

from throttlelab.ingest.prometheus.container_cpu import ContainerCPU

STEP = 60.0
DAYS = 2


def container(pod: str = "web-0", *, limit: float | None = 1.0, mean: float = 0.7, seed: int = 0) -> ContainerCPU:
    """Usage around ``mean`` cores, capped at ``limit``; throttling where demand passed the limit."""
    rng = np.random.default_rng(seed)
    n = int(DAYS * 86400 / STEP)
    times = 1_767_225_600.0 + STEP * np.arange(1, n + 1)
    demand = rng.gamma(4.0, mean / 4.0, n)
    usage = np.minimum(demand, limit) if limit else demand
    throttled = demand - usage
    periods = np.full(n, 10.0)  # CFS periods per second at 100 ms
    throttled_periods = np.where(throttled > 0, np.minimum(10.0, 10.0 * throttled / np.maximum(demand, 1e-9) * 3), 0.0)
    usage[::97] = np.nan  # a few missed scrapes
    return ContainerCPU("shop", pod, "app", 0.5, limit, "kube-state-metrics" if limit else "none", STEP, times,
                        usage, throttled, periods, throttled_periods, throttled_ratio_p95_5m=0.2)
