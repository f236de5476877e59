"""The Prometheus text exposition format (a ``curl`` of ``/metrics`` or the kubelet's ``/metrics/cadvisor``) -> points.

Each sample line ``name{label="value",...} value [timestamp_ms]`` becomes one
point; ``# TYPE name counter|gauge|...`` lines give the metric's type;
``# HELP`` and other comments and blank lines are structure.  A sample line
that cannot be parsed is counted as skipped with its line number.  The file
is read lazily, chunk by chunk (a scrape appended every 15 s for a day is
hundreds of MB); only the points are kept.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from throttlelab.ingest.input_files import iter_chunks, open_input
from throttlelab.ingest.lines import BINARY, MAX_LINE_BYTES, NON_UTF8, TOO_LONG, TRUNCATED, looks_binary
from throttlelab.ingest.skip_counter import SkipCounter

_SAMPLE = re.compile(r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?:\{(?P<labels>.*)\})?\s+(?P<value>\S+)(?:\s+(?P<ts>-?\d+))?\s*$")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')
_UNESCAPE = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


@dataclass
class TextPoints:
    """Points of one exposition file: ``(line, name, labels, timestamp_ms or None, value)``."""

    points: list[tuple[int, str, dict, int | None, float]] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)
    lines_total: int = 0


def _labels(text: str) -> dict | None:
    out, pos = {}, 0
    text = text.rstrip().rstrip(",")
    while pos < len(text):
        m = _LABEL.match(text, pos)
        if not m:
            return None
        out[m.group(1)] = re.sub(r'\\[\\"n]', lambda e: _UNESCAPE[e.group(0)], m.group(2))
        pos = m.end()
    return out


def parse_value(text: str) -> float:
    """A sample value; ValueError for NaN and infinities (no CPU counter takes them)."""
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(text)
    return v


def read_text_points(path, skips: SkipCounter) -> TextPoints:
    """Every sample line of an exposition file, read chunk by chunk (problems counted in ``skips``).

    Line problems are those of every line reader (:mod:`.lines`): binary file,
    non-UTF-8 bytes, a line over 64 KiB, a last line without its newline.
    """
    out = TextPoints()
    line0, binary = 0, None
    with open_input(path) as f:
        for chunk in iter_chunks(f):
            if binary is None:
                binary = looks_binary(chunk)
            parts = chunk.split(b"\n")
            cut = chunk.endswith(b"\n")
            if cut:
                parts.pop()
            last = line0 + len(parts)
            for n, raw in enumerate(parts, start=line0 + 1):
                if binary:
                    skips.add(n, BINARY)
                    continue
                if not cut and n == last:
                    skips.add(n, TRUNCATED, raw[:200].decode("utf-8", "replace"))
                    continue
                if len(raw) > MAX_LINE_BYTES:
                    skips.add(n, TOO_LONG, raw[:200].decode("utf-8", "replace"))
                    continue
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    skips.add(n, NON_UTF8, raw.decode("utf-8", "replace"))
                    continue
                _line(out, n, text.rstrip("\r"), skips)
            line0 = last
    out.lines_total = line0
    return out


def _line(out: TextPoints, n: int, text: str, skips: SkipCounter) -> None:
    s = text.strip()
    if not s:
        return
    if s.startswith("#"):
        parts = s.split(None, 3)
        if len(parts) >= 4 and parts[1] == "TYPE":
            out.types[parts[2]] = parts[3].strip()
        return
    m = _SAMPLE.match(s)
    labels = _labels(m.group("labels") or "") if m else None
    if labels is None:
        skips.add(n, "not a Prometheus sample line (name{labels} value [timestamp])", text)
        return
    try:
        value = parse_value(m.group("value"))
    except ValueError:
        skips.add(n, "bad value", text)
        return
    ts = m.group("ts")
    out.points.append((n, m.group("name"), labels, int(ts) if ts else None, value))


def looks_like_exposition(text: str) -> bool:
    """Whether ``text`` (a file's start) is the exposition format: ``# TYPE``/``# HELP`` lines,
    or sample lines with a label set."""
    n = hits = 0
    for line in text.splitlines()[:50]:
        s = line.strip()
        if not s:
            continue
        n += 1
        if s.startswith(("# TYPE ", "# HELP ")):
            hits += 1
        elif (m := _SAMPLE.match(s)) and m.group("labels") is not None and _labels(m.group("labels")) is not None:
            hits += 1
    return n > 0 and hits >= max(1, n // 2)
