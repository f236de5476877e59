"""What one pass over a k6 ``--out json`` or ``--out csv`` file finds (:class:`Scan`), shared by both readers."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from throttlelab.ingest.skip_counter import SkipCounter

REQUEST_METRIC = "http_req_duration"
VUS_METRIC = "vus"


def _status(http: int | None, expected: str | None, error: str | None) -> str:
    if http and 100 <= http < 400 and expected != "false":
        return "ok"
    text = (error or "").lower()
    if not http and "refused" in text:
        return "refused"
    if not http and ("timeout" in text or "deadline" in text):
        return "timeout"
    return "error"


@dataclass
class Scan:
    """What one pass over a k6 ``--out json``/``--out csv`` file found.

    Attributes
    ----------
    requests
        One dict per ``http_req_duration`` point: ``end``, ``latency_seconds``,
        ``http_status``, ``status``, ``error``, ``endpoint``, ``vu``, ``iter``.
    stage_points
        One dict per point of a metric that ``stage_of`` names a stage: ``stage``,
        ``metric``, ``time``, ``value`` (as written, ms for k6 time trends), ``vu``,
        ``iter``, ``line``.
    peak_vus
        Largest value of the ``vus`` gauge (k6's active virtual users); None if absent.
    """

    source: str
    lines_total: int
    skips: SkipCounter
    requests: list[dict] = field(default_factory=list)
    stage_points: list[dict] = field(default_factory=list)
    peak_vus: float | None = None
    time_format: str | None = None
    format: str = "k6-json"

    def note_vus(self, value: float) -> None:
        self.peak_vus = value if self.peak_vus is None else max(self.peak_vus, value)

    def add_point(self, metric: str, stage: str | None, end: dt.datetime, value: float, vu, it,
                  tags: Mapping[str, Any], line: int) -> None:
        """File one point (JSON and CSV alike): a ``vus`` gauge value, a stage timing or a request.

        ``tags`` holds the point's tags (``status``, ``expected_response``,
        ``error``, ``name``, ``url``) as either format writes them.
        """
        if metric == VUS_METRIC:
            self.note_vus(value)
        elif stage is not None:
            self.stage_points.append({"stage": stage, "metric": metric, "time": end, "value": value, "vu": vu,
                                      "iter": it, "line": line})
        else:
            http = _int(tags.get("status"))
            err = tags.get("error") or None
            self.requests.append({"end": end, "latency_seconds": value / 1000.0, "http_status": http,
                                  "status": _status(http, tags.get("expected_response"), err), "error": err,
                                  "endpoint": tags.get("name") or tags.get("url") or None, "vu": vu, "iter": it})


def vu_iter(tags: dict, metadata: dict) -> tuple[int | None, int | None]:
    """``vu`` and ``iter`` from a point's tags or metadata (k6 writes them only when asked)."""
    get = (lambda k: metadata.get(k) if metadata.get(k) not in (None, "") else tags.get(k))
    return _int(get("vu")), _int(get("iter"))


def _int(v) -> int | None:
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def no_stage(metric: str) -> str | None:
    return None
