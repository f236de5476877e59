"""One limit's thread choice in the response metric's own unit and direction: what ``results.json`` stores.

The thread-count analysis works on costs (:mod:`throttlelab.analysis.runs.response_metric`):
for throughput that is seconds per request, and a collapsed throughput is a cost
ratio of thousands of percent.  :func:`limit_threads` turns a
:class:`~throttlelab.analysis.threads.thread_choice.ThreadChoice` into
:class:`LimitThreads`, whose every number is the metric's own (req/s,
tokens/s, seconds of latency) and every change the metric's change (throughput
-95%, not cost +1900%), with interval ends in order.  The notebook's sentences,
its tables (:mod:`~throttlelab.analysis.runs.metric_views`, the same conversion) and
``results.json`` all read these numbers.

Examples
--------
>>> from throttlelab.analysis.runs import resolve
>>> from throttlelab.analysis.threads.thread_choice import ThreadChoice
>>> from throttlelab.results import Estimate
>>> c = ThreadChoice(2.0, "2000m", "2", Estimate(0.01, 0.008, 0.0125, unit="seconds"), ("2",), 0.2,
...                  Estimate(1900.0, 1500.0, 2400.0, unit="pct", p_value=0.001), "2", None, 0.02)
>>> v = limit_threads(c, resolve("throughput_rps"))
>>> v.best.value, v.best.low, v.best.high, v.best.unit
(100.0, 80.0, 125.0, 'req/s')
>>> round(v.auto_vs_best.value, 1), round(v.auto_vs_best.low, 2), round(v.auto_vs_best.high, 2), v.auto
(-95.0, -96.0, -93.75, 5.0)
>>> v.core_seconds is None  # limit x cost is core-seconds only for a run's wall time
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from throttlelab.analysis.runs import (ResponseMetric, metric_change_ci, metric_change_pct, metric_ci,
                                                  metric_value)
from throttlelab.analysis.threads.thread_choice import ThreadChoice
from throttlelab.results import Estimate


@dataclass(frozen=True)
class LimitThreads:
    """Thread counts at one limit, in the response metric's own unit and direction (``metric`` of the document).

    Attributes
    ----------
    limit_cores, limit_label
        The limit (cores; ``null`` = unlimited) and its label.
    best_threads
        The explicit count with the best geometric mean of the metric (with one number per cell: the best
        measured value, not a finding).
    best
        Its geometric mean in the metric's unit (``unit``), with its interval (``null`` ends: exact, or run-to-run
        noise unmeasured; ``method`` says which).
    near_best_threads
        Explicit counts not shown worse than the best (family-wise per limit); with one number per cell, the
        counts no single-number verdict calls clearly worse.
    auto
        Geometric mean of the ``auto`` runs in the metric's unit (``null`` without auto runs).
    auto_vs_best
        The metric's change from the best explicit count to ``auto``, percent (throughput -20% is 20% less
        throughput), with its selection-adjusted interval and p-value, or why there are none.
    recommended_threads, recommended
        The count to run (``auto`` when it is not worse) and its geometric mean with its interval.
    core_seconds
        Limit x expected wall time of the recommended count (what a run reserves); ``null`` for other metrics
        and for unlimited.
    probability_best
        Explicit count -> probability that it is the best from the limit's measured noise (``null`` with one
        number per cell: no probability is claimed).
    worse_than_best_p_values
        Explicit count -> family-wise adjusted p-value of "worse than the best".
    noise_cv_pct, noise_df, noise_source
        This limit's run-to-run noise (percent), its degrees of freedom and where it came from (``unmeasured``
        with no replicated cell).
    """

    limit_cores: float | None
    limit_label: str
    best_threads: str | None
    best: Estimate | None
    near_best_threads: tuple[str, ...]
    auto: float | None
    auto_vs_best: Estimate | None
    recommended_threads: str | None
    recommended: Estimate | None
    core_seconds: float | None
    probability_best: dict[str, float] | None = None
    worse_than_best_p_values: dict[str, float] | None = None
    noise_cv_pct: float | None = None
    noise_df: float | None = None
    noise_source: str = ""


def value_estimate(e: Estimate | None, m: ResponseMetric) -> Estimate | None:
    """A cost's estimate as the metric's value (``1 / cost`` when higher is better), interval ends in order."""
    if e is None:
        return None
    ci = None if e.low is None or e.high is None else metric_ci(e.confidence_interval(), m)
    return Estimate(metric_value(e.value, m), None if ci is None else ci.low, None if ci is None else ci.high,
                    e.level, e.method, e.p_value, e.n_runs, m.unit, e.note, e.n_samples)


def change_estimate(e: Estimate | None, m: ResponseMetric) -> Estimate | None:
    """A cost change (%) as the metric's change (%), interval ends in order."""
    if e is None:
        return None
    ci = None if e.low is None or e.high is None else metric_change_ci(e.confidence_interval(), m)
    return Estimate(metric_change_pct(e.value, m), None if ci is None else ci.low, None if ci is None else ci.high,
                    e.level, e.method, e.p_value, e.n_runs, "pct", e.note, e.n_samples)


def limit_threads(c: ThreadChoice, m: ResponseMetric) -> LimitThreads:
    """:class:`LimitThreads` of one :class:`~throttlelab.analysis.threads.thread_choice.ThreadChoice` in metric ``m``."""
    core = c.core_seconds if m.name == "wall_seconds" and c.core_seconds is not None else None
    auto = None if c.auto_seconds is None or math.isnan(c.auto_seconds) else metric_value(c.auto_seconds, m)
    return LimitThreads(
        limit_cores=c.limit_cores, limit_label=c.limit_label, best_threads=c.best_threads,
        best=value_estimate(c.best_seconds, m), near_best_threads=c.near_best_threads, auto=auto,
        auto_vs_best=change_estimate(c.auto_vs_best, m), recommended_threads=c.recommended_threads,
        recommended=value_estimate(c.recommended_seconds, m), core_seconds=core,
        probability_best=c.probability_best, worse_than_best_p_values=c.worse_than_best_p_values,
        noise_cv_pct=c.noise_cv_pct, noise_df=c.noise_df, noise_source=c.noise_source,
    )


__all__ = ["LimitThreads", "limit_threads", "value_estimate", "change_estimate"]
