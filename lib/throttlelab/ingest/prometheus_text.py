"""The Prometheus text exposition format (a ``curl`` of ``/metrics`` or the kubelet's ``/metrics/cadvisor``) -> points.

Each sample line ``name{label="value",...} value [timestamp_ms]`` becomes one
point; ``# TYPE name counter|gauge|...`` lines give the metric's type;
``# HELP`` and other comments and blank lines are structure.  A sample line
that cannot be parsed is counted as skipped with its line number.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.input_files import read_input
from throttlelab.ingest.skip_counter import SkipCounter, usable_lines

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
    """Every sample line of an exposition file (problems counted in ``skips``)."""
    lines = lines_mod.split_lines(read_input(path), str(path))
    out = TextPoints(lines_total=len(lines))
    for n, text in usable_lines(lines, skips):
        s = text.strip()
        if not s:
            continue
        if s.startswith("#"):
            parts = s.split(None, 3)
            if len(parts) >= 4 and parts[1] == "TYPE":
                out.types[parts[2]] = parts[3].strip()
            continue
        m = _SAMPLE.match(s)
        labels = _labels(m.group("labels") or "") if m else None
        if labels is None:
            skips.add(n, "not a Prometheus sample line (name{labels} value [timestamp])", text)
            continue
        try:
            value = parse_value(m.group("value"))
        except ValueError:
            skips.add(n, "bad value", text)
            continue
        ts = m.group("ts")
        out.points.append((n, m.group("name"), labels, int(ts) if ts else None, value))
    return out


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
