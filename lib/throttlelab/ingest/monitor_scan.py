"""Scan one chunk of a monitor log with numpy (the fast path's per-line work).

A chunk is a run of whole blocks starting at a block header both paths agree
on (:func:`next_header`).  :func:`scan_chunk` finds its lines (newlines),
classifies them, checks each against what the careful path would accept, and
reads the values of the blocks where every line passes ("clean" blocks) from
8-byte words (:mod:`.byte_words`).  When all blocks of a chunk share the first
block's layout, which is the usual case, each line position is checked across
all blocks at once (:func:`_scan_template`); otherwise each line is classified
by the section it is in (the general scan).

The results are per-block arrays (:class:`Chunk`); the distinct cpu.max lines
and kubectl top rows are kept as words, to be parsed once per distinct line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest import monitor_lines
from throttlelab.ingest.block_timestamps import plain_timestamps
from throttlelab.ingest.byte_words import Words, parse_digits, word
from throttlelab.ingest.monitor_blocks import IGNORED_KEYS, STAT_KEYS
from throttlelab.ingest.monitor_format import SECTIONS

MAX_LINE = lines_mod.MAX_LINE_BYTES
_OPEN = word(b"--- ")
_CLOSE = word(b" ---")
_POD = word(b"POD ")
_NAME = word(b"NAME ")
_MASK4 = np.uint64(0xFFFF_FFFF)
_MASK5 = np.uint64(0xFF_FFFF_FFFF)
_MAX_WORDS = 3  # cpu.max lines up to 24 bytes
_TOP_WORDS = 8  # kubectl top rows up to 64 bytes

# Section markers: (length, first word, second word, last word).
_MARKERS = [(len(m), word(m), word(m[8:16]), word(m[-8:])) for m in (f"[{s}]".encode() for s in SECTIONS)]


def _key_table():
    """cpu.stat keys (:data:`~.monitor_blocks.STAT_KEYS` then the ignored ones) as
    word patterns, and a perfect hash of their first 8 bytes."""
    keys = [k.encode() for k in (*STAT_KEYS, *IGNORED_KEYS)]
    assert all(8 <= len(k) <= 31 for k in keys)
    nw = 4
    patt = np.zeros((len(keys) + 1, nw), dtype=np.uint64)  # last row: no key (never matches)
    mask = np.zeros((len(keys) + 1, nw), dtype=np.uint64)
    patt[-1, 0], mask[-1, 1], patt[-1, 1] = np.uint64(2**64 - 1), 0, 1
    klen = np.zeros(len(keys) + 1, dtype=np.int64)
    for i, k in enumerate(keys):
        p = k + b" "
        klen[i] = len(k)
        for j in range(nw):
            part = p[8 * j: 8 * j + 8]
            patt[i, j] = word(part)
            mask[i, j] = np.uint64((1 << (8 * len(part))) - 1)
    prefixes = sorted({int(patt[i, 0]) for i in range(len(keys))})
    alt = np.full(len(keys) + 1, -1, dtype=np.int64)
    first = {}
    for i in range(len(keys)):
        p0 = int(patt[i, 0])
        if p0 in first:
            j = first[p0]
            while alt[j] >= 0:
                j = alt[j]
            alt[j] = i
        else:
            first[p0] = i
    magic = 0x9E3779B97F4A7C15
    while True:  # deterministic search for a multiplier without collisions in 64 slots
        slots = {((p * magic) % 2**64) >> 58 for p in prefixes}
        if len(slots) == len(prefixes):
            break
        magic = (magic * 6364136223846793005 + 1442695040888963407) % 2**64 | 1
    slot_key = np.full(64, len(keys), dtype=np.int64)
    for p, i in first.items():
        slot_key[((p * magic) % 2**64) >> 58] = i
    return patt.T.copy(), mask.T.copy(), klen, alt, np.uint64(magic), slot_key


_KPATT, _KMASK, _KLEN, _KALT, _KMAGIC, _KSLOT = _key_table()
_NK = len(STAT_KEYS)
_NKALL = len(STAT_KEYS) + len(IGNORED_KEYS)


@dataclass
class Chunk:
    """What one chunk's scan found (block and line indices local to the chunk;
    byte positions global)."""

    start: int  # byte offset of the chunk in the file
    stop: int
    n_lines: int
    hdr_line: np.ndarray  # block header line of each block
    hdr_byte: np.ndarray  # its byte offset
    hdr_len: np.ndarray  # its length
    ts: np.ndarray  # timestamp (µs) of each block, from block_timestamps.plain_timestamps
    ts_kind: np.ndarray  # 0 UTC, 1 naive, 2 for polars to parse
    unclean: np.ndarray  # block needs the careful path
    stat: np.ndarray  # (key x block)
    stat_present: np.ndarray
    acct: np.ndarray
    acct_present: np.ndarray
    max_block: np.ndarray  # block of each cpu.max line
    max_id: np.ndarray  # its row in max_words
    max_words: np.ndarray  # distinct cpu.max lines (see line_words)
    top_block: np.ndarray
    top_id: np.ndarray
    top_words: np.ndarray


def scan_chunk(buf: np.ndarray, words: Words, start: int, stop: int, truncated: bool) -> Chunk:
    """Scan ``buf[start:stop]``, which starts with a block header line (see :func:`_certain_header`)."""
    size = stop - start
    c = buf[start:]
    body = c[:size]
    ends = np.flatnonzero(body == 10)
    if truncated:
        ends = np.append(ends, size)
    n = len(ends)
    starts = np.empty(n, dtype=np.int64)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    odd_bytes = bool(body.max() >= 128 or (body == 13).any())
    if not truncated and not odd_bytes:
        tpl = _template(buf, start, stop)
        if tpl is not None and n % len(tpl) == 0:
            chunk = _scan_template(buf, words, start, stop, tpl, starts, ends)
            if chunk is not None:
                return chunk
    bad = []  # lines that make their block unclean
    odd = None
    if odd_bytes:  # non-ASCII bytes, bare CRs; CRLF line ends are dropped from the line
        pos = np.flatnonzero((body >= 128) | (body == 13))
        crlf = (c[pos] == 13) & (c[pos + 1] == 10)
        line_of = np.searchsorted(ends, pos)
        odd = np.unique(line_of[~crlf])
        ends[line_of[crlf]] -= 1
        bad.append(odd)
    if truncated:
        bad.append(np.array([n - 1]))
    lens = ends - starts
    bad.append(np.flatnonzero(lens > MAX_LINE))
    b0 = c[starts]
    starts += start  # global byte positions from here on
    ends += start

    # Block headers: "--- ... ---", 7 bytes or more.
    hc = np.flatnonzero(b0 == 45)
    hs, he = starts[hc], ends[hc]
    (h0,) = words.at(hs)
    (h1,) = words.at(he - 4)
    ok = ((he - hs >= 7) & (he - hs <= MAX_LINE) & ((h0 & _MASK4) == _OPEN) & ((h1 & _MASK4) == _CLOSE))
    if odd is not None:
        ok &= ~np.isin(hc, odd)
    if truncated:
        ok &= hc != n - 1
    hdr = hc[ok]
    nb = len(hdr)
    if nb == 0 or hdr[0] != 0:  # cannot happen (chunks start at a certain header); if it did: all careful
        return _all_careful(start, stop, n)

    # Section markers: exact "[kubectl top]" ... lines; other "[..." lines go the careful way.
    mc = np.flatnonzero(b0 == 91)
    ms, me = starts[mc], ends[mc]
    mlen = me - ms
    w0, w1 = words.at(ms, 2)
    (wl,) = words.at(me - 8)
    code = np.zeros(len(mc), dtype=np.int8)
    for k, (length, e0, e1, el) in enumerate(_MARKERS, start=1):
        hit = (mlen == length) & (w0 == e0) & (wl == el)
        if length >= 16:
            hit &= w1 == e1
        code[hit] = k
    bad.append(mc[code == 0])

    # Section of each line, and its kind: 1-4 content of a section, 5 content
    # outside any section, 0 blank or marker.
    mark = np.zeros(n, dtype=np.int8)
    mark[hdr] = 8
    mark[mc[code > 0]] = code[code > 0]
    mpos = np.flatnonzero(mark)
    mcode = mark[mpos]
    mcode[mcode == 8] = 0
    kind = np.repeat(mcode, np.diff(np.append(mpos, n)))
    kind[kind == 0] = 5
    kind[mpos] = 0
    kind[lens == 0] = 0
    bad.append(np.flatnonzero(kind == 5))
    blk = np.repeat(np.arange(nb, dtype=np.int64), np.diff(np.append(hdr, n)))
    unclean = np.zeros(nb, dtype=bool)

    # cpu.stat: "<key> <digits>".
    i2 = np.flatnonzero(kind == 2)
    st, en = starts[i2], ends[i2]
    w0, w1 = words.at(st, 2)
    cand = _KSLOT[(w0 * _KMAGIC) >> np.uint64(58)]
    prefix = _KPATT[0].take(cand) == w0
    good = prefix & ((w1 & _KMASK[1].take(cand)) == _KPATT[1].take(cand))
    retry = np.flatnonzero(prefix & ~good & (_KALT[cand] >= 0))
    while len(retry):  # keys sharing their first 8 bytes
        cand[retry] = _KALT[cand[retry]]
        g = (w1[retry] & _KMASK[1, cand[retry]]) == _KPATT[1, cand[retry]]
        good[retry[g]] = True
        retry = retry[~g & (_KALT[cand[retry]] >= 0)]
    klen = _KLEN[cand]
    long_ = np.flatnonzero(good & (klen >= 16))
    if len(long_):
        w2, w3 = words.at(st[long_] + 16, 2)
        cl = cand[long_]
        good[long_[((w2 & _KMASK[2, cl]) != _KPATT[2, cl]) | ((w3 & _KMASK[3, cl]) != _KPATT[3, cl])]] = False
    value, vok = parse_digits(words, en, en - st - klen - 1)
    good &= vok
    bad.append(i2[~good])
    b2, key, value = blk[i2[good]], cand[good], value[good]
    flat = key * nb + b2
    seen = np.zeros(_NKALL * nb, dtype=bool)
    seen[flat] = True
    if np.count_nonzero(seen) < len(flat):  # a key repeated in a block
        unclean |= np.bincount(b2, minlength=nb) > seen.reshape(_NKALL, nb).sum(axis=0)
    stat = np.zeros(_NKALL * nb, dtype=np.int64)
    stat[flat] = value
    stat = stat[: _NK * nb].reshape(_NK, nb)  # the ignored keys are dropped
    stat_present = seen[: _NK * nb].reshape(_NK, nb)

    # cpuacct.usage: digits only, one per block.
    i4 = np.flatnonzero(kind == 4)
    value, vok = parse_digits(words, ends[i4], lens[i4])
    bad.append(i4[~vok])
    b4 = blk[i4[vok]]
    acct = np.zeros(nb, dtype=np.int64)
    acct_present = np.zeros(nb, dtype=bool)
    acct[b4] = value[vok]
    acct_present[b4] = True
    if len(b4) > 1:
        unclean[b4[1:][b4[1:] == b4[:-1]]] = True

    # cpu.max and kubectl top rows: their words, parsed once per distinct line later.
    i3 = np.flatnonzero(kind == 3)
    bad.append(i3[lens[i3] > 8 * _MAX_WORDS])
    i3 = i3[lens[i3] <= 8 * _MAX_WORDS]
    max_rep, max_id = distinct_columns(line_words(words, starts[i3], lens[i3], _MAX_WORDS))
    i1 = np.flatnonzero(kind == 1)
    (w0,) = words.at(starts[i1])
    head = ((w0 & _MASK4) == _POD) | ((w0 & _MASK5) == _NAME)
    i1 = i1[~head]
    b1 = ((w0[~head] >> np.uint64(8)) & np.uint64(0xFF)).astype(np.intp)
    bad.append(i1[monitor_lines.HEADER_PAIRS[b0[i1], b1] | (lens[i1] > 8 * _TOP_WORDS)])
    i1 = i1[lens[i1] <= 8 * _TOP_WORDS]
    top_rep, top_id = distinct_columns(line_words(words, starts[i1], lens[i1], _TOP_WORDS))

    bad_lines = np.concatenate(bad)
    if len(bad_lines):
        unclean[blk[bad_lines]] = True
    ts, ts_kind = plain_timestamps(np.stack(words.at(starts[hdr] + 4, 4)), lens[hdr] - 8)
    return Chunk(start, stop, n, hdr, starts[hdr], lens[hdr], ts, ts_kind, unclean, stat, stat_present, acct, acct_present,
                  blk[i3], max_id, max_rep, blk[i1], top_id, top_rep)


def _all_careful(start: int, stop: int, n_lines: int) -> Chunk:
    """The whole chunk as one unclean block (the careful line stage reads it)."""
    z = np.zeros(1, dtype=np.int64)
    e = np.zeros(0, dtype=np.int64)
    return Chunk(start, stop, n_lines, z, z + start, z, z, np.full(1, 2, dtype=np.uint8), np.ones(1, dtype=bool),
                 np.zeros((_NK, 1), dtype=np.int64), np.zeros((_NK, 1), dtype=bool), z, np.zeros(1, dtype=bool),
                 e, e, np.zeros((_MAX_WORDS + 1, 0), dtype=np.uint64), e, e, np.zeros((_TOP_WORDS + 1, 0), dtype=np.uint64))


# --- chunks of blocks that all look alike ---------------------------------------------

_SECTION_OF_MARKER = {f"[{name}]".encode(): k for k, name in enumerate(SECTIONS, start=1)}
_KEY_INDEX = {k.encode(): i for i, k in enumerate((*STAT_KEYS, *IGNORED_KEYS))}
_LOG_HEADER_PREFIXES = (b"===", *(p.encode() for p in monitor_lines.HEADER_PREFIXES))


def _template(buf: np.ndarray, start: int, stop: int) -> list[tuple] | None:
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
        elif section == 1 and "top" not in seen and len(line) <= 8 * _TOP_WORDS:
            out.append(("top",))
            seen.add("top")
        elif section == 2:
            key, _, value = line.partition(b" ")
            k = _KEY_INDEX.get(key)
            if k is None or k in seen or not (value.isdigit() and 1 <= len(value) <= 18):
                return None
            out.append(("stat", k))
            seen.add(k)
        elif section == 3 and "max" not in seen and len(line) <= 8 * _MAX_WORDS:
            out.append(("max",))
            seen.add("max")
        elif section == 4 and "acct" not in seen and line.isdigit() and 1 <= len(line) <= 18:
            out.append(("acct",))
            seen.add("acct")
        else:
            return None
    return out


def _scan_template(buf: np.ndarray, words: Words, start: int, stop: int, tpl: list[tuple],
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
    if not ((hl >= 7) & (hl <= MAX_LINE) & ((h0 & _MASK4) == _OPEN) & ((h1 & _MASK4) == _CLOSE)).all():
        return None
    ok = np.ones(nb, dtype=bool)
    stat = np.zeros((_NK, nb), dtype=np.int64)
    stat_present = np.zeros((_NK, nb), dtype=bool)
    acct = np.zeros(nb, dtype=np.int64)
    acct_present = np.zeros(nb, dtype=bool)
    blocks = np.arange(nb, dtype=np.int64)
    max_rep = np.zeros((_MAX_WORDS + 1, 0), dtype=np.uint64)
    top_rep = np.zeros((_TOP_WORDS + 1, 0), dtype=np.uint64)
    max_id = top_id = max_block = top_block = np.zeros(0, dtype=np.int64)
    for r, spec in enumerate(tpl[1:], start=1):
        st = S[:, r] + start
        ln = E[:, r] - S[:, r]
        kind = spec[0]
        if kind == "blank":
            ok &= ln == 0
        elif kind == "marker":
            length, e0, e1, el = _MARKERS[spec[1] - 1]
            w0, w1 = words.at(st, 2)
            (wl,) = words.at(st + ln - 8)
            m = (ln == length) & (w0 == e0) & (wl == el)
            if length >= 16:
                m &= w1 == e1
            ok &= m
        elif kind == "tophead":
            (w0,) = words.at(st)
            ok &= (((w0 & _MASK4) == _POD) | ((w0 & _MASK5) == _NAME)) & (ln <= MAX_LINE)
        elif kind == "stat":
            k = spec[1]
            w0, w1 = words.at(st, 2)
            m = (w0 == _KPATT[0, k]) & ((w1 & _KMASK[1, k]) == _KPATT[1, k])
            if _KLEN[k] >= 16:
                w2, w3 = words.at(st + 16, 2)
                m &= ((w2 & _KMASK[2, k]) == _KPATT[2, k]) & ((w3 & _KMASK[3, k]) == _KPATT[3, k])
            value, vok = parse_digits(words, st + ln, ln - _KLEN[k] - 1)
            ok &= m & vok
            if k < _NK:
                stat[k] = value
                stat_present[k] = True
        elif kind == "acct":
            value, vok = parse_digits(words, st + ln, ln)
            ok &= vok
            acct, acct_present = value, np.ones(nb, dtype=bool)
        elif kind == "max":
            ok &= (ln >= 1) & (ln <= 8 * _MAX_WORDS)
            max_rep, max_id = distinct_columns(line_words(words, st, np.minimum(ln, 8 * _MAX_WORDS), _MAX_WORDS))
            max_block = blocks
        elif kind == "top":
            (w0,) = words.at(st)
            b0 = (w0 & np.uint64(0xFF)).astype(np.intp)
            b1 = ((w0 >> np.uint64(8)) & np.uint64(0xFF)).astype(np.intp)
            ok &= (ln >= 1) & (ln <= 8 * _TOP_WORDS) & ~monitor_lines.HEADER_PAIRS[b0, b1] & (b0 != 91) & ((w0 & _MASK4) != _OPEN)
            ok &= ~(((w0 & _MASK4) == _POD) | ((w0 & _MASK5) == _NAME))
            top_rep, top_id = distinct_columns(line_words(words, st, np.minimum(ln, 8 * _TOP_WORDS), _TOP_WORDS))
            top_block = blocks
    ts, ts_kind = plain_timestamps(np.stack(words.at(hs + 4, 4)), hl - 8)
    return Chunk(start, stop, len(starts), blocks * L, hs, hl, ts, ts_kind, ~ok, stat, stat_present, acct, acct_present,
                  max_block, max_id, max_rep, top_block, top_id, top_rep)


def line_words(words: Words, starts: np.ndarray, lens: np.ndarray, nw: int) -> np.ndarray:
    """(nw+1 x lines) array: each line's bytes as words (zero past its end), then
    its length.  Lines are at most ``8 * nw`` bytes long."""
    out = np.zeros((nw + 1, len(starts)), dtype=np.uint64)
    if len(starts) == 0:
        return out
    used = min(nw, int(-(-lens.max() // 8)))
    for j, w in enumerate(words.at(starts, used)):
        np.bitwise_and(w, _LINE_MASK[j].take(lens), out=out[j])
    out[nw] = lens
    return out


# _LINE_MASK[j, n]: the bytes of word j that belong to a line of n bytes.
_LINE_MASK = np.array([[(1 << (8 * min(max(n - 8 * j, 0), 8))) - 1 for n in range(8 * _TOP_WORDS + 1)]
                       for j in range(_TOP_WORDS)], dtype=np.uint64)


# --- chunking -------------------------------------------------------------------


NEWLINE = re.compile(rb"\n")
_NL_HEADER = re.compile(rb"\n--- ")


def _certain_header(mv: memoryview, size: int, q: int) -> bool:
    """Line starting at ``q`` is a block header both paths agree on: ``--- ... ---``,
    7 to MAX_LINE bytes (a CR before its newline dropped), ASCII, newline-terminated."""
    m = NEWLINE.search(mv, q, min(q + MAX_LINE + 2, size))
    if m is None:
        return False
    line = bytes(mv[q:m.start()])
    if line.endswith(b"\r"):
        line = line[:-1]
    return (7 <= len(line) <= MAX_LINE and line.startswith(b"--- ") and line.endswith(b" ---")
            and line.isascii() and b"\r" not in line)


def next_header(mv: memoryview, size: int, p: int) -> int:
    """Offset of the first certain block header starting at or after ``p`` (``size`` if none)."""
    if p <= 0:
        if _certain_header(mv, size, 0):
            return 0
        p = 1
    while True:
        m = _NL_HEADER.search(mv, p - 1, size)
        if m is None:
            return size
        if _certain_header(mv, size, m.start() + 1):
            return m.start() + 1
        p = m.start() + 2


def chunk_bounds(mv: memoryview, size: int, first: int, chunk_bytes: int) -> list[tuple[int, int]]:
    """Cut ``[first, size)`` into chunks of about ``chunk_bytes``, each starting at a certain block header."""
    bounds = [first]
    while bounds[-1] < size:
        bounds.append(next_header(mv, size, bounds[-1] + chunk_bytes))
    return list(zip(bounds[:-1], bounds[1:]))



def _hash_columns(cols: np.ndarray) -> np.ndarray:
    """One 64-bit hash per column of words (multiply-xorshift mixing)."""
    h = cols[0].copy()
    for j in range(1, len(cols)):
        h ^= h >> np.uint64(31)
        h *= np.uint64(0x9E3779B97F4A7C15)
        h += cols[j]
    h ^= h >> np.uint64(29)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(32)
    return h


def distinct_columns(cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns of ``cols`` (as :func:`line_words`) -> (the distinct columns, in
    order of first appearance; the distinct column of each column).

    Columns are hashed to one word and grouped by hash; the grouping is checked
    against the words themselves (a hash collision falls back to an exact
    grouping of the bytes).
    """
    n = cols.shape[1]
    if n == 0 or (cols == cols[:, :1]).all():
        return cols[:, :1], np.zeros(n, dtype=np.int64)
    h = _hash_columns(cols)
    uniq = np.unique(h)
    inv = np.searchsorted(uniq, h)
    first = np.empty(len(uniq), dtype=np.int64)
    first[inv[::-1]] = np.arange(n - 1, -1, -1)  # the last write wins: the first occurrence
    if not (cols[:, first[inv]] == cols).all():  # a collision: group the bytes exactly
        rows = np.ascontiguousarray(cols.T).view(np.dtype((np.void, len(cols) * 8))).ravel()
        _, first, inv = np.unique(rows, return_index=True, return_inverse=True)
        inv = inv.ravel()
    order = np.argsort(first)  # ids in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return cols[:, first[order]], rank[inv]
