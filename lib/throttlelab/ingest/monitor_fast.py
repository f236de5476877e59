"""Fast path of the monitor-log reader: well-formed blocks parsed from the bytes.

:func:`read_monitor_bytes` is what :func:`~.monitor_log.read_monitor_log` runs.
The file is cut into chunks of about :data:`CHUNK_BYTES` at block headers;
each chunk is scanned with numpy (newlines, first bytes, 8-byte words; see
:mod:`.byte_words`), on all cores (numpy releases the GIL), and its blocks are
sorted into

* **clean** blocks: every line is blank, a block header, a known section
  marker, a ``<known key> <1-18 digits>`` cpu.stat line, one cpuacct.usage
  line of digits, one short cpu.max line and at most one kubectl top row (both
  parsed once per distinct line, with the careful path's expressions), all
  ASCII, no line too long.  Their values are read straight from the bytes;
* everything else (the lines before the first block, blocks with any odd or
  bad line, several containers...), which goes, whole blocks at a time, through
  the careful line stage (:func:`~.monitor_log.line_stage`), so that every
  message, skip reason and value is the careful path's.

Both feed the same block stage (:func:`~.monitor_log.assemble`): the result is
the same as :func:`~.monitor_log.parse_monitor_lines` on the whole file (the
tests check this on a corpus of bad input).
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import polars as pl

from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest import monitor_log as ml
from throttlelab.ingest.byte_words import _ADD, _HIGH, _NIBBLES, _ZEROS, PAD, Words, parse_digits, word
from throttlelab.ingest.malloc_tuning import reuse_freed_memory
from throttlelab.ingest.monitor_format import SECTIONS
from throttlelab.ingest.result import IngestResult

#: Target size of a chunk scanned at once (small enough for its arrays to stay in cache).
CHUNK_BYTES = 2 << 20
#: Inputs from this size on are parsed with :func:`.malloc_tuning.reuse_freed_memory`.
BIG_INPUT = 4 << 20
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
    """cpu.stat keys (:data:`~.monitor_log.STAT_KEYS` then the ignored ones) as
    word patterns, and a perfect hash of their first 8 bytes."""
    keys = [k.encode() for k in (*ml.STAT_KEYS, *ml.IGNORED_KEYS)]
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
_NK = len(ml.STAT_KEYS)
_NKALL = len(ml.STAT_KEYS) + len(ml.IGNORED_KEYS)


@dataclass
class _Chunk:
    """What one chunk's scan found (block and line indices local to the chunk;
    byte positions global)."""

    start: int  # byte offset of the chunk in the file
    stop: int
    n_lines: int
    hdr_line: np.ndarray  # block header line of each block
    hdr_byte: np.ndarray  # its byte offset
    hdr_len: np.ndarray  # its length
    ts_words: np.ndarray  # (4 x block) the 32 bytes after "--- "
    unclean: np.ndarray  # block needs the careful path
    stat: np.ndarray  # (key x block)
    stat_present: np.ndarray
    acct: np.ndarray
    acct_present: np.ndarray
    max_block: np.ndarray  # block of each cpu.max line
    max_id: np.ndarray  # its row in max_words
    max_words: np.ndarray  # distinct cpu.max lines (see _line_words)
    top_block: np.ndarray
    top_id: np.ndarray
    top_words: np.ndarray


def _scan(buf: np.ndarray, words: Words, start: int, stop: int, truncated: bool) -> _Chunk:
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
    assert nb and hdr[0] == 0, "a chunk starts with a block header"

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
    max_rep, max_id = _distinct(_line_words(words, starts[i3], lens[i3], _MAX_WORDS))
    i1 = np.flatnonzero(kind == 1)
    (w0,) = words.at(starts[i1])
    head = ((w0 & _MASK4) == _POD) | ((w0 & _MASK5) == _NAME)
    i1 = i1[~head]
    b1 = ((w0[~head] >> np.uint64(8)) & np.uint64(0xFF)).astype(np.intp)
    bad.append(i1[ml._HEADER_PAIRS[b0[i1], b1] | (lens[i1] > 8 * _TOP_WORDS)])
    i1 = i1[lens[i1] <= 8 * _TOP_WORDS]
    top_rep, top_id = _distinct(_line_words(words, starts[i1], lens[i1], _TOP_WORDS))

    bad_lines = np.concatenate(bad)
    if len(bad_lines):
        unclean[blk[bad_lines]] = True
    ts_words = np.stack(words.at(starts[hdr] + 4, 4))
    return _Chunk(start, stop, n, hdr, starts[hdr], lens[hdr], ts_words, unclean, stat, stat_present, acct, acct_present,
                  blk[i3], max_id, max_rep, blk[i1], top_id, top_rep)


# --- chunks of blocks that all look alike ---------------------------------------------

_SECTION_OF_MARKER = {f"[{name}]".encode(): k for k, name in enumerate(SECTIONS, start=1)}
_KEY_INDEX = {k.encode(): i for i, k in enumerate((*ml.STAT_KEYS, *ml.IGNORED_KEYS))}
_LOG_HEADER_PREFIXES = (b"===", *(p.encode() for p in ml._HEADER_PREFIXES))


def _template(buf: np.ndarray, start: int, stop: int) -> list[tuple] | None:
    """The line layout of the chunk's first block, if every line of it is one the
    fast path takes: ``[("hdr",), ("marker", k), ("blank",), ("tophead",),
    ("top",), ("stat", key), ("max",), ("acct",), ...]``; else ``None``."""
    second = _next_header(memoryview(buf), stop, start + 1)
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
                   starts: np.ndarray, ends: np.ndarray) -> _Chunk | None:
    """:func:`_scan` for a chunk whose blocks all have the layout ``tpl``: each
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
            max_rep, max_id = _distinct(_line_words(words, st, np.minimum(ln, 8 * _MAX_WORDS), _MAX_WORDS))
            max_block = blocks
        elif kind == "top":
            (w0,) = words.at(st)
            b0 = (w0 & np.uint64(0xFF)).astype(np.intp)
            b1 = ((w0 >> np.uint64(8)) & np.uint64(0xFF)).astype(np.intp)
            ok &= (ln >= 1) & (ln <= 8 * _TOP_WORDS) & ~ml._HEADER_PAIRS[b0, b1] & (b0 != 91) & ((w0 & _MASK4) != _OPEN)
            ok &= ~(((w0 & _MASK4) == _POD) | ((w0 & _MASK5) == _NAME))
            top_rep, top_id = _distinct(_line_words(words, st, np.minimum(ln, 8 * _TOP_WORDS), _TOP_WORDS))
            top_block = blocks
    ts_words = np.stack(words.at(hs + 4, 4))
    return _Chunk(start, stop, len(starts), blocks * L, hs, hl, ts_words, ~ok, stat, stat_present, acct, acct_present,
                  max_block, max_id, max_rep, top_block, top_id, top_rep)


def _line_words(words: Words, starts: np.ndarray, lens: np.ndarray, nw: int) -> np.ndarray:
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


def _ts_forms():
    """Per timestamp length: the plain forms as (digit, literal, literal value) masks of 4 words."""
    forms = {19: "dddd-dd-dd dd:dd:dd", 23: "dddd-dd-dd dd:dd:dd.ddd", 26: "dddd-dd-dd dd:dd:dd.dddddd"}
    forms.update({k + 1: v + "Z" for k, v in forms.items()})
    form_of_len = np.zeros(41, dtype=np.int64)
    dig = np.zeros((len(forms) + 1, 4), dtype=np.uint64)
    lit = np.zeros((len(forms) + 1, 4), dtype=np.uint64)
    val = np.zeros((len(forms) + 1, 4), dtype=np.uint64)
    utc = np.zeros(len(forms) + 1, dtype=bool)
    for f, (length, form) in enumerate(sorted(forms.items()), start=1):
        form_of_len[length] = f
        utc[f] = form.endswith("Z")
        for j in range(4):
            part = form[8 * j: 8 * j + 8]
            dig[f, j] = word(bytes(0xFF if ch == "d" else 0 for ch in part))
            lit[f, j] = word(bytes(0 if ch == "d" else 0xFF for ch in part))
            val[f, j] = word(bytes(0 if ch == "d" else ord(ch) for ch in part))
    return form_of_len, dig, lit, val, utc


_TS_FORM_OF_LEN, _TS_DIG, _TS_LIT, _TS_VAL, _TS_UTC = _ts_forms()
_CUM_DAYS = np.array([0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334], dtype=np.int64)
_MONTH_DAYS = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)


def _timestamps(ts_words: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``YYYY-MM-DD HH:MM:SS`` with an optional fraction of 3 or 6 digits and an
    optional ``Z``, from the 4 words after ``"--- "`` and the timestamp's length:
    (microseconds, kind: 0 UTC, 1 naive, 2 another form or an invalid date, for
    polars to decide)."""
    form = _TS_FORM_OF_LEN[np.clip(length, 0, 40)]
    ok = form > 0
    bad = np.zeros(len(length), dtype=np.uint64)
    digits = []
    uniform = len(form) and (form == form[0]).all()  # one form in the whole log: scalars, not gathers

    def table(t: np.ndarray, j: int):
        return t[form[0], j] if uniform else t[:, j].take(form)

    for j in range(4):
        w = ts_words[j].copy()
        ok &= (w & table(_TS_LIT, j)) == table(_TS_VAL, j)
        dm = table(_TS_DIG, j)
        w &= dm
        w |= _ZEROS & ~dm
        bad |= ((w + _ADD) | (w - _ZEROS)) & _HIGH
        digits.append(w & _NIBBLES)
    ok &= bad == 0
    a, b, c_, d = digits

    def at(w: np.ndarray, k: int) -> np.ndarray:
        return ((w >> np.uint64(8 * k)) & np.uint64(0xFF)).view(np.int64)

    y = at(a, 0) * 1000 + at(a, 1) * 100 + at(a, 2) * 10 + at(a, 3)
    mo = at(a, 5) * 10 + at(a, 6)
    day = at(b, 0) * 10 + at(b, 1)
    hh, mi, ss = at(b, 3) * 10 + at(b, 4), at(b, 6) * 10 + at(b, 7), at(c_, 1) * 10 + at(c_, 2)
    frac = at(c_, 4) * 100000 + at(c_, 5) * 10000 + at(c_, 6) * 1000 + at(c_, 7) * 100 + at(d, 0) * 10 + at(d, 1)
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    mo_c = np.clip(mo, 1, 12)
    ok &= (y >= 1000) & (mo >= 1) & (mo <= 12) & (day >= 1) & (day <= _MONTH_DAYS.take(mo_c) + (leap & (mo_c == 2)))
    ok &= (hh <= 23) & (mi <= 59) & (ss <= 59)
    yp = y - 1  # days since 1970-01-01, proleptic Gregorian
    days = yp * 365 + yp // 4 - yp // 100 + yp // 400 + _CUM_DAYS.take(mo_c) + (leap & (mo_c > 2)) + day - 1 - 719162
    us = (days * 86400 + hh * 3600 + mi * 60 + ss) * 1_000_000 + frac
    kind = np.where(ok, np.where(_TS_UTC.take(form), 0, 1), 2).astype(np.uint8)
    return np.where(ok, us, 0), kind


# --- chunking -------------------------------------------------------------------


_NL = re.compile(rb"\n")
_NL_HEADER = re.compile(rb"\n--- ")


def _certain_header(mv: memoryview, size: int, q: int) -> bool:
    """Line starting at ``q`` is a block header both paths agree on: ``--- ... ---``,
    7 to MAX_LINE bytes (a CR before its newline dropped), ASCII, newline-terminated."""
    m = _NL.search(mv, q, min(q + MAX_LINE + 2, size))
    if m is None:
        return False
    line = bytes(mv[q:m.start()])
    if line.endswith(b"\r"):
        line = line[:-1]
    return (7 <= len(line) <= MAX_LINE and line.startswith(b"--- ") and line.endswith(b" ---")
            and line.isascii() and b"\r" not in line)


def _next_header(mv: memoryview, size: int, p: int) -> int:
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


def _chunk_bounds(mv: memoryview, size: int, first: int) -> list[tuple[int, int]]:
    bounds = [first]
    while bounds[-1] < size:
        bounds.append(_next_header(mv, size, bounds[-1] + CHUNK_BYTES))
    return list(zip(bounds[:-1], bounds[1:]))


# --- the whole file -----------------------------------------------------------------


def read_monitor_file(path, *, strict: bool = False, tz: str = "UTC") -> IngestResult:
    """Read a monitor log file (see :func:`~.monitor_log.read_monitor_log`)."""
    buf, size = lines_mod.read_padded(path, PAD)
    return read_monitor_buffer(buf, size, str(path), strict=strict, tz=tz)


def read_monitor_bytes(data: bytes, source: str, *, strict: bool = False, tz: str = "UTC") -> IngestResult:
    """Parse a monitor log held in memory (see :func:`~.monitor_log.read_monitor_log`)."""
    buf, size = lines_mod.read_padded_bytes(data, PAD)
    return read_monitor_buffer(buf, size, source, strict=strict, tz=tz)


def read_monitor_buffer(buf: np.ndarray, size: int, source: str, *, strict: bool = False, tz: str = "UTC",
                        workers: int | None = None) -> IngestResult:
    """Parse the monitor log in ``buf[:size]`` (followed by :data:`~.byte_words.PAD` zero bytes)."""
    if size == 0:
        return ml._empty_result(source, strict)
    mv = memoryview(buf)
    binary = bool((buf[: lines_mod.BINARY_SNIFF_BYTES if size > lines_mod.BINARY_SNIFF_BYTES else size] == 0).any())
    first = size if binary else _next_header(mv, size, 0)
    if first >= size:  # binary, or no block a fast scan could take: all careful
        return ml.parse_monitor_lines(lines_mod.split_lines(buf[:size].tobytes(), source), strict=strict, tz=tz)
    truncated = buf[size - 1] != 10
    bounds = _chunk_bounds(mv, size, first)
    workers = workers or min(os.cpu_count() or 1, 8)
    words = Words(buf)

    def scan(b: tuple[int, int]) -> _Chunk:
        return _scan(buf, words, b[0], b[1], truncated and b[1] == size)

    with reuse_freed_memory(size >= BIG_INPUT):
        if workers > 1 and len(bounds) > 1:
            with ThreadPoolExecutor(workers) as ex:
                chunks = list(ex.map(scan, bounds))
                return _combine(buf, words, size, source, first, chunks, strict, tz, ex.submit)
        return _combine(buf, words, size, source, first, [scan(b) for b in bounds], strict, tz, _Done)


class _Done:
    """``submit`` without threads: runs the function now."""

    def __init__(self, fn, *args):
        self.value = fn(*args)

    def result(self):
        return self.value


def _combine(buf: np.ndarray, words: Words, size: int, source: str, first: int, chunks: list[_Chunk], strict: bool,
             tz: str, submit) -> IngestResult:
    pre_lines = int(np.count_nonzero(buf[:first] == 10))
    line0 = np.cumsum([pre_lines] + [c.n_lines for c in chunks])
    n = int(line0[-1])
    cat = lambda f: np.concatenate([getattr(c, f) for c in chunks])  # noqa: E731
    boff = np.cumsum([0] + [len(c.hdr_line) for c in chunks])
    nb = int(boff[-1])

    # Independent work, on all cores: timestamps (in two halves), distinct
    # cpu.max lines and kubectl top rows.
    byte, hlen = cat("hdr_byte"), cat("hdr_len")
    half = nb // 2
    ts_words = np.concatenate([c.ts_words for c in chunks], axis=1)
    ts_parts = [submit(_batched, _timestamps, a, b, ts_words, hlen - 8) for a, b in ((0, half), (half, nb))]
    max_job = submit(_parse_lines, _parse_max, chunks, "max")
    top_job = submit(_parse_lines, _parse_top, chunks, "top")

    line = np.concatenate([c.hdr_line + line0[i] for i, c in enumerate(chunks)])
    unclean = cat("unclean")
    stat = np.concatenate([c.stat for c in chunks], axis=1)
    stat_present = np.concatenate([c.stat_present for c in chunks], axis=1)
    acct, acct_present = cat("acct"), cat("acct_present")

    # cpu.max: one good line per clean block.
    mb = np.concatenate([c.max_block + boff[i] for i, c in enumerate(chunks)])
    quota = np.zeros(nb, dtype=np.int64)
    period = np.zeros(nb, dtype=np.int64)
    max_present = np.zeros(nb, dtype=bool)
    if len(mb):
        q, per, bad = max_job.result()
        unclean[mb[bad]] = True
        if len(mb) > 1:
            unclean[mb[1:][mb[1:] == mb[:-1]]] = True
        quota[mb], period[mb] = q, per
        max_present[mb] = True

    # kubectl top: at most one row per clean block (several containers: careful path).
    tb = np.concatenate([c.top_block + boff[i] for i, c in enumerate(chunks)])
    top = None
    if len(tb):
        rows, ids, bad = top_job.result()
        unclean[tb[bad]] = True
        if len(tb) > 1:
            unclean[tb[1:][tb[1:] == tb[:-1]]] = True
        slot = np.full(nb, -1, dtype=np.int64)
        slot[tb] = ids
        have = slot >= 0
        top = {k: rows[k].gather(np.maximum(slot, 0)).scatter(np.flatnonzero(~have), None) for k in ml._TOP_DTYPES}
    ts_parts = [f.result() for f in ts_parts]
    ts = np.concatenate([t for t, _ in ts_parts])
    ts_kind = np.concatenate([k for _, k in ts_parts])

    # Timestamps that are not in the plain forms, and naive ones in another zone.
    ts_ok = ts_kind < 2
    other = np.flatnonzero((ts_kind == 2) & ~unclean)
    if len(other):
        texts = [_header_text(buf, size, int(p)) for p in byte[other]]
        parsed = ml.parse_timestamps(pl.Series(texts, dtype=pl.String), tz)
        ts[other] = parsed.cast(pl.Int64).fill_null(0).to_numpy()
        ts_ok[other] = parsed.is_not_null().to_numpy()
    naive = np.flatnonzero((ts_kind == 1) & ~unclean)
    if tz != "UTC" and len(naive):
        local = pl.Series(ts[naive]).cast(pl.Datetime("us")).dt.replace_time_zone(
            tz, ambiguous="earliest", non_existent="null").dt.convert_time_zone("UTC")
        ts[naive] = local.cast(pl.Int64).fill_null(0).to_numpy()
        ts_ok[naive] = local.is_not_null().to_numpy()

    clean = slice(None) if not unclean.any() else ~unclean  # a slice: no copies
    fast = ml.Blocks(
        line=line[clean], ts=ts[clean], ts_ok=ts_ok[clean], stat=stat[:, clean], stat_present=stat_present[:, clean],
        quota=quota[clean], period=period[clean], max_present=max_present[clean],
        acct=acct[clean], acct_present=acct_present[clean],
        top=None if top is None else {k: v if isinstance(clean, slice) else v.filter(pl.Series(clean))
                                      for k, v in top.items()},
    )

    # The careful path: the preamble and the unclean blocks, as one text.
    bad_b = np.flatnonzero(unclean)
    b_end_byte = np.append(byte[1:], size)
    b_end_line = np.append(line[1:], n)
    r_byte = [(0, first)] if first else []
    r_line = [(0, pre_lines)] if first else []
    if len(bad_b):
        # merge runs of consecutive unclean blocks
        brk = np.flatnonzero(np.diff(bad_b) != 1) + 1
        run_first = bad_b[np.concatenate([[0], brk])]
        run_last = bad_b[np.concatenate([brk - 1, [len(bad_b) - 1]])]
        r_byte += list(zip(byte[run_first].tolist(), b_end_byte[run_last].tolist()))
        r_line += list(zip(line[run_first].tolist(), b_end_line[run_last].tolist()))
    rc = np.zeros(n, dtype=np.uint8)
    parts = [fast]
    headers = (np.zeros(0, np.int64), pl.Series("t", [], dtype=pl.String))
    sub_text = None
    gmap = np.zeros(0, dtype=np.int64)
    if r_byte:
        sub = lines_mod.split_lines(b"".join(buf[a:b].tobytes() for a, b in r_byte), source, binary=False)
        gmap = ml._ranges(np.array([a for a, _ in r_line]), np.array([b for _, b in r_line]))
        assert len(gmap) == len(sub), (len(gmap), len(sub))
        sub_rc, sub_blocks, (h_idx, h_text) = ml.line_stage(sub, tz)
        rc[gmap] = sub_rc
        sub_blocks.line = gmap[sub_blocks.line]
        parts.append(sub_blocks)
        headers = (gmap[h_idx], h_text)
        sub_text = sub.text
    blocks = ml.Blocks.concat(parts)
    line_text = _LineText(buf, chunks, line0, gmap, sub_text)
    return ml.assemble(source, n, rc, blocks, headers, line_text, strict)


def _header_text(buf: np.ndarray, size: int, p: int) -> str:
    line = bytes(buf[p: _NL.search(memoryview(buf), p, size).start()])
    return (line[:-1] if line.endswith(b"\r") else line)[4:-4].decode("ascii")


class _LineText:
    """Line ``j``'s text for messages: from the careful part, else decoded from the bytes."""

    def __init__(self, data, chunks, line0, gmap, sub_text):
        self.data, self.chunks, self.line0, self.gmap, self.sub_text = data, chunks, line0, gmap, sub_text

    def __call__(self, j: int) -> str | None:
        k = np.searchsorted(self.gmap, j)
        if k < len(self.gmap) and self.gmap[k] == j:
            return self.sub_text[int(k)]
        i = int(np.searchsorted(self.line0, j, side="right")) - 1
        c = self.chunks[i]
        seg = self.data[c.start:c.stop].tobytes()
        ends = np.flatnonzero(np.frombuffer(seg, dtype=np.uint8) == 10)
        r = j - int(self.line0[i])
        a = 0 if r == 0 else int(ends[r - 1]) + 1
        b = int(ends[r]) if r < len(ends) else len(seg)
        text = seg[a:b].decode("utf-8", "replace")
        text = text[:-1] if text.endswith("\r") else text
        return text or None


def _batched(fn, start: int, stop: int, words: np.ndarray, length: np.ndarray, size: int = 1 << 16):
    """``fn(words[:, a:b], length[a:b])`` over ``[start, stop)`` in batches of ``size``
    (arrays of a few hundred KB: in cache, and reused by malloc), results concatenated."""
    parts = [fn(words[:, a: min(a + size, stop)], length[a: min(a + size, stop)]) for a in range(start, stop, size)]
    if not parts:
        return fn(words[:, start:stop], length[start:stop])
    return tuple(np.concatenate(x) for x in zip(*parts))


def _parse_lines(parse, chunks: list[_Chunk], field: str):
    """Parse the distinct lines of all chunks (``field``: ``"max"`` or ``"top"``) once:
    ``parse(words)`` -> per distinct line results; returns them per line of every chunk."""
    reps = [getattr(c, field + "_words") for c in chunks]
    offset = np.cumsum([0] + [r.shape[1] for r in reps])
    rows, inv = _distinct(np.concatenate(reps, axis=1))
    line_ids = inv[np.concatenate([getattr(c, field + "_id") + offset[i] for i, c in enumerate(chunks)])]
    return parse(rows, line_ids)


def _parse_max(words: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct cpu.max lines (as :func:`_line_words`) -> per line (``ids``) quota, period, bad."""
    if len(ids) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, bool)
    parsed = pl.DataFrame({"t": _texts(words)}).select(**ml._cpu_max_expr(pl.col("t")))
    bad = (parsed["quota"].is_null() | parsed["period"].is_null()).to_numpy()[ids]
    return parsed["quota"].fill_null(0).to_numpy()[ids], parsed["period"].fill_null(0).to_numpy()[ids], bad


def _parse_top(words: np.ndarray, ids: np.ndarray) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    """Distinct kubectl top rows (as :func:`_line_words`) -> (rows parsed, ``ids``, bad per line)."""
    if len(ids) == 0:
        return None, ids, np.zeros(0, bool)
    rows = ml._top_rows(_texts(words))
    return rows, ids, (rows["cpu"].is_null() | rows["mem"].is_null()).to_numpy()[ids]


def _distinct(cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns of ``cols`` (as :func:`_line_words`) -> (the distinct columns, in
    order of first appearance; the distinct column of each column).

    Columns are hashed to one word and grouped by hash; the grouping is checked
    against the words themselves (a hash collision falls back to an exact
    grouping of the bytes).
    """
    n = cols.shape[1]
    if n == 0 or (cols == cols[:, :1]).all():
        return cols[:, :1], np.zeros(n, dtype=np.int64)
    h = cols[0].copy()
    for j in range(1, len(cols)):
        h ^= h >> np.uint64(31)
        h *= np.uint64(0x9E3779B97F4A7C15)
        h += cols[j]
    h ^= h >> np.uint64(29)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(32)
    _, first, inv = np.unique(h, return_index=True, return_inverse=True)
    inv = inv.ravel()
    if not (cols[:, first[inv]] == cols).all():  # a collision: group the bytes exactly
        rows = np.ascontiguousarray(cols.T).view(np.dtype((np.void, len(cols) * 8))).ravel()
        _, first, inv = np.unique(rows, return_index=True, return_inverse=True)
        inv = inv.ravel()
    order = np.argsort(first)  # ids in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return cols[:, first[order]], rank[inv]


def _texts(cols: np.ndarray) -> pl.Series:
    """The lines held in columns of words + length (see :func:`_line_words`)."""
    lens = cols[-1].astype(np.int64)
    raw = np.ascontiguousarray(cols[:-1].T).astype("<u8").tobytes()
    w = (len(cols) - 1) * 8
    return pl.Series("t", [raw[i * w: i * w + int(k)].decode("utf-8", "replace") for i, k in enumerate(lens)], dtype=pl.String)
