"""Scan of a monitor-log chunk whose blocks all look alike (the usual case).

:func:`first_block_layout` reads the line layout of the chunk's first block;
:func:`scan_uniform_chunk` then checks each line position of that layout across
all blocks at once and reads the values, with the same checks as the general
scan (:func:`.monitor_scan.scan_chunk`).
"""

from __future__ import annotations

import numpy as np

from throttlelab.ingest import monitor_lines
from throttlelab.ingest.block_timestamps import plain_timestamps
from throttlelab.ingest.byte_words import Words, parse_digits
from throttlelab.ingest.distinct_lines import distinct_columns, line_words
from throttlelab.ingest.monitor_blocks import IGNORED_KEYS, STAT_KEYS
from throttlelab.ingest.monitor_chunks import Chunk, next_header
from throttlelab.ingest.monitor_format import SECTIONS
from throttlelab.ingest.scan_patterns import (
    CLOSE, KLEN, KMASK, KPATT, MARKERS, MASK4, MASK5, MAX_LINE, MAX_WORDS, NAME, NK, OPEN, POD, TOP_WORDS,
)

_SECTION_OF_MARKER = {f"[{name}]".encode(): k for k, name in enumerate(SECTIONS, start=1)}
_KEY_INDEX = {k.encode(): i for i, k in enumerate((*STAT_KEYS, *IGNORED_KEYS))}
_LOG_HEADER_PREFIXES = (b"===", *(p.encode() for p in monitor_lines.HEADER_PREFIXES))


def first_block_layout(buf: np.ndarray, start: int, stop: int) -> list[tuple] | None:
    """The line layout of the chunk's first block, if every line of it is one the
    fast path takes: ``[("hdr",), ("marker", k), ("blank",), ("tophead",),
    ("top",), ("stat", key), ("max",), ("acct",), ...]``; else ``None``."""
    second = next_header(memoryview(buf), stop, start + 1)
    if second >= stop or second - start > 1 << 16:
        return None
    lines = bytes(buf[start:second]).split(b"\n")[:-1]
    out, section, seen = [("hdr",)], 0, set()
    for line in lines[1:]:
        if not line:
            out.append(("blank",))
        elif line in _SECTION_OF_MARKER:
            section = _SECTION_OF_MARKER[line]
            out.append(("marker", section))
        elif line.startswith((b"[", b"--- ", *_LOG_HEADER_PREFIXES)):
            return None
        elif section == 1 and line.startswith((b"POD ", b"NAME ")):
            out.append(("tophead",))
        elif section == 1 and "top" not in seen and len(line) <= 8 * TOP_WORDS:
            out.append(("top",))
            seen.add("top")
        elif section == 2:
            key, _, value = line.partition(b" ")
            k = _KEY_INDEX.get(key)
            if k is None or k in seen or not (value.isdigit() and 1 <= len(value) <= 18):
                return None
            out.append(("stat", k))
            seen.add(k)
        elif section == 3 and "max" not in seen and len(line) <= 8 * MAX_WORDS:
            out.append(("max",))
            seen.add("max")
        elif section == 4 and "acct" not in seen and line.isdigit() and 1 <= len(line) <= 18:
            out.append(("acct",))
            seen.add("acct")
        else:
            return None
    return out


def scan_uniform_chunk(buf: np.ndarray, words: Words, start: int, stop: int, tpl: list[tuple],
                   starts: np.ndarray, ends: np.ndarray) -> Chunk | None:
    """:func:`scan_chunk` for a chunk whose blocks all have the layout ``tpl``: each
    line position of the layout is checked across all blocks at once (a block
    where one fails is unclean).  ``None`` when the blocks do not start every
    ``len(tpl)`` lines (then the general scan decides)."""
    L = len(tpl)
    nb = len(starts) // L
    S = starts.reshape(nb, L)
    E = ends.reshape(nb, L)
    hs = S[:, 0] + start
    hl = E[:, 0] - S[:, 0]
    (h0,) = words.at(hs)
    (h1,) = words.at(hs + hl - 4)
    if not ((hl >= 7) & (hl <= MAX_LINE) & ((h0 & MASK4) == OPEN) & ((h1 & MASK4) == CLOSE)).all():
        return None
    ok = np.ones(nb, dtype=bool)
    stat = np.zeros((NK, nb), dtype=np.int64)
    stat_present = np.zeros((NK, nb), dtype=bool)
    acct = np.zeros(nb, dtype=np.int64)
    acct_present = np.zeros(nb, dtype=bool)
    blocks = np.arange(nb, dtype=np.int64)
    max_rep = np.zeros((MAX_WORDS + 1, 0), dtype=np.uint64)
    top_rep = np.zeros((TOP_WORDS + 1, 0), dtype=np.uint64)
    max_id = top_id = max_block = top_block = np.zeros(0, dtype=np.int64)
    for r, spec in enumerate(tpl[1:], start=1):
        st = S[:, r] + start
        ln = E[:, r] - S[:, r]
        kind = spec[0]
        if kind == "blank":
            ok &= ln == 0
        elif kind == "marker":
            length, e0, e1, el = MARKERS[spec[1] - 1]
            w0, w1 = words.at(st, 2)
            (wl,) = words.at(st + ln - 8)
            m = (ln == length) & (w0 == e0) & (wl == el)
            if length >= 16:
                m &= w1 == e1
            ok &= m
        elif kind == "tophead":
            (w0,) = words.at(st)
            ok &= (((w0 & MASK4) == POD) | ((w0 & MASK5) == NAME)) & (ln <= MAX_LINE)
        elif kind == "stat":
            k = spec[1]
            w0, w1 = words.at(st, 2)
            m = (w0 == KPATT[0, k]) & ((w1 & KMASK[1, k]) == KPATT[1, k])
            if KLEN[k] >= 16:
                w2, w3 = words.at(st + 16, 2)
                m &= ((w2 & KMASK[2, k]) == KPATT[2, k]) & ((w3 & KMASK[3, k]) == KPATT[3, k])
            value, vok = parse_digits(words, st + ln, ln - KLEN[k] - 1)
            ok &= m & vok
            if k < NK:
                stat[k] = value
                stat_present[k] = True
        elif kind == "acct":
            value, vok = parse_digits(words, st + ln, ln)
            ok &= vok
            acct, acct_present = value, np.ones(nb, dtype=bool)
        elif kind == "max":
            ok &= (ln >= 1) & (ln <= 8 * MAX_WORDS)
            max_rep, max_id = distinct_columns(line_words(words, st, np.minimum(ln, 8 * MAX_WORDS), MAX_WORDS))
            max_block = blocks
        elif kind == "top":
            (w0,) = words.at(st)
            b0 = (w0 & np.uint64(0xFF)).astype(np.intp)
            b1 = ((w0 >> np.uint64(8)) & np.uint64(0xFF)).astype(np.intp)
            ok &= (ln >= 1) & (ln <= 8 * TOP_WORDS) & ~monitor_lines.HEADER_PAIRS[b0, b1] & (b0 != 91) & ((w0 & MASK4) != OPEN)
            ok &= ~(((w0 & MASK4) == POD) | ((w0 & MASK5) == NAME))
            top_rep, top_id = distinct_columns(line_words(words, st, np.minimum(ln, 8 * TOP_WORDS), TOP_WORDS))
            top_block = blocks
    ts, ts_kind = plain_timestamps(np.stack(words.at(hs + 4, 4)), hl - 8)
    return Chunk(start, stop, len(starts), blocks * L, hs, hl, ts, ts_kind, ~ok, stat, stat_present, acct, acct_present,
                  max_block, max_id, max_rep, top_block, top_id, top_rep)
