"""One right-sizing from what a request read, for every view: the request, what was read, and the recommendations.

``throttlelab recommend`` (table, JSON, CSV, HTML, patches), notebook 08 and its
``results.json`` all make a :class:`RightsizingRequest`, read it with
:func:`throttlelab.ingest.prometheus.read_request` (the fetch lives in the ingest
layer) and recommend from what it read with :func:`rightsize_read` (nothing is
read here: the series arrive as arrays and tables), with the same defaults, so
the same input gives the same numbers in each of them:

* a live Prometheus is read over the last 14 days unless ``since`` says otherwise;
* a saved export is read whole (from its first to its last sample) unless ``since``
  or ``end`` say otherwise, through a temporary local Prometheus when the Debian
  ``prometheus`` package is installed (the live server's path), else directly;
* the header states the window actually observed beside the one requested;
* each row carries its runtime's thread advice and its workload's HPA scaling
  (:mod:`~throttlelab.analysis.rightsizing.workload_advice`), from the gauges the
  request asks for beside the CPU series (:data:`~.workload_advice.GAUGES`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from throttlelab.analysis.rightsizing.recommendation import Rightsizing, Settings
from throttlelab.analysis.rightsizing.rightsizing_parallel import rightsize_all
from throttlelab.analysis.rightsizing.workload_advice import GAUGES, with_advice
from throttlelab.ingest.prometheus import Fetch, SourceRead, SourceRequest, parse_duration


@dataclass(frozen=True)
class RightsizingRequest(SourceRequest):
    """What a right-sizing is asked, as the user writes it: what to read (the fields of
    :class:`~throttlelab.ingest.prometheus.SourceRequest`: source, window, namespace, selector, step...) and how to
    size: ``throttle_target`` (the largest acceptable predicted throttled-period ratio), ``limit_policy`` (``target``,
    ``none`` or ``keep``) and ``min_history`` (fewer pod-hours are "too little data": ``24h``).  ``gauges`` are the
    right-sizing's own (:data:`~.workload_advice.GAUGES`).

    >>> RightsizingRequest(openmetrics_path="x.om", namespace="shop", min_history="12h").settings().min_history_s
    43200.0
    """

    throttle_target: float = 0.05
    limit_policy: str = "target"
    min_history: str = "24h"
    gauges: Mapping[str, str] = field(default_factory=lambda: dict(GAUGES))

    def __post_init__(self) -> None:
        _ = self.window_s, parse_duration(self.min_history)  # as the command checks them, first
        super().__post_init__()

    def settings(self) -> Settings:
        """The right-sizing's knobs (:class:`~.recommendation.Settings`) the request gives; the others' defaults."""
        return Settings(throttle_target=self.throttle_target, limit_policy=self.limit_policy,
                        min_history_s=parse_duration(self.min_history))


@dataclass(frozen=True)
class RightsizingRun:
    """What one right-sizing read and recommended.

    Attributes
    ----------
    fetched
        The series read (:class:`~throttlelab.ingest.prometheus.container_cpu.Fetch`).
    source, how
        The URL or file read, and how (HTTP API, temporary Prometheus, read directly).
    settings
        The right-sizing's knobs.
    recommendations
        One per workload container, in the order of ``fetched.workloads``.
    notes
        Lines said once about the input (how workloads were found, metrics that were missing).
    request
        The request that made it (source, window, namespace, selector, step, min-history...), as the user wrote it.
    """

    fetched: Fetch
    source: str
    how: str
    settings: Settings
    recommendations: list[Rightsizing]
    notes: tuple[str, ...] = field(default=())
    request: RightsizingRequest = field(default_factory=RightsizingRequest)

    def workload_of(self, r: Rightsizing):
        """The :class:`~throttlelab.ingest.prometheus.workload_cpu.WorkloadCPU` a recommendation was made from."""
        return {w.key: w for w in self.fetched.workloads}[(r.namespace, r.workload_kind, r.workload, r.container)]

    @property
    def requested_s(self) -> float:
        return self.fetched.end - self.fetched.start

    @property
    def observed_s(self) -> float:
        return self.fetched.observed_s

    def window_text(self) -> str:
        """``26.0 h observed at 120-s steps`` (``of 336.0 h requested`` when the data cover less than asked).

        >>> import numpy as np
        >>> from throttlelab.ingest.prometheus import ContainerCPU
        >>> t = 1000.0 + 60 * np.arange(1, 61)
        >>> c = ContainerCPU("ns", "p", "c", None, None, "none", 60.0, t, np.where(t > 2800, 0.1, np.nan),
        ...                  *[np.full(60, np.nan)] * 3)
        >>> RightsizingRun(Fetch([c], 1000.0, 4600.0, 60.0, 0), "x", "y", Settings(), []).window_text()
        '0.5 h observed (of 1.0 h requested) at 60-s steps'
        """
        obs, req = self.observed_s / 3600, self.requested_s / 3600
        asked = f" (of {req:,.1f} h requested)" if abs(req - obs) > self.fetched.step_s / 3600 else ""
        return f"{obs:,.1f} h observed{asked} at {self.fetched.step_s:g}-s steps"


def rightsize_read(read: SourceRead) -> RightsizingRun:
    """Recommend from what a :class:`RightsizingRequest` read (:func:`throttlelab.ingest.prometheus.read_request`):
    each workload container sized (:func:`~.rightsizing_parallel.rightsize_all`) with its thread and HPA advice."""
    request = read.request
    if not isinstance(request, RightsizingRequest):
        raise TypeError(f"rightsize_read: a read of a RightsizingRequest, not of a {type(request).__name__}")
    settings, fetched = request.settings(), read.fetched
    recs, notes = with_advice(rightsize_all(fetched.workloads, settings), fetched.workloads, fetched.gauges)
    return RightsizingRun(fetched, read.source, read.how, settings, recs, tuple([*fetched.notes, *notes]), request)
