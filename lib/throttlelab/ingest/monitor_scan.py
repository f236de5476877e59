"""Scan one chunk of a monitor log with numpy (the fast path's per-line work).

A chunk is a run of whole blocks starting at a block header both paths agree
on (:func:`.monitor_chunks.next_header`).  :func:`scan_chunk` finds its lines (newlines),
classifies them, checks each against what the careful path would accept, and
reads the values of the blocks where every line passes ("clean" blocks) from
8-byte words (:mod:`.byte_words`).  When all blocks of a chunk share the first
block's layout, which is the usual case, each line position is checked across
all blocks at once (:func:`.uniform_chunk_scan.scan_uniform_chunk`);
otherwise each line is classified by the section it is in (the general scan,
this module's job).  The byte patterns matched are :mod:`.scan_patterns`.

The results are per-block arrays (:class:`.monitor_chunks.Chunk`); the distinct cpu.max lines
and kubectl top rows are kept as words (:mod:`.distinct_lines`), to be parsed
once per distinct line.
"""

from __future__ import annotations

import numpy as np

from throttlelab.ingest import monitor_lines
from throttlelab.ingest.block_timestamps import plain_timestamps
from throttlelab.ingest.byte_words import Words, parse_digits
from throttlelab.ingest.distinct_lines import distinct_columns, line_words
from throttlelab.ingest.monitor_chunks import Chunk
from throttlelab.ingest.scan_patterns import (
    CLOSE, KALT, KLEN, KMAGIC, KMASK, KPATT, KSLOT, MARKERS, MASK4, MASK5, MAX_LINE, MAX_WORDS, NAME, NK, NKALL, OPEN,
    POD, TOP_WORDS,
)
from throttlelab.ingest.uniform_chunk_scan import first_block_layout, scan_uniform_chunk


def scan_chunk(buf: np.ndarray, words: Words, start: int, stop: int, truncated: bool) -> Chunk:
    """Scan ``buf[start:stop]``, which starts with a block header line (see :func:`.monitor_chunks.next_header`)."""
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
        tpl = first_block_layout(buf, start, stop)
        if tpl is not None and n % len(tpl) == 0:
            chunk = scan_uniform_chunk(buf, words, start, stop, tpl, starts, ends)
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
    ok = ((he - hs >= 7) & (he - hs <= MAX_LINE) & ((h0 & MASK4) == OPEN) & ((h1 & MASK4) == CLOSE))
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
    for k, (length, e0, e1, el) in enumerate(MARKERS, start=1):
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
    cand = KSLOT[(w0 * KMAGIC) >> np.uint64(58)]
    prefix = KPATT[0].take(cand) == w0
    good = prefix & ((w1 & KMASK[1].take(cand)) == KPATT[1].take(cand))
    retry = np.flatnonzero(prefix & ~good & (KALT[cand] >= 0))
    while len(retry):  # keys sharing their first 8 bytes
        cand[retry] = KALT[cand[retry]]
        g = (w1[retry] & KMASK[1, cand[retry]]) == KPATT[1, cand[retry]]
        good[retry[g]] = True
        retry = retry[~g & (KALT[cand[retry]] >= 0)]
    klen = KLEN[cand]
    long_ = np.flatnonzero(good & (klen >= 16))
    if len(long_):
        w2, w3 = words.at(st[long_] + 16, 2)
        cl = cand[long_]
        good[long_[((w2 & KMASK[2, cl]) != KPATT[2, cl]) | ((w3 & KMASK[3, cl]) != KPATT[3, cl])]] = False
    value, vok = parse_digits(words, en, en - st - klen - 1)
    good &= vok
    bad.append(i2[~good])
    b2, key, value = blk[i2[good]], cand[good], value[good]
    flat = key * nb + b2
    seen = np.zeros(NKALL * nb, dtype=bool)
    seen[flat] = True
    if np.count_nonzero(seen) < len(flat):  # a key repeated in a block
        unclean |= np.bincount(b2, minlength=nb) > seen.reshape(NKALL, nb).sum(axis=0)
    stat = np.zeros(NKALL * nb, dtype=np.int64)
    stat[flat] = value
    stat = stat[: NK * nb].reshape(NK, nb)  # the ignored keys are dropped
    stat_present = seen[: NK * nb].reshape(NK, nb)

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
    bad.append(i3[lens[i3] > 8 * MAX_WORDS])
    i3 = i3[lens[i3] <= 8 * MAX_WORDS]
    max_rep, max_id = distinct_columns(line_words(words, starts[i3], lens[i3], MAX_WORDS))
    i1 = np.flatnonzero(kind == 1)
    (w0,) = words.at(starts[i1])
    head = ((w0 & MASK4) == POD) | ((w0 & MASK5) == NAME)
    i1 = i1[~head]
    b1 = ((w0[~head] >> np.uint64(8)) & np.uint64(0xFF)).astype(np.intp)
    bad.append(i1[monitor_lines.HEADER_PAIRS[b0[i1], b1] | (lens[i1] > 8 * TOP_WORDS)])
    i1 = i1[lens[i1] <= 8 * TOP_WORDS]
    top_rep, top_id = distinct_columns(line_words(words, starts[i1], lens[i1], TOP_WORDS))

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
                 np.zeros((NK, 1), dtype=np.int64), np.zeros((NK, 1), dtype=bool), z, np.zeros(1, dtype=bool),
                 e, e, np.zeros((MAX_WORDS + 1, 0), dtype=np.uint64), e, e, np.zeros((TOP_WORDS + 1, 0), dtype=np.uint64))
