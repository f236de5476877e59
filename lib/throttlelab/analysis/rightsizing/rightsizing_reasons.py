"""The right-sizing decision for one container and its one-sentence reason, in cores as Kubernetes users write them."""

from __future__ import annotations

from dataclasses import dataclass

from throttlelab.core.quantities import format_cpu, format_cpu_range


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
        reason = (f"Requests-only policy: request {format_cpu(rec_req)} (p95 of demand, {format_cpu_range(req_lo, req_hi)}), "
                  "no limit" + (f"; it is throttled in {ratio:.0%} of periods at its current {format_cpu(cur)} limit."
                                if ratio else ".") + " A LimitRange default in the namespace would put a limit back.")
        return LimitDecision("no limit (policy)", reason, None, None, None, None)
    if cur is None:
        decision = "set limit"
        reason = (f"No limit now; {format_cpu(rec_lim)} ({format_cpu_range(lim_lo, lim_hi)}) would keep the predicted throttled "
                  f"ratio at {predicted:.1%} ({goal}), assuming bursts like typical containers "
                  f"(unmeasured without a limit); usage p95 {format_cpu(usage_p95)}.")
    elif lim_lo > cur * 1.1 or (lim_lo > cur and ratio is not None and ratio > target):
        decision = "raise limit"
        reason = (f"Throttled in {ratio:.0%} of CFS periods at {format_cpu(cur)} ({throttled_s_per_h:,.0f} throttled s/h) "
                  f"although usage p95 is {format_cpu(usage_p95)}: raise the limit to {format_cpu(rec_lim)} "
                  f"({format_cpu_range(lim_lo, lim_hi)}) to bring the predicted ratio to {predicted:.1%} ({goal}).")
    elif lim_hi is not None and lim_hi < cur * 0.9:
        decision = "lower limit"
        reason = (f"Throttled in {ratio:.1%} of periods at {format_cpu(cur)} with demand p95 {format_cpu(demand_p95)}: "
                  f"{format_cpu(rec_lim)} ({format_cpu_range(lim_lo, lim_hi)}) keeps the predicted ratio at {predicted:.1%} "
                  f"({goal}).")
    else:
        decision = "keep"
        reason = (f"Throttled in {ratio:.1%} of periods at {format_cpu(cur)}; the smallest limit meeting the "
                  f"{target:.0%} target, {format_cpu(rec_lim)} ({format_cpu_range(lim_lo, lim_hi)}), is not "
                  f"clearly different: keep it.")
    if policy == "keep" and cur is not None:
        return LimitDecision("keep (policy)", reason, cur, lim_lo, lim_hi, predicted_at_current)
    return LimitDecision(decision, reason, rec_lim, lim_lo, lim_hi, predicted)


def capping_note(*, censored: bool, current: float | None, model_limit: float, capped_limit: float,
                 node: float | None) -> str:
    """What the reason adds about censored demand and the node's size (empty when neither applies)."""
    note = ""
    if censored:
        note = (f" Demand above the current {format_cpu(current)} limit was not observed (usage is censored there): "
                f"{format_cpu(model_limit)} is extrapolated from usage plus throttled seconds through the burst model, so "
                f"the interval runs from just above the current limit to "
                + (f"the node's {node:g} cores" if node else "an open upper end") + ".")
    if node and model_limit > capped_limit:
        note += f" Capped at the node's {node:g} cores."
    elif not node and (censored or current is None):
        note += " The node's size is unknown: the extrapolation is uncapped."
    return note


def patch_note(kind: str) -> str:
    """What the reason adds for workloads a strategic-merge patch of a pod template cannot change.

    >>> patch_note("Deployment"), patch_note("Job")
    ('', " A Job's pod template cannot change once it is created: no patch; change what creates it.")
    """
    if kind in ("Deployment", "StatefulSet", "DaemonSet", "CronJob"):
        return ""
    what = {"Pod": "A bare Pod has no pod template to patch",
            "Job": "A Job's pod template cannot change once it is created",
            "ReplicaSet": "A ReplicaSet without a Deployment is not patched"}.get(
        kind, f"Its workload ({kind}) is not known for certain from the pod's name")
    return f" {what}: no patch; change what creates it."
