"""Monitor-log chunks: where the file is cut, and what the scan of one chunk finds.

The file is cut at block headers both paths agree on; :class:`Chunk` holds a scan's findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from throttlelab.ingest.scan_patterns import MAX_LINE


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
