"""A monitor log's lines as per-line facts and the texts of the lines that need them, read in one polars streaming pass.

The file is scanned as one text column (polars' line reader for a plain
ASCII file without CR; otherwise its CSV reader with a separator that is not
in the file, no quoting and lossy UTF-8) and, in the same streaming pass on
all cores, every line is reduced to a few small columns: its ``key value``
split (cpu.stat lines), whether it is a known section marker, and its text,
kept only for the lines that are neither (about a quarter of a log: block
headers, kubectl top rows, cpu.max values, odd lines).  The pass has three
outputs (``collect_all`` runs their shared plan once): the per-line columns;
apart from them the kept texts with their line index, classified in the pass
(block header, log-header line, unknown section marker, non-UTF-8 bytes, too
long); and the byte total.  That keeps the work per line small and the peak
memory near the file's size.  The file's bytes are looked at through ``mmap``
(binary sniff, NUL/CR/separator search, ASCII check), never copied.  When the
reader's lines could differ from the file's (a bare CR, the separator byte in
the file), the lines are split in Python instead (:func:`.lines.split_lines`),
with the same result.
"""

from __future__ import annotations

import mmap
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import polars as pl

# cpu.stat keys, from the catalogue: STAT_KEYS (= SHARED_KEYS + V2_KEYS + V1_KEYS) are the columns of the
# (block x key) table, in their order; IGNORED_KEYS are known and not kept.
from throttlelab.core.cpu_stat import IGNORED_KEYS, SHARED_KEYS, STAT_KEYS, V1_KEYS, V2_KEYS  # noqa: F401
from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.monitor.monitor_format import SECTIONS

KEY_ENUM = pl.Enum([*STAT_KEYS, *IGNORED_KEYS])
#: ``key`` of a line that is not a known ``key value`` line (the columns hold no nulls, so numpy reads them in place).
NO_KEY = 255
MARKER_ENUM = pl.Enum([f"[{name}]" for name in SECTIONS])
HEADER_PREFIXES = ("===", "Pod: ", "Namespace: ", "Interval: ", "Log file: ")
UNKNOWN_SECTION = 9
#: Bits of the ``flags`` column: what kind of line it is, or what is wrong with its bytes.
FLAGS = {"blank": 1, "bad": 2, "long": 4, "hdr": 8, "loghdr": 16}
_SEP = "\x1f"
_CSV = dict(has_header=False, separator=_SEP, quote_char=None, schema={"t": pl.String}, encoding="utf8-lossy",
            truncate_ragged_lines=True)


@dataclass
class LineFrame:
    """The lines of one file, reduced to per-line facts, and the texts of the lines that need them.

    Attributes
    ----------
    path
        The file, as given.
    frame
        One row per line: ``flags``, the bits (:data:`FLAGS`, read with
        :meth:`flag`) ``blank``, ``bad`` (holds bytes that are not UTF-8),
        ``long`` (over :data:`.lines.MAX_LINE_BYTES`), ``hdr`` (``--- ... ---``) and
        ``loghdr`` (``===``, ``Pod:``...); ``marker`` (section code 1-4 of
        :data:`.monitor_format.SECTIONS`, 9 another ``[...]`` line, 0 none),
        ``key`` (index in :data:`KEY_ENUM`, :data:`NO_KEY` when not a known key), ``val``
        (the integer after the first space; -1 when there is none).
    text_at, texts
        The lines (sorted 0-based indices) with a text, and their texts: every
        line but the empty ones, known section markers and good ``key value``
        lines, whose text the other columns give.
    binary, truncated
        NUL bytes near the start; a last line without its newline.
    """

    path: str
    frame: pl.DataFrame
    text_at: np.ndarray
    texts: pl.Series
    binary: bool = False
    truncated: bool = False
    _at: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return self.frame.height

    def flag(self, name: str) -> np.ndarray:
        """Per line, whether it has flag ``name`` (a key of :data:`FLAGS`)."""
        return (self.frame["flags"].to_numpy() & FLAGS[name]) != 0

    def text(self, j: int) -> str | None:
        """Line ``j``'s text (0-based), for messages."""
        k = int(np.searchsorted(self.text_at, j))
        if k < len(self.text_at) and self.text_at[k] == j:
            return self.texts[k]
        row = self.frame.row(j, named=True)
        if row["flags"] & FLAGS["blank"]:
            return None
        if 0 < row["marker"] < UNKNOWN_SECTION:
            return f"[{SECTIONS[row['marker'] - 1]}]"
        return f"{KEY_ENUM.categories[row['key']]} {row['val']}"

    def text_index(self) -> np.ndarray:
        """Per line, the position of its text in :attr:`texts` (-1: none); made once, on first use (a look-up
        per line is cheaper than a binary search of :attr:`text_at` for each of the lines of a section)."""
        if self._at is None:
            at = np.full(len(self), -1, dtype=np.int32)
            at[self.text_at] = np.arange(len(self.text_at), dtype=np.int32)
            self._at = at
        return self._at

    def texts_of(self, lines: np.ndarray) -> pl.Series:
        """The texts of ``lines`` (0-based indices; null for a line without text)."""
        k = self.text_index()[lines]
        hit = k >= 0
        if hit.all():
            return self.texts.gather(k)
        out = self.texts.gather(k[hit])
        full = pl.repeat(None, len(lines), dtype=pl.String, eager=True)
        return full.scatter(np.flatnonzero(hit), out) if len(out) else full

    def dense_text(self) -> pl.Series:
        """One text per line (null where the other columns give it)."""
        return self.texts_of(np.arange(len(self)))

    def part(self, lo: int, hi: int) -> LineFrame:
        """Lines ``lo`` to ``hi`` (end excluded) as a :class:`LineFrame` of their own."""
        a, b = np.searchsorted(self.text_at, [lo, hi])
        return LineFrame(self.path, self.frame.slice(lo, hi - lo), self.text_at[a:b] - lo, self.texts.slice(a, b - a),
                         self.binary, self.truncated and hi == len(self))

    def problem_codes(self) -> np.ndarray:
        """Per line, the index in :data:`.lines.LINE_REASONS` of its file-level problem (0: none)."""
        n = len(self)
        codes = np.zeros(n, dtype=np.uint8)
        if self.binary:
            codes[:] = 1
            return codes
        codes[self.flag("bad")] = 2
        codes[self.flag("long")] = 3
        if self.truncated and n:
            codes[n - 1] = 4
        return codes


def facts(lines: pl.LazyFrame) -> pl.LazyFrame:
    """The per-line columns of the one streaming pass over the lines (column ``t``): ``n`` (bytes),
    ``key``, ``val``, ``marker`` (known section markers) and ``t``, the text of the lines that are
    neither good ``key value`` lines nor known section markers (null for the others and empty lines).
    In two steps, so the split is done once (an expression used twice in one step is computed twice)."""
    t, c = pl.col("t"), pl.col
    kv = t.str.splitn(" ", 2)
    keep = ((c("key") == NO_KEY) | (c("val") < 0)) & (c("marker") == 0) & (c("n") > 0)
    return lines.select(
        n=t.str.len_bytes().fill_null(0),
        key=kv.struct.field("field_0").cast(KEY_ENUM, strict=False).to_physical().fill_null(NO_KEY),
        val=kv.struct.field("field_1").cast(pl.Int64, strict=False).fill_null(-1),
        marker=_marker(t),
        t=t,
    ).with_columns(
        # copied out of the CSV reader's buffers here, in the streaming pass, so each
        # chunk's buffers can go as soon as it is read (a copy later would keep them all)
        t=pl.concat_str(pl.when(keep).then(t), pl.lit("")),
    )


def _marker(t: pl.Expr) -> pl.Expr:
    """Section code 1-4 of a known section marker line, else 0 (four comparisons with the markers: on a day
    at 100 ms, 0.07 s of CPU less than a cast to :data:`MARKER_ENUM`)."""
    out = pl.lit(0, pl.Int8)
    for code, name in reversed(list(enumerate(MARKER_ENUM.categories, start=1))):
        out = pl.when(t == name).then(pl.lit(code, pl.Int8)).otherwise(out)
    return out


#: Bit of the pass's ``f`` column (beside :data:`FLAGS`' bits) for a ``[...]`` line that is not a known marker.
_ODD = 32


class Facts(NamedTuple):
    """The three outputs of the one pass (:func:`collect_facts`)."""

    per_line: pl.DataFrame  #: ``flags`` (``blank`` set), ``key``, ``val``, ``marker``, one row per line
    #: ``i`` (0-based line), ``t``, ``f``: bits of :data:`FLAGS` (``bad``, ``long``, ``hdr``, ``loghdr``) and ``_ODD``
    kept: pl.DataFrame
    size: int  #: bytes of all lines, without their newlines


def collect_facts(lines: pl.LazyFrame, ascii_only: bool, engine: str = "streaming") -> Facts:
    """:func:`facts` in one pass with three outputs (:class:`Facts`): the per-line columns, the kept
    texts with their line index and what they are (see :class:`LineFrame`), and the byte total.
    Against one output with a text column for every line, the 16-byte view of each of the other
    three quarters is never made (on a day at 100 ms: 220 MB less, and no filtering afterwards), and
    the kept texts are classified in the pass, on all cores."""
    t = pl.col("t")
    per_line = facts(lines).with_row_index("i")
    bits = {
        FLAGS["bad"]: pl.lit(False) if ascii_only else t.str.contains("\ufffd", literal=True),
        FLAGS["long"]: t.str.len_bytes() > lines_mod.MAX_LINE_BYTES,
        FLAGS["hdr"]: t.str.starts_with("--- ") & t.str.ends_with(" ---"),
        FLAGS["loghdr"]: pl.any_horizontal(t.str.starts_with(p) for p in HEADER_PREFIXES),
        _ODD: t.str.starts_with("[") & t.str.ends_with("]"),
    }
    kept = per_line.filter(t.is_not_null()).select(
        "i", "t", f=pl.sum_horizontal(pl.when(e).then(pl.lit(b, pl.UInt8)).otherwise(pl.lit(0, pl.UInt8))
                                      for b, e in bits.items()).cast(pl.UInt8))
    flags = (pl.col("n") == 0).cast(pl.UInt8) * FLAGS["blank"]
    frame, kept, size = pl.collect_all([per_line.select(flags=flags, key="key", val="val", marker="marker"),
                                        kept, per_line.select(pl.col("n").sum())], engine=engine)
    return Facts(frame, kept, int(size.item() or 0))


def _classified(path: str, facts_: Facts, binary: bool, truncated: bool) -> LineFrame:
    """The pass's outputs -> :class:`LineFrame`."""
    frame, cls = facts_.per_line, facts_.kept
    text_at = cls["i"].to_numpy().astype(np.int64)
    texts = cls["t"].rechunk()
    flags = np.require(frame["flags"].to_numpy(), np.uint8, ["W", "C"])  # writable (a copy only if not)
    f = cls["f"].to_numpy()
    some = np.flatnonzero(f)
    f, at = f[some], text_at[some]
    flags[at] |= f & ~np.uint8(_ODD)
    marker = np.require(frame["marker"].to_numpy(), np.int8, ["W", "C"])
    marker[at[(f & _ODD) != 0]] = UNKNOWN_SECTION
    out = frame.select(flags=pl.Series(flags), marker=pl.Series(marker), key="key", val="val")
    return LineFrame(path, out, text_at, texts, binary=binary, truncated=truncated)


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
    return _classified(path, collect_facts(pl.LazyFrame({"t": []}, schema={"t": pl.String}), True, "in-memory"),
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
    return _classified(path, out, checks["binary"], truncated)
