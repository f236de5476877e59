"""Short lines as columns of 8-byte words, and their distinct values.

The chunk scan keeps cpu.max lines and kubectl top rows as words
(:func:`line_words`) and groups equal ones (:func:`distinct_columns`), so that
each distinct line is parsed once.
"""

from __future__ import annotations

import numpy as np

from throttlelab.ingest.byte_words import Words
from throttlelab.ingest.scan_patterns import TOP_WORDS

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
_LINE_MASK = np.array([[(1 << (8 * min(max(n - 8 * j, 0), 8))) - 1 for n in range(8 * TOP_WORDS + 1)]
                       for j in range(TOP_WORDS)], dtype=np.uint64)


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
