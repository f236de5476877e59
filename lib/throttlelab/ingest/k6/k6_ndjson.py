"""k6 ``--out json`` NDJSON read lazily: chunk by chunk, parsing only the lines of metrics that are used.

A 1 GB file is never held in memory.  Each chunk (about 16 MB, ending at a
newline) is checked as a whole with fast byte scans: every line starts as a
JSON object (``{"``), no blank lines, ``"metric":"name"`` written compactly
as k6 writes it, valid UTF-8.  Then only the lines of the metrics the reader
uses (``http_req_duration``, ``vus``, stage metrics) are found by their
``"metric":"..."`` bytes and parsed with :func:`json.loads`; the other lines
(``http_reqs``, ``http_req_waiting``, ... : most of the file) are k6 points
that yield no rows.  A chunk that fails any check is read line by line, every
line parsed, each problem counted under its reason, as for a small file.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Callable

from throttlelab.ingest.k6 import k6_scan as k6
from throttlelab.ingest.input_files import disk_size, iter_chunks, open_input
from throttlelab.ingest.lines import BINARY, MAX_LINE_BYTES, NON_UTF8, TOO_LONG, TRUNCATED, looks_binary
from throttlelab.ingest.progress import byte_progress
from throttlelab.ingest.skip_counter import SkipCounter

_METRIC = re.compile(rb'"metric":"([^"\\]*)"')
_UTC = dt.timezone.utc


class _LineAt:
    """Line numbers of byte offsets in a chunk, counted only when asked (offsets asked in order)."""

    __slots__ = ("chunk", "line", "pos")

    def __init__(self, chunk: bytes, line0: int):
        self.chunk, self.line, self.pos = chunk, line0 + 1, 0

    def __call__(self, start: int) -> int:
        self.line += self.chunk.count(b"\n", self.pos, start)
        self.pos = start
        return self.line


def _parse_line(scan: k6.Scan, where, raw: bytes, stage_of: Callable[[str], str | None]) -> None:
    """One NDJSON line: a request, a ``vus`` value or a stage point into ``scan``; problems counted.

    ``where`` is the line number, or a zero-argument callable giving it (counted
    only for a skip or a stage point: requests do not keep their line).
    """
    skips = scan.skips
    n = where if isinstance(where, int) else None

    def line() -> int:
        return n if n is not None else where()

    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        skips.add(line(), NON_UTF8, raw.decode("utf-8", "replace"))
        return
    except ValueError:
        skips.add(line(), "not JSON", raw.decode("utf-8", "replace"))
        return
    if not isinstance(obj, dict) or obj.get("type") not in ("Metric", "Point"):
        skips.add(line(), "not a k6 Metric or Point", raw.decode("utf-8", "replace"))
        return
    metric = obj.get("metric")
    stage = stage_of(metric) if isinstance(metric, str) and obj["type"] == "Point" else None
    if obj["type"] == "Metric" or (metric not in (k6.REQUEST_METRIC, k6.VUS_METRIC) and stage is None):
        return
    data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
    tags = data.get("tags") or {}
    try:
        end = dt.datetime.fromisoformat(str(data["time"]).replace("Z", "+00:00"))
        value = float(data["value"])
    except (KeyError, TypeError, ValueError):
        skips.add(line(), "bad k6 point (time/value)", raw.decode("utf-8", "replace"))
        return
    if end.tzinfo is None:
        skips.add(line(), "k6 point time without a UTC offset", raw.decode("utf-8", "replace"))
        return
    vu, it = k6.vu_iter(tags if isinstance(tags, dict) else {}, data.get("metadata") or {})
    scan.add_point(metric, stage, end.astimezone(_UTC), value, vu, it, tags if isinstance(tags, dict) else {},
                   line() if stage is not None else 0)


def _slow_chunk(scan: k6.Scan, line0: int, chunk: bytes, stage_of) -> None:
    """Every line of ``chunk`` parsed (a chunk that failed a fast check)."""
    for k, raw in enumerate(chunk.split(b"\n")[:-1] if chunk.endswith(b"\n") else chunk.split(b"\n"), start=line0 + 1):
        raw = raw[:-1] if raw.endswith(b"\r") else raw
        if not raw.strip():
            continue  # blank lines are structure, as in every line reader
        if len(raw) > MAX_LINE_BYTES:
            scan.skips.add(k, TOO_LONG, raw[:200].decode("utf-8", "replace"))
            continue
        _parse_line(scan, k, raw, stage_of)


def _fast_ok(chunk: bytes, n_nl: int) -> bool:
    if not chunk.startswith(b'{"') or chunk.count(b'\n{"') != n_nl - 1:
        return False  # a line that does not start as a JSON object, or a blank line
    if b'"metric": ' in chunk:
        return False  # not k6's compact writing: find metrics by parsing every line
    if not chunk.isascii():
        try:
            chunk.decode("utf-8")
        except UnicodeDecodeError:
            return False
    return True


def _fast_chunk(scan: k6.Scan, line0: int, chunk: bytes, stage_of, fixed: tuple[bytes, ...] | None) -> None:
    """Parse only the lines of used metrics in a chunk that passed :func:`_fast_ok`."""
    if fixed is not None:
        hits = []
        for pat in fixed:
            p = chunk.find(pat)
            while p >= 0:
                hits.append(p)
                p = chunk.find(pat, p + len(pat))
        hits.sort()
    else:
        wanted: dict[bytes, bool] = {}
        hits = []
        for m in _METRIC.finditer(chunk):
            name = m.group(1)
            w = wanted.get(name)
            if w is None:
                s = name.decode("utf-8", "replace")
                w = wanted[name] = s in (k6.REQUEST_METRIC, k6.VUS_METRIC) or stage_of(s) is not None
            if w:
                hits.append(m.start())
    at = _LineAt(chunk, line0)
    last_start = -1
    for pos in hits:
        start = chunk.rfind(b"\n", 0, pos) + 1
        if start == last_start:
            continue  # the same line twice (a tag that looks like a metric)
        last_start = start
        end = chunk.find(b"\n", pos)
        raw = chunk[start:end]
        if len(raw) > MAX_LINE_BYTES:
            scan.skips.add(at(start), TOO_LONG, raw[:200].decode("utf-8", "replace"))
            continue
        _parse_line(scan, lambda s=start: at(s), raw, stage_of)


def scan_ndjson(path, stage_of: Callable[[str], str | None] = k6.no_stage, *, progress: bool | None = None) -> k6.Scan:
    """One lazy pass over k6 ``--out json`` (see the module docstring and :class:`~.k6.Scan`).

    ``progress``: draw a bar on standard error (default: when it is a terminal
    and the file is over 50 MB).
    """
    source = str(path)
    scan = k6.Scan(source, 0, SkipCounter(source))
    fixed = (b'"metric":"http_req_duration"', b'"metric":"vus"') if stage_of is k6.no_stage else None
    line0, binary, first = 0, False, True
    with open_input(path) as f, byte_progress(path, disk_size(path), progress) as update:
        for chunk in iter_chunks(f):
            if first:
                binary, first = looks_binary(chunk), False
            n_nl = chunk.count(b"\n")
            tail = b""
            if not chunk.endswith(b"\n"):  # the file's last line, without its newline: cut off while written
                cut = chunk.rfind(b"\n") + 1
                chunk, tail = chunk[:cut], chunk[cut:]
            if binary:
                for k in range(n_nl):
                    scan.skips.add(line0 + k + 1, BINARY)
            elif n_nl and _fast_ok(chunk, n_nl):
                _fast_chunk(scan, line0, chunk, stage_of, fixed)
            elif n_nl:
                _slow_chunk(scan, line0, chunk, stage_of)
            line0 += n_nl
            if tail:
                line0 += 1
                scan.skips.add(line0, BINARY if binary else TRUNCATED, tail[:200].decode("utf-8", "replace"))
            update(f.compressed_tell())
    scan.lines_total = line0
    return scan
