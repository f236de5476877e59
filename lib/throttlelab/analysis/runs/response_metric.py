"""The response metric of an analysis: its direction transform in, and its words and units out.

Every analysis of runs works on a *cost*: a positive number where larger is
worse.  For a lower-is-better metric (wall time, CPU time, latency) the cost is
the value itself; for a higher-is-better one (throughput) it is ``1 / value``
(seconds per request).  On the log scale that is ``sign * log(value)`` with
``sign = -1`` for higher-is-better metrics, so fits, dead zones and thread-count
comparisons need no change inside: "slower" in them reads "worse" in the
metric.  :func:`metric_value` and :func:`metric_change_pct` turn costs and
cost changes back into the metric's own numbers for tables and sentences.

Examples
--------
>>> m = resolve("throughput_rps")
>>> round(metric_value(1 / 250.0, m), 6), m.unit
(250.0, 'req/s')
>>> round(metric_change_pct(25.0, m), 1)  # 25% more seconds per request = 20% less throughput
-20.0
>>> describe_change(-20.0, m)
'20.0% lower throughput'
"""

from __future__ import annotations

import math

from throttlelab.results import ConfidenceInterval
from throttlelab.tables import RESPONSE_METRICS, ResponseMetric, response_metric

__all__ = ["ResponseMetric", "RESPONSE_METRICS", "resolve", "metric_value", "metric_change_pct", "metric_ci",
           "metric_change_ci", "describe_change", "axis_title", "worse_word"]


def resolve(metric: str | ResponseMetric | None) -> ResponseMetric:
    """A :class:`ResponseMetric` from a name (``None``: ``wall_seconds``)."""
    if metric is None:
        return RESPONSE_METRICS["wall_seconds"]
    if isinstance(metric, ResponseMetric):
        return metric
    return response_metric(str(metric))


def metric_value(cost: float | None, metric: ResponseMetric) -> float | None:
    """The metric's value of a cost (``1 / cost`` for higher-is-better metrics)."""
    if cost is None or (isinstance(cost, float) and math.isnan(cost)):
        return None
    if not metric.higher_is_better:
        return float(cost)
    return math.inf if cost == 0 else 1.0 / float(cost)


def metric_change_pct(cost_change_pct: float | None, metric: ResponseMetric) -> float | None:
    """A cost change (%, positive = worse) as a change of the metric itself (%).

    Lower-is-better: the same number.  Higher-is-better: ``1 / (1 + c) - 1``,
    so +25% cost is -20% throughput.
    """
    if cost_change_pct is None:
        return None
    if not metric.higher_is_better:
        return float(cost_change_pct)
    return 100.0 * (1.0 / (1.0 + cost_change_pct / 100.0) - 1.0)


def metric_ci(ci: ConfidenceInterval | None, metric: ResponseMetric) -> ConfidenceInterval | None:
    """An interval of a cost as an interval of the metric (ends swapped when higher is better)."""
    if ci is None:
        return None
    a, b = metric_value(ci.low, metric), metric_value(ci.high, metric)
    return ConfidenceInterval(min(a, b), max(a, b))


def metric_change_ci(ci: ConfidenceInterval | None, metric: ResponseMetric) -> ConfidenceInterval | None:
    """An interval of a cost change (%) as an interval of the metric's change (%)."""
    if ci is None:
        return None
    a, b = metric_change_pct(ci.low, metric), metric_change_pct(ci.high, metric)
    return ConfidenceInterval(min(a, b), max(a, b))


def worse_word(metric: ResponseMetric) -> str:
    """``"slower"`` for times, ``"lower throughput"``, ``"higher p99 latency"``..."""
    if metric.name == "wall_seconds":
        return "slower"
    return f"lower {metric.label}" if metric.higher_is_better else f"higher {metric.label}"


def describe_change(change_pct: float, metric: ResponseMetric) -> str:
    """A change of the metric (%) in words, e.g. ``"20.0% lower throughput"``."""
    if metric.name == "wall_seconds":
        return f"{abs(change_pct):.1f}% {'slower' if change_pct > 0 else 'faster'}"
    return f"{abs(change_pct):.1f}% {'higher' if change_pct > 0 else 'lower'} {metric.label}"


def axis_title(metric: ResponseMetric) -> str:
    """Chart axis title, e.g. ``"throughput (req/s, higher is better)"``."""
    return f"{metric.label} ({metric.unit}, {metric.direction})"
