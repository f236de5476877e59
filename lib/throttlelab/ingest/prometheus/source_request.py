"""A request for per-container CPU as a user writes it (a live Prometheus or a saved export), and the call that reads it.

:class:`SourceRequest` holds what to read: the source, the window (``since``
and ``end``, as a user writes them: ``14d``, unix or ISO time), the namespace
and pod selector, the step, the server's credentials and the extra gauges to
read beside the CPU series.  A bad duration or time is refused when the request
is made, before anything is read.  :func:`read_request` reads it
(:func:`~.prometheus_local.read_source`) and returns what it read with the
request that made it (:class:`SourceRead`): the arrays and tables an analysis
works on, with nothing left to fetch.

Examples
--------
>>> SourceRequest(openmetrics_path="export.om.gz", since="36h").window_s
129600.0
>>> SourceRequest(prometheus_url="http://127.0.0.1:9090", since="two weeks")
Traceback (most recent call last):
...
throttlelab.errors.ThrottlelabError: 'two weeks': not a duration (expected e.g. 14d, 6h, 90m, 1h30m)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from throttlelab.ingest.prometheus.container_cpu import Fetch
from throttlelab.ingest.prometheus.prometheus_api import parse_duration, parse_time


@dataclass(frozen=True)
class SourceRequest:
    """What to read (every field empty or ``None``: its default; see :func:`~.prometheus_local.read_source`).

    Attributes
    ----------
    prometheus_url, openmetrics_path
        A live Prometheus, else a saved OpenMetrics export (``.om`` or ``.om.gz``).
    read_directly
        Read an export without the temporary local Prometheus.
    since, end
        The window (default: 14 days on a server, the whole export) and its end (default: now, the export's last
        sample), as written: ``14d``, ``36h``; unix seconds or an ISO time.
    namespace, selector
        One namespace (default: all) and a pod label selector (``k=v[,k=v]``).
    step
        The usage series' resolution (default: the finest whole minute under 11,000 points).
    bearer_token_file, ca_file, insecure_skip_tls_verify, timeout
        The server's credentials, CA bundle, certificate check and seconds per HTTP request.
    gauges
        Extra gauges read over the window beside the CPU series: ``metric -> "last" | "max"``.
    """

    prometheus_url: str | None = None
    openmetrics_path: str | None = None
    read_directly: bool = False
    since: str | None = None
    end: str | None = None
    namespace: str | None = None
    selector: str | None = None
    step: str | None = None
    bearer_token_file: str | None = None
    ca_file: str | None = None
    insecure_skip_tls_verify: bool = False
    timeout: float = 60.0
    gauges: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _ = self.window_s, parse_time(self.end), self.step_s  # a bad one is refused now, in one line

    @property
    def window_s(self) -> float | None:
        """``since`` in seconds (``None``: the default)."""
        return parse_duration(self.since) if self.since else None

    @property
    def step_s(self) -> float | None:
        """``step`` in seconds (``None``: chosen from the window)."""
        return parse_duration(self.step) if self.step else None


@dataclass(frozen=True)
class SourceRead:
    """What a :class:`SourceRequest` read: the series (``fetched``), the URL or path read (``source``), how it was
    read (``how``: HTTP API, temporary Prometheus, read directly), and the request."""

    request: SourceRequest
    fetched: Fetch
    source: str
    how: str


def read_request(request: SourceRequest) -> SourceRead:
    """Read what ``request`` asks (a live Prometheus or a saved export), pooled by workload (``Fetch.workloads``)."""
    from throttlelab.ingest.prometheus.prometheus_local import read_source

    r = request
    fetched, source, how = read_source(
        prometheus_url=r.prometheus_url or None, openmetrics_path=r.openmetrics_path or None,
        use_prometheus=not r.read_directly, window_s=r.window_s, end=parse_time(r.end), namespace=r.namespace or None,
        selector=r.selector or None, step_s=r.step_s, bearer_token_file=r.bearer_token_file or None,
        ca_file=r.ca_file or None, insecure_skip_tls_verify=r.insecure_skip_tls_verify, timeout=r.timeout,
        gauges=dict(r.gauges) or None)
    return SourceRead(request, fetched, source, how)
