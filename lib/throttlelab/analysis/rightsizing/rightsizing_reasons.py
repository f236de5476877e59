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
                   limit: tuple[float, float, float | None], predicted: float | None,
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
        reason = (f"No limit now; a limit of {format_cpu(rec_lim)} ({format_cpu_range(lim_lo, lim_hi)}) would aim at "
                  f"{_pct(predicted, target)} of periods throttled; usage p95 {format_cpu(usage_p95)}.")
    elif lim_lo > cur * 1.1 or (lim_lo > cur and ratio is not None and ratio > target):
        decision = "raise limit"
        reason = (f"Throttled in {ratio:.0%} of CFS periods at {format_cpu(cur)} ({throttled_s_per_h:,.0f} throttled s/h) "
                  f"although usage p95 is {format_cpu(usage_p95)}: raise the limit to {format_cpu(rec_lim)} "
                  f"({format_cpu_range(lim_lo, lim_hi)}) to bring the ratio to {_pct(predicted, target)} ({goal}).")
    elif lim_hi is not None and lim_hi < cur * 0.9:
        decision = "lower limit"
        reason = (f"Throttled in {ratio:.1%} of periods at {format_cpu(cur)} with demand p95 {format_cpu(demand_p95)}: "
                  f"{format_cpu(rec_lim)} ({format_cpu_range(lim_lo, lim_hi)}) keeps the ratio at {_pct(predicted, target)} "
                  f"({goal}).")
    else:
        decision = "keep"
        reason = (f"Throttled in {ratio:.1%} of periods at {format_cpu(cur)}; the smallest limit meeting the "
                  f"{target:.0%} target, {format_cpu(rec_lim)} ({format_cpu_range(lim_lo, lim_hi)}), is not "
                  f"clearly different: keep it.")
    if policy == "keep" and cur is not None:
        return LimitDecision("keep (policy)", reason, cur, lim_lo, lim_hi, predicted_at_current)
    return LimitDecision(decision, reason, rec_lim, lim_lo, lim_hi, predicted)


def _pct(x: float | None, target: float) -> str:
    return f"{x:.1%}" if x is not None else f"the {target:.0%} target"


def basis_note(k, *, target: float) -> str:
    """What the reason adds about how the limit was found (a
    :class:`~throttlelab.analysis.rightsizing.kernel_limits.KernelLimit`).

    >>> from types import SimpleNamespace as K
    >>> basis_note(K(how="tail", alpha=5.0, at_limit=0.5, ratio=0.2), target=0.05)
    ' Its throttling comes from the bursts of its normal work (the ratio falls as the 5.0th power of the limit, as it did on kernel ladders of such workloads).'
    """
    if k.how == "two limits":
        return (f" Read from the throttling measured at two of its limits: the ratio falls as the {k.alpha:.1f}th power "
                f"of the limit.")
    if k.how == "tail":
        kind = ("the bursts of its normal work" if k.alpha >= 3 else "rare spikes, each throttling several periods "
                "in a row")
        return (f" Its throttling comes from {kind} (the ratio falls as the {k.alpha:.1f}th power of the limit, as it "
                f"did on kernel ladders of such workloads).")
    if k.how == "censored":
        return (" Raised to observe its demand, which this limit hides: apply it, then run again after 6 h for a "
                "tight limit.")
    if k.how == "quiet":
        return (" Throttled in too few periods to read its bursts: 1.75 times its mean demand while running, at "
                "least 100m.")
    if k.how == "no limit":
        return (" Without a limit there are no CFS periods to read its bursts: twice its usage p95, at least 100m, a "
                "plausible range rather than an interval; with this limit in place, a second run tightens it.")
    return ""


def capping_note(*, censored: bool, current: float | None, model_limit: float, capped_limit: float,
                 node: float | None) -> str:
    """What the reason adds about censored demand and the node's size (empty when neither applies)."""
    note = ""
    if censored:
        note = (f" Its plausible range runs from just above the current {format_cpu(current)} to "
                + (f"the node's {node:g} cores" if node else "an open upper end") + ".")
    if node and model_limit > capped_limit:
        note += f" Capped at the node's {node:g} cores."
    elif not node and (censored or current is None):
        note += " The node's size is unknown: nothing caps the raise."
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
