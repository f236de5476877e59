"""How the kernel's throttled ratio falls as the limit rises: the tail measured on real ladders, and the limit it gives.

On kernel ladders of real workloads (``bench/bench_kernel_truth.py``) the
throttled-period ratio ``r`` falls as a power of the limit near the target,
``r(L) = r0 (L0 / L) ** alpha``, and the exponent tells two kinds of throttling
apart:

* **bursts of the body** (duty cycles, threads bursting together): throttling
  comes from the ordinary bursts, so it stops within a narrow band of limits;
  ``alpha`` is 4-8 (:data:`ALPHA_BODY`);
* **rare spikes** (an idle sidecar's runtime and its occasional 40-ms work):
  a spike of ``S`` CPU-seconds throttles about ``S / (L x period)`` periods in a
  row, so the ratio falls as ``1 / L``; ``alpha`` is 1-2 (:data:`ALPHA_SPIKES`).

Which kind a container has shows in two of its counters' ratios: ``rho``, its
mean demand while running over the limit (usage / (CFS periods per second x
period x limit)), and ``wait``, the share of a throttled period it waits
(throttled seconds per throttled period / period).  Bodies throttle near their
mean and briefly, at the end of a burst (``rho`` 0.4-0.9, ``wait`` 0.1-0.35);
spikes throttle far above the mean and for most of the period, the quota spent
early (``rho`` 0.05-0.6, ``wait`` 0.2-0.8).  On the ladders their ratio
``rho / wait`` never overlapped: 1.15-5.5 for bodies, 0.24-0.9 for spikes.
:func:`tail_exponent` joins the two smoothly around 1.  Lowering a limit (the
ratio under the target) the far tail is steeper than near it: a spike's last,
partial period is short, so its ratio falls faster than ``1 / L`` (1.9-2.3 on
the ladders), and a body's bursts rarely reach far past the mean (7-11); there
the exponents are 2 and 8, and a heavier tail would lower too far.  With two limits measured
(a patch applied, then a new window: the closed loop), :func:`two_point_exponent`
takes the exponent from the kernel itself.
"""

from __future__ import annotations

import math

#: The power of the limit by which the throttled ratio falls: bursts of the body, rare spikes (raising, lowering).
ALPHA_BODY, ALPHA_BODY_LOWERING = 5.0, 8.0
ALPHA_SPIKES, ALPHA_SPIKES_LOWERING = 1.25, 2.0
#: Where (``rho / wait``) the one kind gives way to the other, and how sharply (on a log scale).
SHAPE_MIDDLE = 1.0
SHAPE_WIDTH = 0.15
#: Exponents beyond these are not believed from two windows (counting noise on a short ladder).
ALPHA_RANGE = (0.8, 12.0)


def tail_exponent(rho: float, wait: float, *, lowering: bool = False) -> float:
    """The exponent of the throttled ratio's fall for a container whose mean demand while running is ``rho`` of its
    limit and which waits ``wait`` of a throttled period (see the module docstring).

    >>> round(tail_exponent(0.7, 0.3), 2), round(tail_exponent(0.2, 0.7), 2), round(tail_exponent(0.4, 0.4), 2)
    (4.99, 1.25, 3.12)
    >>> round(tail_exponent(0.05, 0.2, lowering=True), 2)  # a spiky tail, lowering: no heavier than 2
    2.0
    """
    spikes, body = (ALPHA_SPIKES_LOWERING, ALPHA_BODY_LOWERING) if lowering else (ALPHA_SPIKES, ALPHA_BODY)
    shape = max(rho, 1e-6) / max(wait, 1e-6)
    s = 1.0 / (1.0 + math.exp(-math.log(shape / SHAPE_MIDDLE) / SHAPE_WIDTH))
    return spikes + (body - spikes) * s


def limit_for_target(limit: float, ratio: float, alpha: float, target: float) -> float:
    """The limit where a ratio of ``ratio`` at ``limit``, falling as the ``alpha`` power of the limit, is ``target``.

    >>> round(limit_for_target(0.5, 0.2, 5.0, 0.05), 3)  # 4x the target: 4 ** (1/5) = 1.32 times the limit
    0.66
    """
    return limit * (ratio / target) ** (1.0 / alpha)


def two_point_exponent(limit_a: float, ratio_a: float, limit_b: float, ratio_b: float) -> float | None:
    """The exponent through two measured limits (``None`` when they cannot give one: equal limits, or a ratio that
    does not fall as the limit rises).

    >>> round(two_point_exponent(0.25, 0.18, 0.35, 0.008), 2)
    9.25
    >>> two_point_exponent(0.2, 0.1, 0.3, 0.2) is None
    True
    """
    if limit_a == limit_b or min(ratio_a, ratio_b) <= 0:
        return None
    (la, ra), (lb, rb) = sorted([(limit_a, ratio_a), (limit_b, ratio_b)])
    if rb >= ra:
        return None
    return min(max(math.log(ra / rb) / math.log(lb / la), ALPHA_RANGE[0]), ALPHA_RANGE[1])
