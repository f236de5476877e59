"""Read a monitor log's file or bytes into a :class:`~.monitor_line_frame.LineFrame`, by polars' line or CSV reader.

The file is scanned as one text column (polars' line reader for a plain
ASCII file without CR; otherwise its CSV reader with a separator that is not
in the file, no quoting and lossy UTF-8) and reduced to per-line facts in the
same streaming pass (:func:`.monitor_facts.collect_facts`).  The file's bytes
are looked at through ``mmap`` (binary sniff, NUL/CR/separator search, ASCII
check), never copied.  When the reader's lines could differ from the file's (a
bare CR, the separator byte in the file), the lines are split in Python instead
(:func:`.lines.split_lines`), with the same result.
"""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np
import polars as pl

from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.monitor.monitor_facts import classified, collect_facts
from throttlelab.ingest.monitor.monitor_line_frame import LineFrame

_SEP = "\x1f"
_CSV = dict(has_header=False, separator=_SEP, quote_char=None, schema={"t": pl.String}, encoding="utf8-lossy",
            truncate_ragged_lines=True)


def read_line_frame(path: str | Path) -> LineFrame:
    """Read a file into a :class:`LineFrame`; :class:`~throttlelab.errors.InputError` when it cannot be read."""
    with lines_mod._readable(path) as p, open(p, "rb") as f:
        size = p.stat().st_size
        if size == 0:
            return _empty(str(path))
        # closed before polars maps the file itself; its pages mapped at once (MAP_POPULATE: a fault per page
        # costs kernel time as the checks read them)
        populate = getattr(mmap, "MAP_POPULATE", 0)
        with mmap.mmap(f.fileno(), 0, flags=mmap.MAP_SHARED | populate, prot=mmap.PROT_READ) as mm:
            checks = _checks(mm, size)
        return _frame(checks, size, str(path), lambda: _scan(p, checks), lambda: p.read_bytes())


def line_frame_from_bytes(data: bytes, path: str = "<bytes>") -> LineFrame:
    """:func:`read_line_frame` of bytes in memory."""
    if not data:
        return _empty(path)
    checks = _checks(data, len(data))
    return _frame(checks, len(data), path, lambda: _scan(data, checks), lambda: data)


def _scan(source, checks: dict) -> pl.LazyFrame:
    """The lines as column ``t``: polars' line reader for plain files (ASCII, no CR: its lines are the
    file's), else the CSV reader with lossy UTF-8 (its lines are checked against the newlines)."""
    return pl.scan_lines(source, name="t") if checks["plain"] else pl.scan_csv(source, **_CSV)


def _empty(path: str) -> LineFrame:
    return classified(path, collect_facts(pl.LazyFrame({"t": []}, schema={"t": pl.String}), True, "in-memory"),
                       False, False)


def _checks(buf, size: int) -> dict:
    """What the bytes say: binary, truncated, whether the CSV reader can split them, newlines (when not plain)."""
    binary = buf.find(b"\x00", 0, lines_mod.BINARY_SNIFF_BYTES) >= 0
    arr = np.frombuffer(buf, dtype=np.uint8)
    plain = int(arr.max()) < 128 and buf.find(b"\r") < 0
    step = 64 << 20
    newlines = None if plain else sum(int(np.count_nonzero(arr[k:k + step] == 10)) for k in range(0, size, step))
    del arr
    return dict(binary=binary, truncated=buf[size - 1] != 10, plain=plain, newlines=newlines,
                csv=not binary and buf.find(_SEP.encode()) < 0)


def _frame(checks: dict, size: int, path: str, scan, data) -> LineFrame:
    out = None
    truncated = checks["truncated"]
    if checks["csv"]:
        out = collect_facts(scan(), checks["plain"])
        n = out.per_line.height
        if checks["plain"]:
            ok = out.size + n - truncated == size
        else:
            ok = n == checks["newlines"] + truncated
        out = out if ok else None
    if out is None:  # split in Python: exact whatever the bytes
        text = lines_mod.split_lines(data(), path, binary=checks["binary"]).text
        out = collect_facts(pl.LazyFrame({"t": text}), checks["plain"], "in-memory")
    return classified(path, out, checks["binary"], truncated)
