"""Read-only client of the Prometheus HTTP API (instant and range queries, the series API) and PromQL's literals.

Long range queries are split into pieces under the server's 11,000-points-per-series limit and joined by labels.
The connection (authentication, TLS, errors as one line) is :class:`~.prometheus_http.PrometheusHTTP`'s.  The
literals are written as a user writes them: durations (``14d``, ``1h30m``), times (unix or ISO), quoted strings.

Examples
--------
>>> api = PrometheusAPI(prometheus_url)  # e.g. "http://127.0.0.1:9090" (the tests serve one answer)
>>> api.query("up")
[{'metric': {'__name__': 'up', 'job': 'prometheus'}, 'value': [1700000000.0, '1']}]
"""

from __future__ import annotations

import math

import numpy as np

from throttlelab.errors import ThrottlelabError
from throttlelab.ingest.prometheus.prometheus_answers import PrometheusError, Series, matrix_points
from throttlelab.ingest.prometheus.prometheus_http import PrometheusHTTP

MAX_POINTS = 11_000  # the server refuses a range query with more points per series


class PrometheusAPI(PrometheusHTTP):
    """Connection to one Prometheus server and its queries (the parameters are :class:`PrometheusHTTP`'s)."""

    def query(self, promql: str, *, time: float | None = None) -> list[dict]:
        """Instant query -> list of ``{"metric": labels, "value": [t, "v"]}`` (vector results only)."""
        params = {"query": promql}
        if time is not None:
            params["time"] = f"{time:.3f}"
        data = self._get("/api/v1/query", params)
        if data.resultType != "vector":
            raise PrometheusError(f"{self.url}: expected an instant vector for {promql!r}, got {data.resultType}")
        return [{"metric": item.metric, "value": list(item.value) if item.value else None} for item in data.result]

    def query_values(self, promql: str, *, time: float | None = None, keys=("namespace", "pod", "container")) -> dict:
        """Instant query -> ``{(label values...): float}`` keyed by ``keys``."""
        out = {}
        for item in self.query(promql, time=time):
            m = item["metric"]
            out[tuple(m.get(k, "") for k in keys)] = float(item["value"][1])
        return out

    def query_range(self, promql: str, start: float, end: float, step: float, *, max_points: int = MAX_POINTS) -> list[Series]:
        """Range query split in pieces of at most ``max_points`` (at most :data:`MAX_POINTS`) steps; series are joined
        by labels."""
        if step <= 0 or end < start:
            raise PrometheusError(f"bad range query window: start={start}, end={end}, step={step}")
        pieces: dict[tuple, list[tuple[np.ndarray, np.ndarray]]] = {}
        labels_of: dict[tuple, dict] = {}
        span = step * (max(1, min(max_points, MAX_POINTS)) - 1)
        if start + span >= end:  # one request: nothing to join
            return [Series(labels, t, v) for labels, (t, v) in self._matrix(promql, start, end, step)]
        t0 = start
        while t0 <= end:
            t1 = min(end, t0 + span)
            for labels, points in self._matrix(promql, t0, t1, step):
                key = tuple(sorted(labels.items()))
                labels_of[key] = labels
                pieces.setdefault(key, []).append(points)
            t0 = t1 + step
        out = []
        for key, parts in pieces.items():
            times, values = parts[0] if len(parts) == 1 else (np.concatenate([p[0] for p in parts]),
                                                              np.concatenate([p[1] for p in parts]))
            out.append(Series(labels_of[key], times, values))
        return out

    def _matrix(self, promql: str, start: float, end: float, step: float):
        """One range request: ``(labels, (times, values))`` per series."""
        data = self._get("/api/v1/query_range", {"query": promql, "start": f"{start:.3f}", "end": f"{end:.3f}",
                                                 "step": f"{step:g}"})
        if data.resultType != "matrix":
            raise PrometheusError(f"{self.url}: expected a matrix for {promql!r}, got {data.resultType}")
        return zip([item.metric for item in data.result], matrix_points([item.values for item in data.result]))

    def series(self, match: str, start: float, end: float) -> list[dict[str, str]]:
        """The label sets of the series that ``match`` (a series selector) selects with samples in ``[start, end]``
        (``/api/v1/series``: read from the index, without the samples; the server keeps whole chunks, so a series
        that ended up to a chunk before ``start`` may be among them)."""
        return self._get("/api/v1/series", {"match[]": match, "start": f"{start:.3f}", "end": f"{end:.3f}"},
                         labels_only=True)

    def series_keys(self, match: str, start: float, end: float, keys: tuple[str, ...]) -> dict[tuple[str, ...], int]:
        """:meth:`series` counted by the values of ``keys`` (``""`` where a series lacks one), as ``query_values``
        keys an instant query's answer."""
        out: dict[tuple[str, ...], int] = {}
        for labels in self.series(match, start, end):
            k = tuple(labels.get(x, "") for x in keys)
            out[k] = out.get(k, 0) + 1
        return out

    def server_time(self) -> float:
        """The server's clock (unix s), from ``time()``."""
        res = self.query("vector(time())")
        return float(res[0]["value"][1]) if res else math.nan


def parse_duration(text: str) -> float:
    """A Prometheus duration (``14d``, ``90m``, ``1h30m``, ``3600`` seconds) -> seconds.

    >>> parse_duration("14d"), parse_duration("1h30m"), parse_duration("90")
    (1209600.0, 5400.0, 90.0)
    """
    import re

    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
    s = str(text).strip()
    try:
        return float(s)
    except ValueError:
        pass
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h|d|w|y)", s)
    if not parts or "".join(a + b for a, b in parts) != s:
        raise ThrottlelabError(f"{text!r}: not a duration (expected e.g. 14d, 6h, 90m, 1h30m)")
    return float(sum(float(a) * units[b] for a, b in parts))


def promql_string(v: str) -> str:
    """``v`` as a PromQL string literal (a label value in a matcher).

    >>> print(promql_string('say "hi"'))
    "say \\"hi\\""
    """
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_duration(seconds: float) -> str:
    """Seconds -> the shortest Prometheus duration (``1209600`` -> ``14d``).

    >>> format_duration(1209600), format_duration(120), format_duration(90)
    ('14d', '2m', '90s')
    """
    s = int(round(seconds))
    for unit, n in (("d", 86400), ("h", 3600), ("m", 60)):
        if s % n == 0 and s >= n:
            return f"{s // n}{unit}"
    return f"{s}s"


def parse_time(text: str | None) -> float | None:
    """Unix seconds or an ISO time (``2026-01-15T00:00:00Z``; naive is UTC) -> unix seconds; ``None``/"" -> None.

    >>> parse_time("2026-01-01T00:00:00Z"), parse_time("1767225600"), parse_time("")
    (1767225600.0, 1767225600.0, None)
    """
    import datetime as dt

    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    try:
        t = dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        raise ThrottlelabError(f"{text!r}: not a time (expected unix seconds or an ISO time like 2026-01-15T00:00:00Z)") from None
    return (t if t.tzinfo else t.replace(tzinfo=dt.timezone.utc)).timestamp()
