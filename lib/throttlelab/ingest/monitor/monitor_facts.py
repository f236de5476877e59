"""The one polars streaming pass that reduces a monitor log's lines to per-line facts (:func:`collect_facts`).

Over the lines as one text column, in one streaming pass on all cores, every
line is reduced to a few small columns: its ``key value`` split (cpu.stat
lines), whether it is a known section marker, and its text, kept only for the
lines that are neither.  The pass has three outputs (``collect_all`` runs their
shared plan once): the per-line columns; apart from them the kept texts with
their line index, classified in the pass (block header, log-header line,
unknown section marker, non-UTF-8 bytes, too long); and the byte total.  That
keeps the work per line small and the peak memory near the file's size.
:func:`classified` turns the outputs into a
:class:`~.monitor_line_frame.LineFrame`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import polars as pl

from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.monitor.monitor_line_frame import (
    FLAGS, HEADER_PREFIXES, KEY_ENUM, MARKER_ENUM, NO_KEY, UNKNOWN_SECTION, LineFrame,
)


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


def classified(path: str, facts_: Facts, binary: bool, truncated: bool) -> LineFrame:
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
