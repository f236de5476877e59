"""The answer of the capacity report (notebook 07): how many units fit under the CPU threshold, and how sure.

Built from the fields of :mod:`throttlelab.analysis.capacity.capacity`'s costs, projections and comparison.
"""

from __future__ import annotations

from typing import Any

from throttlelab import units
from throttlelab.report.answers.answer_text import Answer, how_sure


def capacity_answer(costs: list[Any], projections: list[Any], comparison: Any = None, *,
                    unit: str = "stream") -> Answer:
    """The last variant's capacity under the threshold, against the first's; one headline per projection.

    Parameters
    ----------
    costs, projections
        :class:`~throttlelab.analysis.capacity.capacity.UnitCost` and :class:`~throttlelab.analysis.capacity.capacity.CapacityProjection`
        per variant (before first, after last).
    comparison
        :class:`~throttlelab.analysis.capacity.capacity.VariantComparison` of the last against the first, or ``None``.
    unit
        What a unit of load is, singular (``stream``).
    """
    heads = [f"{p.variant}: {units.count(round(p.units), unit)} ≈ {units.pct(p.cpu_pct_of_limit)} of "
             f"{units.cores(p.limit_cores)} (range {units.percent(p.cpu_cores.low / p.limit_cores)}-"
             f"{units.percent(p.cpu_cores.high / p.limit_cores)}); capacity at {units.percent(p.threshold)}: "
             f"{units.count(round(p.capacity_units.value), unit)}" for p in projections]
    if comparison is not None:
        c = comparison.cpu_change
        memory = (f", memory per {unit} {units.pct(comparison.memory_change_pct, sign=True)}"
                  if comparison.memory_change_pct is not None else "")
        heads.append(f"{comparison.after} vs {comparison.before}: CPU per {unit} "
                     f"{units.pct(comparison.cpu_change_pct, sign=True)}"
                     + (f" (range {units.pct(c.low, sign=True)} to {units.pct(c.high, sign=True)} under the assumed "
                        f"measurement noise; one profile per variant, no test)" if c is not None else "")
                     + f"{memory}, capacity {units.times(comparison.capacity_ratio)} as much")
    last = projections[-1]
    cap = last.capacity_units
    action = (f"Plan {units.count(round(cap.value), unit)} on {units.cores(last.limit_cores)} with {last.variant}: "
              f"CPU stays under {units.percent(last.threshold)}")
    if comparison is not None:
        action += (f", {units.times(comparison.capacity_ratio)} {comparison.before}'s capacity "
                   f"({units.pct(abs(comparison.cpu_change_pct))} {'less' if comparison.cpu_change_pct < 0 else 'more'} "
                   f"CPU per {unit})")
    action += "."
    sure = how_sure(["one measured load per variant"],
                    [(f"range {units.number(cap.low, 3)}-{units.number(cap.high, 3)} {unit}s from assumed noise, so "
                      "not yet clear", "not yet clear")], action=action)
    rests = (f"one measured load level per variant ("
             + ", ".join(f"{c.variant}: {units.count(c.units, unit)}" for c in costs)
             + f"); linear projection, {projections[0].assumption}")
    method = (f"**Projection:** CPU per {unit} from the one measured load of each variant, projected linearly through "
              f"the origin; the 95% range draws an unknown fixed overhead and a measurement noise "
              f"({projections[0].assumption}). **Capacity:** the load at which projected CPU reaches "
              f"{units.percent(last.threshold)} of {units.cores(last.limit_cores)}.")
    return Answer(action, sure, rests_on=rests, method=method, headlines=tuple(heads))
