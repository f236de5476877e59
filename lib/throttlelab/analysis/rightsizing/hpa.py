"""HorizontalPodAutoscalers on CPU: the replicas a new request implies, so scaling never changes silently."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class HpaScaling:
    """An HPA that scales a workload on CPU utilisation, and the replicas before and after a new request.

    Attributes
    ----------
    name : str
        The HPA's name.
    metric : str
        ``Resource`` (utilisation of the sum of the pod's container requests) or ``ContainerResource``
        (utilisation of one container's request).
    target_utilisation : float
        The target as a share of the request (0.7 for 70%).
    min_replicas, max_replicas : int
        The HPA's bounds.
    replicas_now : int
        Replicas the HPA asks for today at the usage p95.
    replicas_new : int
        Replicas it will ask for with the new request at the same usage.
    sentence : str
        What changes, in plain words.
    replicas_observed : int or None
        Replicas running at the window's end (kube-state-metrics' ``status_current_replicas``; ``None``: not read).
    """

    name: str
    metric: str
    target_utilisation: float
    min_replicas: int
    max_replicas: int
    replicas_now: int
    replicas_new: int
    sentence: str
    replicas_observed: int | None = None

    def to_dict(self) -> dict:
        """The JSON field ``hpa``."""
        return asdict(self)


def implied_replicas(total_usage: float, request_per_pod: float, target: float, lo: int, hi: int) -> int:
    """``ceil(total usage / (target x request per pod))``, clamped to the HPA's min and max.

    Examples
    --------
    >>> implied_replicas(3.0, 0.5, 0.7, 1, 20)   # 3 cores of use, 500m per pod at 70%: 8.57 -> 9
    9
    >>> implied_replicas(3.0, 1.0, 0.7, 2, 4)    # clamped to the max
    4
    """
    if request_per_pod <= 0 or target <= 0:
        raise ValueError("request and target must be positive")
    return int(min(hi, max(lo, math.ceil(total_usage / (target * request_per_pod) - 1e-9))))


def hpa_scaling(name: str, metric: str, target: float, lo: int, hi: int, *, total_usage_p95: float,
                request_now: float, request_new: float) -> HpaScaling:
    """The replicas an HPA asks for at the usage p95 with today's and with the recommended request.

    For a ``Resource`` metric pass the pod's summed container requests and the workload's summed usage; for a
    ``ContainerResource`` metric the one container's request and usage.

    Examples
    --------
    >>> h = hpa_scaling("web", "Resource", 0.7, 2, 10, total_usage_p95=2.1, request_now=0.5, request_new=0.3)
    >>> (h.replicas_now, h.replicas_new)
    (6, 10)
    >>> h.sentence
    'HPA web scales on CPU at 70% of the request: the new request takes it from 6 to 10 replicas (max 10) at the usage p95.'
    """
    if metric not in ("Resource", "ContainerResource"):
        raise ValueError(f"HPA {name}: metric {metric!r}, expected Resource or ContainerResource")
    now = implied_replicas(total_usage_p95, request_now, target, lo, hi)
    new = implied_replicas(total_usage_p95, request_new, target, lo, hi)
    if new == now:
        change = f"the new request keeps it at {now} replicas"
    else:
        change = f"the new request takes it from {now} to {new} replicas"
        if new in (lo, hi):
            change += f" ({'max' if new == hi else 'min'} {new})"
    scope = "" if metric == "Resource" else " of one container"
    return HpaScaling(name, metric, target, lo, hi, now, new,
                      f"HPA {name} scales on CPU at {target:.0%} of the request{scope}: {change} at the usage p95.")
