"""A monitor log's lines as a polars frame of per-line facts, read by polars' streaming CSV reader.

The file is scanned as one text column (a separator that is not in the file,
no quoting) and, in the same streaming pass on all cores, every line is
reduced to a few small columns: its byte length, whether it holds bytes that
are not UTF-8, whether it is a block header, a section marker or a log-header
line, and its ``key value`` split (cpu.stat lines); the text itself is kept only
for the lines that are not good ``key value`` lines (about half of a log), which
keeps the peak memory near the file's size.  The file's bytes are looked at
through ``mmap`` (binary sniff, NUL/CR/separator search, ASCII check), never
copied.  When the CSV reader's lines could differ from the file's (a bare CR,
the separator byte in the file), the lines are split in Python instead
(:func:`.lines.split_lines`), with the same result.
"""

from __future__ import annotations

import mmap
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.monitor_format import SECTIONS

# cpu.stat keys, in the columns of the (block x key) table.
SHARED_KEYS = ("nr_periods", "nr_throttled", "nr_bursts")
V2_KEYS = ("usage_usec", "user_usec", "system_usec", "throttled_usec", "burst_usec")
V1_KEYS = ("throttled_time", "burst_time")
STAT_KEYS = SHARED_KEYS + V2_KEYS + V1_KEYS
#: Known cpu.stat keys that are read but not kept (newer kernels, schedstats).
IGNORED_KEYS = ("core_sched.force_idle_usec", "wait_sum", "nr_burst")
KEY_ENUM = pl.Enum([*STAT_KEYS, *IGNORED_KEYS])
HEADER_PREFIXES = ("===", "Pod: ", "Namespace: ", "Interval: ", "Log file: ")
UNKNOWN_SECTION = 9
_SEP = "\x1f"
_CSV = dict(has_header=False, separator=_SEP, quote_char=None, schema={"t": pl.String}, encoding="utf8-lossy",
            truncate_ragged_lines=True)


@dataclass
class LineFrame:
    """The lines of one file, reduced to per-line facts.

    Attributes
    ----------
    path
        The file, as given.
    frame
        One row per line: ``n`` (bytes), ``bad`` (holds bytes that are not
        UTF-8), ``hdr`` (``--- ... ---``), ``marker`` (section code 1-4 of
        :data:`.monitor_format.SECTIONS`, 9 another ``[...]`` line, 0 none),
        ``loghdr`` (``===``, ``Pod:``...), ``key`` (index in :data:`KEY_ENUM`,
        null when not a known key), ``val`` (the integer after the first
        space), ``t`` (the text; null for an empty line, a known section
        marker and a good ``key value`` line, whose text the other columns give).
    binary, truncated
        NUL bytes near the start; a last line without its newline.
    """

    path: str
    frame: pl.DataFrame
    binary: bool = False
    truncated: bool = False

    def __len__(self) -> int:
        return self.frame.height

    def text(self, j: int) -> str | None:
        """Line ``j``'s text (0-based), for messages."""
        row = self.frame.row(j, named=True)
        if row["t"] is not None or row["n"] == 0:
            return row["t"]
        if 0 < row["marker"] < UNKNOWN_SECTION:
            return f"[{SECTIONS[row['marker'] - 1]}]"
        return f"{KEY_ENUM.categories[row['key']]} {row['val']}"

    def problem_codes(self) -> np.ndarray:
        """Per line, the index in :data:`.lines.LINE_REASONS` of its file-level problem (0: none)."""
        n = len(self)
        codes = np.zeros(n, dtype=np.uint8)
        if self.binary:
            codes[:] = 1
            return codes
        codes[self.frame["bad"].to_numpy()] = 2
        codes[self.frame["n"].to_numpy() > lines_mod.MAX_LINE_BYTES] = 3
        if self.truncated and n:
            codes[n - 1] = 4
        return codes


def facts(t: pl.Expr, ascii_only: bool = False) -> dict[str, pl.Expr]:
    """The per-line columns, all computed in the one streaming pass over the lines: ``n``,
    ``bad``, ``key``, ``val``, ``hdr``, ``marker``, ``loghdr`` and ``t`` for the lines that are
    neither good ``key value`` lines nor known section markers (``ascii_only``: the file has
    no byte above 127, so no line can hold bad UTF-8).  A good ``key value`` line cannot look
    like a header or marker (its key is a cpu.stat key), so classifying every line gives the
    same flags as classifying only the lines with text."""
    kv = t.str.splitn(" ", 2)
    key = kv.struct.field("field_0").cast(KEY_ENUM, strict=False).to_physical()
    val = kv.struct.field("field_1").cast(pl.Int64, strict=False)
    known = pl.when(pl.lit(False)).then(0)
    for k, name in enumerate(SECTIONS, start=1):
        known = known.when(t == f"[{name}]").then(k)
    marker = known.when(t.str.starts_with("[") & t.str.ends_with("]")).then(UNKNOWN_SECTION).otherwise(0)
    marker = marker.fill_null(0).cast(pl.Int8)
    keep = (key.is_null() | val.is_null() | (val < 0)) & ~marker.is_between(1, UNKNOWN_SECTION - 1)
    return {
        "n": t.str.len_bytes().fill_null(0),
        "bad": pl.lit(False) if ascii_only else t.str.contains("\ufffd", literal=True).fill_null(False),
        "key": key,
        "val": val,
        "hdr": (t.str.starts_with("--- ") & t.str.ends_with(" ---")).fill_null(False),
        "marker": marker,
        "loghdr": pl.any_horizontal(t.str.starts_with(p) for p in HEADER_PREFIXES).fill_null(False),
        # copied out of the CSV reader's buffers here, in the streaming pass, so each
        # chunk's buffers can go as soon as it is read (a copy later would keep them all)
        "t": pl.concat_str(pl.when(keep).then(t), pl.lit("\n")).str.head(-1),
    }


def read_line_frame(path: str | Path) -> LineFrame:
    """Read a file into a :class:`LineFrame`; :class:`~throttlelab.errors.InputError` when it cannot be read."""
    with lines_mod._readable(path) as p, open(p, "rb") as f:
        size = p.stat().st_size
        if size == 0:
            return _empty(str(path))
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:  # closed before polars maps the file itself
            checks = _checks(mm, size)
        return _frame(checks, size, str(path), lambda: pl.scan_csv(p, **_CSV), lambda: p.read_bytes())


def line_frame_from_bytes(data: bytes, path: str = "<bytes>") -> LineFrame:
    """:func:`read_line_frame` of bytes in memory."""
    if not data:
        return _empty(path)
    return _frame(_checks(data, len(data)), len(data), path, lambda: pl.scan_csv(data, **_CSV), lambda: data)


def _empty(path: str) -> LineFrame:
    return LineFrame(path, pl.DataFrame({"t": []}, schema={"t": pl.String}).select(**facts(pl.col("t"))))


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
    frame = None
    truncated = checks["truncated"]
    if checks["csv"]:
        frame = scan().select(**facts(pl.col("t"), checks["plain"])).collect(engine="streaming")
        n = frame.height
        if checks["plain"]:
            ok = int(frame["n"].sum()) + n - truncated == size
        else:
            ok = n == checks["newlines"] + truncated
        frame = frame if ok else None
    if frame is None:  # split in Python: exact whatever the bytes
        text = lines_mod.split_lines(data(), path, binary=checks["binary"]).text
        frame = pl.DataFrame({"t": text}).select(**facts(pl.col("t")))
    return LineFrame(path, frame, binary=checks["binary"], truncated=truncated)
