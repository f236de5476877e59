"""Bytes of a buffer read as little-endian words at any offset, and decimal numbers in them.

Numbers parsed from them, eight digits at a time ("SWAR"), with numpy.

Used by the fast path of the monitor-log reader (:mod:`.monitor_fast`): one
word load per 8 bytes of a line instead of a Python string per line.  Every
function here works on arrays of positions; nothing runs per line in Python.

A buffer given to :func:`word_views` must have :data:`PAD` zero bytes after
its data, so that a word loaded at any data position stays inside it.
"""

from __future__ import annotations

import numpy as np

#: Zero bytes a buffer needs after its data (a word at the last data byte, and 7 more words).
PAD = 64

_U = np.uint64
ALL = _U(0xFFFF_FFFF_FFFF_FFFF)
ZEROS = _U(0x3030_3030_3030_3030)  #: "00000000"
_ADD = _U(0x4646_4646_4646_4646)
_HIGH = _U(0x8080_8080_8080_8080)
NIBBLES = _U(0x0F0F_0F0F_0F0F_0F0F)  #: the digit values of "0".."9" bytes
_B8 = _U(8)
_B64 = _U(64)


def padded_copy(data: bytes, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
    """``data[start:stop]`` as a uint8 array followed by :data:`PAD` zero bytes
    (written into ``out`` when it is large enough, to reuse warm memory)."""
    size = stop - start
    if out is None or len(out) < size + PAD:
        out = np.empty(size + PAD, dtype=np.uint8)
    buf = out[: size + PAD]
    buf[:size] = np.frombuffer(data, dtype=np.uint8, count=size, offset=start)
    buf[size:] = 0
    return buf


def word_views(buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unaligned little-endian ``uint64`` and ``uint32`` views of ``buf`` with a
    stride of one byte: ``U64[i]`` is the 8 bytes starting at ``buf[i]``.

    Gathering from these is about 4 ns per element (numpy's slow path for
    unaligned data); :class:`Words` is faster for many loads.
    """
    u64 = np.ndarray((len(buf) - 7,), dtype="<u8", buffer=buf, offset=0, strides=(1,))
    u32 = np.ndarray((len(buf) - 3,), dtype="<u4", buffer=buf, offset=0, strides=(1,))
    return u64, u32


class Words:
    """Loads of consecutive 8-byte words at any byte offsets of an aligned buffer.

    ``at(pos, k)`` gathers the ``k + 1`` aligned words around each position
    (numpy's fast ``take``) and shifts the wanted bytes into place: about 2.5 ns
    per word instead of 4 for an unaligned gather.
    """

    def __init__(self, buf: np.ndarray):
        self.aligned = buf[: len(buf) // 8 * 8].view("<u8")

    def at(self, pos: np.ndarray, k: int = 1) -> list[np.ndarray]:
        """``[w_0, ..., w_{k-1}]``: ``w_j`` holds bytes ``pos + 8j`` to ``pos + 8j + 7``."""
        q = pos >> 3
        s = ((pos & 7) << 3).astype(np.uint64)
        r = _B64 - s  # a shift by 64 gives 0 in numpy
        a = [self.aligned.take(q + j) for j in range(k + 1)]
        out = []
        for j in range(k):
            w = a[j] >> s
            w |= a[j + 1] << r
            out.append(w)
        return out


def word(text: bytes) -> np.uint64:
    """The little-endian word of up to 8 bytes (missing bytes are zero)."""
    return _U(int.from_bytes(text[:8].ljust(8, b"\0"), "little"))


def low_bytes_mask(k: np.ndarray) -> np.ndarray:
    """Words whose low ``k`` bytes (the first ``k`` characters) are all ones; ``0 <= k <= 8``."""
    return ALL >> ((_B8 - k.astype(np.uint64)) * _B8)  # a shift by 64 gives 0 in numpy


def non_digits(w: np.ndarray) -> np.ndarray:
    """Per word, the high bit of every byte that is not an ASCII digit is set
    (0 when all 8 bytes are digits).  Exact for any bytes: a borrow or carry
    only ever spills from a byte that is flagged itself."""
    out = w + _ADD
    out |= w - ZEROS
    out &= _HIGH
    return out


def parse_digits(words: Words, end: np.ndarray, ndigits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The decimal numbers written in bytes ``[end - ndigits, end)``.

    Parameters
    ----------
    words
        The buffer's :class:`Words`.
    end
        Position just after each number's last digit.
    ndigits
        Length of each number; only 1 to 18 digits can be parsed (so the value
        always fits in int64), anything else is reported as not ok.

    Returns
    -------
    value, ok
        ``int64`` values, and whether all ``ndigits`` bytes were ASCII digits
        (with a count in range); ``value`` is meaningless where not ok.

    Notes
    -----
    The number is read in words of 8 bytes ending at ``end``; the bytes of a
    word before the number are replaced by ``'0'``, every byte is checked to be
    a digit, and the digits are combined pairwise with three multiplications
    (the well-known "eight digits at once" technique; numpy's uint64
    arithmetic wraps like C's).
    """
    ok = (ndigits >= 1) & (ndigits <= 18)
    n = len(ndigits)
    if n == 0:
        return np.zeros(0, dtype=np.int64), ok
    d = np.where(ok, ndigits, 0)
    dmax = int(d.max())
    nw = 1 + (dmax > 8) + (dmax > 16)
    loaded = words.at(end - 8 * nw, nw)  # most significant word first
    value = None
    bad = None
    for j in range(nw):
        w = loaded[nw - 1 - j]  # j = 0: the last 8 bytes
        w &= _KEEP[j].take(d)  # the word's digits; the bytes before the number ...
        w |= _PAD_ZEROS[j].take(d)  # ... become "0"
        b = non_digits(w)
        bad = b if bad is None else bad | b
        w &= NIBBLES
        w *= _U(2561)
        w >>= _B8
        w &= _U(0x00FF_00FF_00FF_00FF)
        w *= _U(6553601)
        w >>= _U(16)
        w &= _U(0x0000_FFFF_0000_FFFF)
        w *= _U(42949672960001)
        w >>= _U(32)
        if j:
            w *= _U(10 ** (8 * j))
            value += w
        else:
            value = w
    ok &= bad == 0
    return value.view(np.int64), ok


def _digit_masks():
    """Per word j (0: the last 8 bytes) and digit count d: the mask of the word's
    bytes that hold digits, and "0" bytes for the others."""
    keep = np.zeros((3, 19), dtype=np.uint64)
    for j in range(3):
        for d in range(19):
            k = min(max(d - 8 * j, 0), 8)  # digits in word j: its last k bytes
            keep[j, d] = ((1 << (8 * k)) - 1) << (8 * (8 - k)) if k else 0
    return keep, (ZEROS & ~keep)


_KEEP, _PAD_ZEROS = _digit_masks()
