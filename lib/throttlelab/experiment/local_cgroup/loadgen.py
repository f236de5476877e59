"""Load generator: open loop (fixed arrival rate) and closed loop (virtual users).

Every request is recorded -- answered, refused, timed out or broken off by a
target that died -- as one row of the canonical ``requests`` table, and every
stage timing the target returned (``{"stages": {name: {"seconds", ...}}}`` in a
JSON body) as rows of ``stage_timings``.  Nothing is dropped silently: an
open-loop arrival that cannot be sent because ``max_in_flight`` requests are
already outstanding is recorded with status ``dropped`` (k6's
``dropped_iterations``).

Bounded: a run stops sending at ``duration_seconds`` or ``max_requests``
(whichever comes first) and waits at most ``timeout_seconds`` more for answers.
Loopback only: :func:`require_loopback` refuses any other target.

Open loop sends request *i* at ``t0 + i / rate`` (or at Poisson arrival times)
from its own thread, whatever the answers do, so a slow target does not slow the
arrivals (no coordinated omission); ``send_lag_seconds`` records how late the
generator itself was.  Closed loop runs ``vus`` threads that each send a request,
wait for its answer, think ``think_seconds`` and loop (k6's VUs).
Each request uses a new connection (``Connection: close``).
"""

from __future__ import annotations

import datetime as dt
import http.client
import ipaddress
import json
import socket
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import numpy as np
import polars as pl

from throttlelab import tables
from throttlelab.errors import SpecError

MAX_DURATION_SECONDS = 900.0
MAX_REQUESTS = 200_000


@dataclass(frozen=True)
class OpenLoop:
    """Fixed arrival rate: ``rate`` requests/s for ``duration_seconds`` (``poisson``: random arrivals)."""

    rate: float
    duration_seconds: float
    max_requests: int = 10_000
    poisson: bool = False
    seed: int = 0
    max_in_flight: int = 512

    @property
    def load(self) -> float:
        return float(self.rate)


@dataclass(frozen=True)
class ClosedLoop:
    """``vus`` virtual users looping request -> answer -> think for ``duration_seconds``."""

    vus: int
    duration_seconds: float
    max_requests: int = 10_000
    think_seconds: float = 0.0

    @property
    def load(self) -> float:
        return float(self.vus)


@dataclass(frozen=True)
class Labels:
    """What the rows of one run are labelled with (columns of ``requests``)."""

    experiment: str = "adhoc"
    run_id: str = "run-0"
    config: str | None = None
    endpoint: str | None = None
    contention: float | None = None
    neighbour_workers: int | None = None


@dataclass(frozen=True)
class LoadResult:
    """Rows of one load run: ``requests`` and ``stage_timings`` (canonical tables)."""

    requests: pl.DataFrame
    stage_timings: pl.DataFrame
    wall_seconds: float

    def status_counts(self) -> dict[str, int]:
        """Requests per status (ok, error, timeout, refused, dropped)."""
        return dict(self.requests.group_by("status").len().sort("status").iter_rows())


#: Interfaces this project creates (the one-node cluster's ``tl-node0`` and pod bridge ``tl-cni0``).
PROJECT_INTERFACE_PREFIX = "tl-"


def project_networks() -> list[ipaddress.IPv4Network]:
    """IPv4 networks of the interfaces the project created (``tl-*``): pods on this machine."""
    import json as _json
    import subprocess

    try:
        out = subprocess.run(["ip", "-j", "-4", "addr", "show"], capture_output=True, text=True, timeout=5).stdout
        links = _json.loads(out or "[]")
    except (OSError, ValueError, subprocess.SubprocessError):
        return []
    return [ipaddress.ip_network(f"{a['local']}/{a['prefixlen']}", strict=False)
            for link in links if link.get("ifname", "").startswith(PROJECT_INTERFACE_PREFIX)
            for a in link.get("addr_info", []) if a.get("family") == "inet"]


def require_loopback(url: str) -> tuple[str, int]:
    """Return (host, port) of an http URL on a loopback address, or on a network of an interface this
    project created (pods of the one-node cluster); raise SpecError otherwise."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise SpecError(f"target {url!r}: only http://<loopback>:<port> targets are allowed")
    try:
        infos = socket.getaddrinfo(parts.hostname, parts.port or 80, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise SpecError(f"target {url!r}: cannot resolve {parts.hostname} ({exc})") from None
    addrs = {info[4][0] for info in infos}
    ips = [ipaddress.ip_address(a.split("%")[0]) for a in addrs]
    if ips and not all(ip.is_loopback for ip in ips):
        nets = project_networks()
        ips = [ip for ip in ips if not ip.is_loopback and not any(ip in n for n in nets)]
        if not ips:
            return parts.hostname, parts.port or 80
    if not addrs or not all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addrs):
        raise SpecError(f"target {url!r}: refusing a non-loopback target ({', '.join(sorted(addrs))})")
    return parts.hostname, parts.port or 80


def send_one(host: str, port: int, path: str, timeout: float) -> dict:
    """Send one GET; return a row dict (latency, status, http_status, error, stages)."""
    row: dict = {"started_at": dt.datetime.now(dt.timezone.utc), "latency_seconds": None, "http_status": None,
                 "error": None, "stages": None}
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    t0 = time.perf_counter()
    try:
        conn.request("GET", path, headers={"Connection": "close"})
        resp = conn.getresponse()
        body = resp.read()
        row["latency_seconds"] = time.perf_counter() - t0
        row["http_status"] = resp.status
        row["status"] = "ok" if 200 <= resp.status < 300 else "error"
        try:
            doc = json.loads(body) if body else {}
            row["stages"] = doc.get("stages") if isinstance(doc, dict) else None
            if row["status"] != "ok":
                row["error"] = (doc.get("error") if isinstance(doc, dict) else None) or f"HTTP {resp.status}"
        except ValueError:
            if row["status"] == "ok":
                row["status"], row["error"] = "error", "response body is not JSON"
    except ConnectionRefusedError as exc:
        row["status"], row["error"] = "refused", str(exc) or "connection refused"
    except (socket.timeout, TimeoutError):
        row["status"], row["error"] = "timeout", f"no answer within {timeout:g} s"
    except (OSError, http.client.HTTPException) as exc:  # reset, remote closed: target died mid-request
        row["status"], row["error"] = "error", f"{type(exc).__name__}: {exc}".rstrip(": ")
    finally:
        conn.close()
    return row


def run_load(url: str, pattern: OpenLoop | ClosedLoop, *, labels: Labels = Labels(),
             timeout_seconds: float = 30.0) -> LoadResult:
    """Drive ``url`` (loopback) with ``pattern``; return every request as table rows.

    Parameters
    ----------
    url
        Full URL of the endpoint, e.g. ``http://127.0.0.1:8080/cpu?n=4000000``.
    pattern
        :class:`OpenLoop` or :class:`ClosedLoop`.
    labels
        Experiment, run, configuration, endpoint and contention labels of the rows.
    timeout_seconds
        Socket timeout of each request (connect, and each wait for data).
    """
    host, port = require_loopback(url)
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if not 0 < pattern.duration_seconds <= MAX_DURATION_SECONDS:
        raise SpecError(f"duration_seconds must be in (0, {MAX_DURATION_SECONDS:g}]")
    if not 0 < pattern.max_requests <= MAX_REQUESTS:
        raise SpecError(f"max_requests must be in (0, {MAX_REQUESTS}]")
    rows: list[dict] = []
    lock = threading.Lock()

    def record(row: dict) -> None:
        with lock:
            rows.append(row)

    t0 = time.perf_counter()
    if isinstance(pattern, OpenLoop):
        _open_loop(host, port, path, pattern, timeout_seconds, record)
    elif isinstance(pattern, ClosedLoop):
        _closed_loop(host, port, path, pattern, timeout_seconds, record)
    else:
        raise SpecError(f"unknown load pattern {pattern!r}")
    wall = time.perf_counter() - t0
    return _to_tables(rows, labels, pattern.load, wall)


def _open_loop(host, port, path, p: OpenLoop, timeout, record) -> None:
    if p.rate <= 0:
        raise SpecError("open loop rate must be > 0 requests/s")
    n = min(p.max_requests, int(np.floor(p.rate * p.duration_seconds + 1e-9)))
    if p.poisson:
        times = np.cumsum(np.random.default_rng(p.seed).exponential(1.0 / p.rate, n))
        times = times[times < p.duration_seconds]
    else:
        times = np.arange(n) / p.rate
    slots = threading.BoundedSemaphore(p.max_in_flight)
    threads = []
    start = time.perf_counter()

    def fire(i: int, lag: float) -> None:
        try:
            record({"request_id": i, "send_lag_seconds": lag, **send_one(host, port, path, timeout)})
        finally:
            slots.release()

    for i, at in enumerate(times):
        delay = start + at - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        lag = time.perf_counter() - start - at
        if not slots.acquire(blocking=False):
            record({"request_id": i, "send_lag_seconds": lag, "started_at": dt.datetime.now(dt.timezone.utc),
                    "status": "dropped", "error": f"not sent: {p.max_in_flight} requests already in flight"})
            continue
        th = threading.Thread(target=fire, args=(i, lag), daemon=True)
        th.start()
        threads.append(th)
    for th in threads:
        th.join(timeout=timeout + 5)


def _closed_loop(host, port, path, p: ClosedLoop, timeout, record) -> None:
    if p.vus < 1:
        raise SpecError("closed loop needs at least 1 virtual user")
    end = time.perf_counter() + p.duration_seconds
    counter = iter(range(p.max_requests))
    counter_lock = threading.Lock()

    def user(vu: int) -> None:
        while time.perf_counter() < end:
            with counter_lock:
                i = next(counter, None)
            if i is None:
                return
            record({"request_id": i, "vu": vu, **send_one(host, port, path, timeout)})
            if p.think_seconds > 0:
                time.sleep(p.think_seconds)

    threads = [threading.Thread(target=user, args=(v,), daemon=True) for v in range(p.vus)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=p.duration_seconds + timeout + 5)


def _to_tables(rows: list[dict], labels: Labels, load: float, wall: float) -> LoadResult:
    rows.sort(key=lambda r: r["request_id"])
    base = {"experiment": labels.experiment, "run_id": labels.run_id, "config": labels.config}
    req = pl.DataFrame(
        [{**base, "endpoint": labels.endpoint, "contention": labels.contention, "load": load,
          "neighbour_workers": labels.neighbour_workers,
          **{k: r.get(k) for k in ("request_id", "started_at", "latency_seconds", "status", "http_status",
                                   "error", "send_lag_seconds", "vu")}} for r in rows],
        schema_overrides={"started_at": tables.UTC_TIME, "contention": pl.Float64, "latency_seconds": pl.Float64,
                          "http_status": pl.Int64, "send_lag_seconds": pl.Float64, "vu": pl.Int64, "neighbour_workers": pl.Int64,
                          "config": pl.String, "endpoint": pl.String, "error": pl.String},
    ) if rows else tables.empty("requests")
    stage_rows = [
        {**base, "load": load, "request_id": r["request_id"], "stage": name,
         "seconds": t.get("seconds"), "wait_seconds": t.get("wait_seconds")}
        for r in rows if isinstance(r.get("stages"), dict)
        for name, t in r["stages"].items() if isinstance(t, dict)
    ]
    st = pl.DataFrame(stage_rows, schema_overrides={"seconds": pl.Float64, "wait_seconds": pl.Float64,
                                                    "config": pl.String}) if stage_rows else tables.empty("stage_timings")
    return LoadResult(tables.conform(req, "requests"), tables.conform(st, "stage_timings"), wall)
