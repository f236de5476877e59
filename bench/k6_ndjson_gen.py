"""Generator of realistic k6 ``--out json`` NDJSON (the lines k6 v0.4x-1.x writes for HTTP tests).

Each iteration makes one HTTP request and writes what k6 writes for it: the
nine ``http_req_*``/``http_reqs`` points, ``data_sent``, ``data_received``,
``iteration_duration`` and ``iterations``; ``vus`` and ``vus_max`` once a
second; Metric declarations when a metric first appears.  Statuses are mostly
200, some 503 and some refused connections (status 0 with an error); times
carry a UTC offset and up to 9 fraction digits, as k6 (Go) writes them.
"""

from __future__ import annotations

import datetime as dt
import json
import random

SETTINGS = {"seed": 13, "vus": 50, "error_rate": 0.02, "refused_rate": 0.005, "utc_offset": "+09:00",
            "endpoints": 4, "requests_per_second": 800}

_METRIC_TYPES = {
    "http_reqs": ("counter", "default"), "http_req_duration": ("trend", "time"), "http_req_blocked": ("trend", "time"),
    "http_req_connecting": ("trend", "time"), "http_req_tls_handshaking": ("trend", "time"),
    "http_req_sending": ("trend", "time"), "http_req_waiting": ("trend", "time"),
    "http_req_receiving": ("trend", "time"), "http_req_failed": ("rate", "default"),
    "data_sent": ("counter", "data"), "data_received": ("counter", "data"),
    "iteration_duration": ("trend", "time"), "iterations": ("counter", "default"),
    "vus": ("gauge", "default"), "vus_max": ("gauge", "default"),
}


def _time(t: dt.datetime, ns: int, offset: str) -> str:
    frac = f"{ns:09d}".rstrip("0")
    return t.strftime("%Y-%m-%dT%H:%M:%S") + (f".{frac}" if frac else "") + offset


def generate(path, size_bytes: int, settings: dict | None = None) -> dict:
    """Write about ``size_bytes`` of NDJSON to ``path``; returns counts (requests, lines, bytes)."""
    s = {**SETTINGS, **(settings or {})}
    rnd = random.Random(s["seed"])
    off = s["utc_offset"]
    tz = dt.timezone(dt.timedelta(hours=int(off[1:3]), minutes=int(off[4:6])) * (1 if off[0] == "+" else -1))
    start = dt.datetime(2026, 2, 6, 14, 24, 0, tzinfo=tz)
    declared: set[str] = set()
    counts = {"requests": 0, "lines": 0, "bytes": 0}
    step_ns = 10**9 // s["requests_per_second"]
    t_ns = 0
    last_second = -1
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        buf: list[str] = []

        def point(metric: str, ns: int, value, tags: dict, meta: dict | None = None) -> None:
            if metric not in declared:
                declared.add(metric)
                typ, contains = _METRIC_TYPES[metric]
                buf.append(json.dumps({"metric": metric, "type": "Metric", "data": {
                    "name": metric, "type": typ, "contains": contains, "thresholds": [], "submetrics": None}},
                    separators=(",", ":")))
            t = start + dt.timedelta(microseconds=ns // 1000)
            data = {"time": _time(t.replace(microsecond=0), (t.microsecond * 1000) + ns % 1000, off),
                    "value": value, "tags": tags}
            if meta:
                data["metadata"] = meta
            buf.append(json.dumps({"metric": metric, "type": "Point", "data": data}, separators=(",", ":")))

        while counts["bytes"] < size_bytes:
            t_ns += step_ns + rnd.randrange(step_ns // 2)
            second = t_ns // 10**9
            if second != last_second:
                last_second = second
                point("vus", second * 10**9, s["vus"], {})
                point("vus_max", second * 10**9, s["vus"], {})
            vu, it = rnd.randrange(1, s["vus"] + 1), counts["requests"]
            ep = f"http://127.0.0.1:8080/api/v1/item{rnd.randrange(s['endpoints'])}"
            r = rnd.random()
            status = "0" if r < s["refused_rate"] else ("503" if r < s["error_rate"] else "200")
            tags = {"expected_response": "true" if status == "200" else "false", "group": "", "method": "GET",
                    "name": ep, "proto": "HTTP/1.1" if status != "0" else "", "scenario": "default",
                    "status": status, "tls_version": "", "url": ep}
            if status == "0":
                tags["error"] = "dial: i/o timeout" if rnd.random() < 0.5 else "dial tcp 127.0.0.1:8080: connect: connection refused"
                tags["error_code"] = "1050" if "timeout" in tags["error"] else "1212"
            meta = {"vu": str(vu), "iter": str(it)}
            dur = round(rnd.lognormvariate(3.5, 0.6), 6)
            for m, v in (("http_reqs", 1), ("http_req_duration", dur), ("http_req_blocked", round(rnd.random() * 0.01, 6)),
                         ("http_req_connecting", 0), ("http_req_tls_handshaking", 0),
                         ("http_req_sending", round(rnd.random() * 0.05, 6)), ("http_req_waiting", round(dur * 0.95, 6)),
                         ("http_req_receiving", round(dur * 0.05, 6)), ("http_req_failed", int(status != "200"))):
                point(m, t_ns, v, tags, meta)
            it_tags = {"group": "", "scenario": "default"}
            point("data_sent", t_ns, 112, it_tags, meta)
            point("data_received", t_ns, 2048, it_tags, meta)
            point("iteration_duration", t_ns, round(dur + 0.2, 6), it_tags, meta)
            point("iterations", t_ns, 1, it_tags, meta)
            counts["requests"] += 1
            if len(buf) > 20000:
                text = "\n".join(buf) + "\n"
                f.write(text)
                counts["bytes"] += len(text)
                counts["lines"] += len(buf)
                buf.clear()
        if buf:
            text = "\n".join(buf) + "\n"
            f.write(text)
            counts["bytes"] += len(text)
            counts["lines"] += len(buf)
    return counts
