"""A monitor log's lines reduced to per-line facts, and the texts of the lines that need them (:class:`LineFrame`).

The facts are small columns per line (made by the polars pass of
:mod:`.monitor_facts`): flag bits, the code of a known section marker, the
index of a known ``cpu.stat`` key and the integer after it.  A line keeps its
text only when these do not give it (about a quarter of a log: block headers,
kubectl top rows, cpu.max values, odd lines); :meth:`LineFrame.text` rebuilds
any line's text for messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from throttlelab.core.cpu_stat import IGNORED_KEYS, STAT_KEYS
from throttlelab.ingest.monitor.monitor_format import SECTIONS

#: The known ``cpu.stat`` keys (the catalogue's kept ones, then those known and not kept): ``key`` is an index here.
KEY_ENUM = pl.Enum([*STAT_KEYS, *IGNORED_KEYS])
#: ``key`` of a line that is not a known ``key value`` line (the columns hold no nulls, so numpy reads them in place).
NO_KEY = 255
MARKER_ENUM = pl.Enum([f"[{name}]" for name in SECTIONS])
HEADER_PREFIXES = ("===", "Pod: ", "Namespace: ", "Interval: ", "Log file: ")
UNKNOWN_SECTION = 9
#: Bits of the ``flags`` column: what kind of line it is, or what is wrong with its bytes.
FLAGS = {"blank": 1, "bad": 2, "long": 4, "hdr": 8, "loghdr": 16}


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
