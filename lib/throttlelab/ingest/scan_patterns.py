"""Byte patterns the monitor-log chunk scan matches, as 8-byte words (:mod:`.byte_words`).

Block header and kubectl top header words, the section markers, line-length
limits in words, and the cpu.stat keys (:data:`~.monitor_blocks.STAT_KEYS` then
the ignored ones) as word patterns with a perfect hash of their first 8 bytes.
Shared by the general scan (:mod:`.monitor_scan`) and the scan of uniform
chunks (:mod:`.uniform_chunk_scan`).
"""

from __future__ import annotations

import numpy as np

from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.byte_words import word
from throttlelab.ingest.monitor_blocks import IGNORED_KEYS, STAT_KEYS
from throttlelab.ingest.monitor_format import SECTIONS

MAX_LINE = lines_mod.MAX_LINE_BYTES
OPEN = word(b"--- ")
CLOSE = word(b" ---")
POD = word(b"POD ")
NAME = word(b"NAME ")
MASK4 = np.uint64(0xFFFF_FFFF)
MASK5 = np.uint64(0xFF_FFFF_FFFF)
MAX_WORDS = 3  # cpu.max lines up to 24 bytes
TOP_WORDS = 8  # kubectl top rows up to 64 bytes

# Section markers: (length, first word, second word, last word).
MARKERS = [(len(m), word(m), word(m[8:16]), word(m[-8:])) for m in (f"[{s}]".encode() for s in SECTIONS)]


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


KPATT, KMASK, KLEN, KALT, KMAGIC, KSLOT = _key_table()
NK = len(STAT_KEYS)
NKALL = len(STAT_KEYS) + len(IGNORED_KEYS)
