"""The right-sizing decision for one container and its one-sentence reason, in cores as Kubernetes users write them."""

from __future__ import annotations

from dataclasses import dataclass


def fmt_cores(c: float | None) -> str:
    """Cores the way Kubernetes users write them.

    Examples
    --------
    >>> fmt_cores(0.45), fmt_cores(1.25), fmt_cores(None)
    ('450m', '1.25 cores', 'no limit')
    """
    if c is None:
        return "no limit"
    return f"{c * 1000:.0f}m" if c < 1 else f"{c:.2f} cores"


def fmt_range(lo: float | None, hi: float | None) -> str:
    """An interval of cores; a missing high end is open above.

    Examples
    --------
    >>> fmt_range(0.25, 0.6), fmt_range(1.5, 2.0), fmt_range(0.51, None)
    ('250m-600m', '1.50-2.00 cores', 'at least 510m, open above')
    """
    if lo is not None and hi is None:
        return f"at least {fmt_cores(lo)}, open above"
    if lo is None or hi is None:
        return "no interval"
    if lo >= 1 and hi >= 1:
        return f"{lo:.2f}-{hi:.2f} cores"
    return f"{fmt_cores(lo)}-{fmt_cores(hi)}"


@dataclass(frozen=True)
class LimitDecision:
    """What :func:`limit_decision` recommends: the decision, its reason, the limit with its interval
    (``None``: no limit) and the throttled-period ratio predicted at that limit."""

    decision: str
    reason: str
    limit: float | None
    low: float | None
    high: float | None
    predicted: float | None


def limit_decision(policy: str, target: float, *, current: float | None, ratio: float | None, throttled_s_per_h: float,
                   usage_p95: float, demand_p95: float, request: tuple[float, float, float | None],
                   limit: tuple[float, float, float | None], predicted: float,
                   predicted_at_current: float | None) -> LimitDecision:
    """Decide between raising, lowering, keeping or setting a limit (or none, by policy).

    ``request`` and ``limit`` are (recommended, low, high); ``predicted`` is the throttled-period ratio at the
    recommended limit, ``predicted_at_current`` at the current one (used by the ``keep`` policy). A limit is
    raised when the interval's low end is clearly above the current one (or above it while throttled beyond
    the target), lowered when its high end is clearly below, and kept otherwise.
    """
    rec_req, req_lo, req_hi = request
    rec_lim, lim_lo, lim_hi = limit
    cur, goal = current, f"target {target:.0%}"
    if policy == "none":
        reason = (f"Requests-only policy: request {fmt_cores(rec_req)} (p95 of demand, {fmt_range(req_lo, req_hi)}), "
                  "no limit" + (f"; it is throttled in {ratio:.0%} of periods at its current {fmt_cores(cur)} limit."
                                if ratio else "."))
        return LimitDecision("no limit (policy)", reason, None, None, None, None)
    if cur is None:
        decision = "set limit"
        reason = (f"No limit now; {fmt_cores(rec_lim)} ({fmt_range(lim_lo, lim_hi)}) would keep the predicted throttled "
                  f"ratio at {predicted:.1%} ({goal}), assuming bursts like typical containers "
                  f"(unmeasured without a limit); usage p95 {fmt_cores(usage_p95)}.")
    elif lim_lo > cur * 1.1 or (lim_lo > cur and ratio is not None and ratio > target):
        decision = "raise limit"
        reason = (f"Throttled in {ratio:.0%} of CFS periods at {fmt_cores(cur)} ({throttled_s_per_h:,.0f} throttled s/h) "
                  f"although usage p95 is {fmt_cores(usage_p95)}: raise the limit to {fmt_cores(rec_lim)} "
                  f"({fmt_range(lim_lo, lim_hi)}) to bring the predicted ratio to {predicted:.1%} ({goal}).")
    elif lim_hi is not None and lim_hi < cur * 0.9:
        decision = "lower limit"
        reason = (f"Throttled in {ratio:.1%} of periods at {fmt_cores(cur)} with demand p95 {fmt_cores(demand_p95)}: "
                  f"{fmt_cores(rec_lim)} ({fmt_range(lim_lo, lim_hi)}) keeps the predicted ratio at {predicted:.1%} "
                  f"({goal}).")
    else:
        decision = "keep"
        reason = (f"Throttled in {ratio:.1%} of periods at {fmt_cores(cur)}; the smallest limit meeting the "
                  f"{target:.0%} target, {fmt_cores(rec_lim)} ({fmt_range(lim_lo, lim_hi)}), is not "
                  f"clearly different: keep it.")
    if policy == "keep" and cur is not None:
        return LimitDecision("keep (policy)", reason, cur, lim_lo, lim_hi, predicted_at_current)
    return LimitDecision(decision, reason, rec_lim, lim_lo, lim_hi, predicted)


def capping_note(*, censored: bool, current: float | None, model_limit: float, capped_limit: float,
                 node: float | None) -> str:
    """What the reason adds about censored demand and the node's size (empty when neither applies)."""
    note = ""
    if censored:
        note = (f" Demand above the current {fmt_cores(current)} limit was not observed (usage is censored there): "
                f"{fmt_cores(model_limit)} is extrapolated from usage plus throttled seconds through the burst model, so "
                f"the interval runs from just above the current limit to "
                + (f"the node's {node:g} cores" if node else "an open upper end") + ".")
    if node and model_limit > capped_limit:
        note += f" Capped at the node's {node:g} cores."
    elif not node and (censored or current is None):
        note += " The node's size is unknown: the extrapolation is uncapped."
    return note
