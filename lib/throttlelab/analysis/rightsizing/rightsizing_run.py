"""One code path from a source (a live Prometheus or a saved export) to the right-sizing, for every view.

``throttlelab recommend`` (table, JSON, CSV, HTML, patches), notebook 08 and its
``results.json`` all call :func:`run_rightsizing` with the same defaults, so the
same input gives the same numbers in each of them:

* a live Prometheus is read over the last 14 days unless ``since`` says otherwise;
* a saved export is read whole (from its first to its last sample) unless ``since``
  or ``end`` say otherwise, through a temporary local Prometheus when the Debian
  ``prometheus`` package is installed (the live server's path), else directly;
* the header states the window actually observed beside the one requested;
* each row carries its runtime's thread advice and its workload's HPA scaling
  (:mod:`~throttlelab.analysis.rightsizing.workload_advice`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from throttlelab.analysis.rightsizing.recommendation import Rightsizing, Settings
from throttlelab.analysis.rightsizing.rightsizing_parallel import rightsize_all
from throttlelab.analysis.rightsizing.workload_advice import GAUGES, with_advice
from throttlelab.ingest.prometheus import Fetch


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
    """

    fetched: Fetch
    source: str
    how: str
    settings: Settings
    recommendations: list[Rightsizing]
    notes: tuple[str, ...] = field(default=())

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


def run_rightsizing(*, prometheus_url: str | None = None, openmetrics_path: str | None = None,
                    read_directly: bool = False, since: str | None = None, end: str | None = None,
                    namespace: str | None = None, selector: str | None = None, step: str | None = None,
                    settings: Settings = Settings(), bearer_token_file: str | None = None, ca_file: str | None = None,
                    insecure_skip_tls_verify: bool = False, timeout: float = 60.0) -> RightsizingRun:
    """Read the source and recommend (durations and times as the user writes them: ``14d``, ISO or unix time).

    ``since`` and ``end`` empty or ``None`` take the defaults in the module docstring; ``read_directly`` reads an
    export without the temporary Prometheus.
    """
    from throttlelab.ingest.prometheus import parse_duration, parse_time
    from throttlelab.ingest.prometheus import read_source

    fetched, source, how = read_source(
        prometheus_url=prometheus_url or None, openmetrics_path=openmetrics_path or None,
        use_prometheus=not read_directly, window_s=parse_duration(since) if since else None, end=parse_time(end),
        namespace=namespace or None, selector=selector or None, step_s=parse_duration(step) if step else None,
        bearer_token_file=bearer_token_file or None, ca_file=ca_file or None,
        insecure_skip_tls_verify=insecure_skip_tls_verify, timeout=timeout, gauges=GAUGES)
    recs, notes = with_advice(rightsize_all(fetched.workloads, settings), fetched.workloads, fetched.gauges)
    return RightsizingRun(fetched, source, how, settings, recs, tuple([*fetched.notes, *notes]))
