"""k6 end-of-test summaries -> a tidy ``source, metric, type, stat, value, unit`` frame.

Two JSON shapes are read:

``--summary-export=FILE`` (legacy)
    ``{"metrics": {name: {"avg": .., "p(95)": .., "thresholds": {"p(95)<500": false}}}}``
``handleSummary()`` returning ``JSON.stringify(data)``
    ``{"metrics": {name: {"type": "trend", "contains": "time", "values": {"avg": ..},
    "thresholds": {"p(95)<500": {"ok": false}}}}, "root_group": {..checks..},
    "state": {"testRunDurationMs": ..}}``

Rows: one per metric statistic (``stat`` as k6 names it: ``avg``, ``p(95)``,
``count``, ``rate``, ``passes``...); one per threshold (``stat`` =
``threshold <expression>``, value 1.0 passed / 0.0 failed); one per check
(``metric`` = ``check <group path>::<name>``, ``stat`` = ``passes`` /
``fails``); the run's duration (``metric`` = ``state``, ``stat`` =
``testRunDurationMs``).  ``unit`` is ``ms`` for time metrics (``contains:
"time"``; in the legacy shape, which does not say, k6's built-in time metrics),
``bytes`` for data metrics, else null.  Counts are of values
(``unit="values"``); a non-numeric one is skipped with its reason.
"""

from __future__ import annotations

import polars as pl

from throttlelab.errors import InputError
from throttlelab.ingest.json_input import load_json
from throttlelab.ingest.result import IngestResult
from throttlelab.ingest.skip_counter import SkipCounter

SUMMARY_SCHEMA = {"source": pl.String, "metric": pl.String, "type": pl.String, "stat": pl.String,
                  "value": pl.Float64, "unit": pl.String}
#: k6's built-in time metrics (the legacy export does not say which metrics are times).
TIME_METRICS = ("http_req_duration", "http_req_blocked", "http_req_connecting", "http_req_tls_handshaking",
                "http_req_sending", "http_req_waiting", "http_req_receiving", "iteration_duration",
                "group_duration", "ws_session_duration", "ws_connecting", "grpc_req_duration")
_UNITS = {"time": "ms", "data": "bytes"}


def _unit(name: str, spec: dict, legacy: bool) -> str | None:
    if not legacy:
        return _UNITS.get(spec.get("contains"))
    base = name.split("{", 1)[0]
    if base in TIME_METRICS:
        return "ms"
    return "bytes" if base in ("data_sent", "data_received") else None


def _checks(group: dict, rows: list, source: str) -> int:
    """Rows for the checks of ``group`` and its subgroups; returns how many values were seen."""
    seen = 0
    checks = group.get("checks") or {}
    for chk in checks.values() if isinstance(checks, dict) else checks:
        if not isinstance(chk, dict):
            continue
        name = f"check {chk.get('path') or chk.get('name')}"
        for stat in ("passes", "fails"):
            if stat in chk:
                seen += 1
                rows.append((name, "check", stat, chk[stat], None))
    groups = group.get("groups") or {}
    for g in groups.values() if isinstance(groups, dict) else groups:
        if isinstance(g, dict):
            seen += _checks(g, rows, source)
    return seen


def read_k6_summary(path, *, strict: bool = False) -> IngestResult:
    """A k6 summary JSON (either shape) -> ``table="k6_summary"``."""
    source = str(path)
    doc = load_json(path)
    metrics = doc.get("metrics") if isinstance(doc, dict) else None
    if not isinstance(metrics, dict):
        raise InputError(source, None, "not a k6 summary", "no 'metrics' object (expected --summary-export or handleSummary JSON)")
    legacy = not any(isinstance(m, dict) and isinstance(m.get("values"), dict) for m in metrics.values())
    skips = SkipCounter(source)
    cand: list[tuple] = []  # (metric, type, stat, value, unit)
    total = 0
    for name, spec in metrics.items():
        if not isinstance(spec, dict):
            total += 1
            skips.add(None, "metric is not an object", f"{name}: {spec!r}")
            continue
        unit = _unit(name, spec, legacy)
        values = spec if legacy else spec.get("values")
        if not isinstance(values, dict):
            total += 1
            skips.add(None, "metric without values", f"{name}: {spec!r}")
            continue
        for stat, value in values.items():
            if stat == "thresholds" or isinstance(value, dict):
                continue
            cand.append((name, spec.get("type"), stat, value, unit))
        for expr, res in (spec.get("thresholds") or {}).items():
            ok = res.get("ok") if isinstance(res, dict) else res
            # legacy export: true means the threshold was *crossed* (failed); handleSummary: ok
            passed = (not ok) if legacy and isinstance(ok, bool) else ok
            cand.append((name, spec.get("type"), f"threshold {expr}", passed if isinstance(passed, bool) else res, None))
    if isinstance(doc.get("root_group"), dict):
        _checks(doc["root_group"], cand, source)
    state = doc.get("state")
    if isinstance(state, dict) and "testRunDurationMs" in state:
        cand.append(("state", None, "testRunDurationMs", state["testRunDurationMs"], "ms"))
    rows = []
    for metric, typ, stat, value, unit in cand:
        total += 1
        if isinstance(value, bool) and stat.startswith("threshold "):
            value = float(value)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            skips.add(None, "non-numeric statistic", f"{metric}.{stat}: {value!r}")
            continue
        rows.append({"source": source, "metric": metric, "type": typ, "stat": stat, "value": float(value), "unit": unit})
    report = skips.report()
    if strict and report.first is not None:
        raise InputError(source, None, report.first.reason, report.first.excerpt)
    frame = pl.DataFrame(rows, schema=SUMMARY_SCHEMA)
    prov = {source: {"format": "k6-summary", "shape": "summary-export" if legacy else "handleSummary"}}
    return IngestResult("k6_summary", frame, report, total, total - report.total, (source,), unit="values",
                        provenance=prov)
