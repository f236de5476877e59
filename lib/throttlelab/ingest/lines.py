"""Read a text file into a polars frame of lines, fast and without losing any.

The file is read as bytes once; polars' multi-threaded CSV reader splits it into
lines (one column, a separator that is not in the file, no quoting), which is
several times faster than splitting in Python.  Problems that concern the whole
file or single lines are found here, vectorised:

* missing file, directory, unreadable file: :class:`~throttlelab.errors.InputError`;
* a NUL byte in the first 8000 bytes: a binary file (every line skipped);
* bytes that are not UTF-8: those lines are flagged (decoded lossily, U+FFFD);
* a line longer than :data:`MAX_LINE_BYTES`: flagged;
* a last line without its newline (a log cut while being written): flagged;
* CRLF line ends: accepted (the CR is dropped).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from throttlelab.errors import InputError

#: Lines longer than this (bytes) are skipped as "line too long".
MAX_LINE_BYTES = 64 * 1024
#: How far to look for a NUL byte to call a file binary (as git does).
BINARY_SNIFF_BYTES = 8000

# Line-level reasons found here (keys of the skip report).
BINARY = "binary file"
NON_UTF8 = "non-UTF-8 bytes"
TOO_LONG = "line too long"
TRUNCATED = "truncated last line (no newline)"

_SEP = "\x1f"  # unit separator: the CSV reader's column separator


@dataclass(frozen=True)
class Lines:
    """The lines of one file.

    Attributes
    ----------
    path
        The file, as given.
    text
        ``pl.String`` Series, one value per line, CR of CRLF dropped; an empty
        line is ``null``.  Line ``i`` (1-based) is ``text[i - 1]``.
    binary
        The file looks binary (NUL bytes near its start).
    ascii
        Every byte is ASCII (so no line can hold bad UTF-8).
    truncated
        The last line has no newline.
    data
        The file's bytes (kept to look at line starts with numpy).
    """

    path: str
    text: pl.Series
    binary: bool = False
    ascii: bool = True
    truncated: bool = False
    data: bytes = b""
    line_starts: np.ndarray | None = None
    line_lengths: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.text)

    def lengths(self) -> np.ndarray:
        """Byte length of each line (0 for an empty line), as a numpy array."""
        if self.line_lengths is not None:
            return self.line_lengths
        return self.text.str.len_bytes().fill_null(0).to_numpy()

    def starts(self) -> np.ndarray:
        """Byte offset in :attr:`data` where each line starts."""
        if self.line_starts is not None:
            return self.line_starts
        return _starts_from_newlines(self.data, len(self.text))

    def first_bytes(self, k: int = 2) -> list[np.ndarray]:
        """The first ``k`` bytes of each line, from :attr:`data`.

        Past the end of a line this is its newline (or CR, or the next line's
        first byte for an empty line): only compare with bytes that cannot end
        a line.
        """
        arr = np.frombuffer(self.data, dtype=np.uint8)
        starts = self.starts()
        if len(arr) == 0 or len(starts) == 0:
            return [np.zeros(len(starts), np.uint8) for _ in range(k)]
        out = [arr[starts]]  # every line starts inside the data
        for j in range(1, k):
            pos = starts + j
            np.minimum(pos, len(arr) - 1, out=pos)
            out.append(arr[pos])
        return out

    def problem_codes(self, lengths: np.ndarray) -> np.ndarray:
        """Per line, the index in :data:`LINE_REASONS` of its file-level problem (0 = none)."""
        n = len(self.text)
        codes = np.zeros(n, dtype=np.uint8)
        if self.binary:
            codes[:] = 1
            return codes
        if not self.ascii:
            bad = self.text.str.contains("\ufffd", literal=True).fill_null(False).to_numpy()
            codes[bad] = 2
        codes[lengths > MAX_LINE_BYTES] = 3
        if self.truncated and n:
            codes[n - 1] = 4
        return codes


#: Reasons of :meth:`Lines.problem_codes`, by code.
LINE_REASONS = (None, BINARY, NON_UTF8, TOO_LONG, TRUNCATED)


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes; :class:`InputError` (no traceback) when it cannot be read."""
    with _readable(path) as p:
        return p.read_bytes()


def read_padded(path: str | Path, pad: int) -> tuple[np.ndarray, int]:
    """The file's bytes in a ``uint8`` array followed by ``pad`` zero bytes, and
    the file's size; :class:`InputError` when it cannot be read.

    Reading into numpy's memory (which asks the kernel for huge pages) is about
    twice as fast as :func:`read_bytes` for files of hundreds of MB.
    """
    with _readable(path) as p, open(p, "rb", buffering=0) as f:
        size = os.fstat(f.fileno()).st_size  # a log still being written: what it held then
        buf = np.empty(size + pad, dtype=np.uint8)
        view = memoryview(buf)[:size]
        got = 0
        while got < size:
            k = f.readinto(view[got:])
            if not k:
                break
            got += k
        buf[got:] = 0
        return buf[: got + pad], got


def read_padded_bytes(data: bytes, pad: int) -> tuple[np.ndarray, int]:
    """``data`` in a ``uint8`` array followed by ``pad`` zero bytes, and its size."""
    buf = np.empty(len(data) + pad, dtype=np.uint8)
    buf[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    buf[len(data):] = 0
    return buf, len(data)


@contextmanager
def _readable(path: str | Path):
    p = Path(path)
    try:
        yield p
    except FileNotFoundError:
        raise InputError(p, None, "file not found") from None
    except IsADirectoryError:
        raise InputError(p, None, "is a directory, not a file") from None
    except PermissionError:
        raise InputError(p, None, "permission denied") from None
    except OSError as exc:
        raise InputError(p, None, "cannot read file", exc.strerror or str(exc)) from None


def split_lines(data: bytes, path: str = "<bytes>", *, binary: bool | None = None) -> Lines:
    """Split ``data`` into :class:`Lines` (see the module docstring).

    ``binary`` overrides the sniffing of NUL bytes (for parts of a file that
    was already found to be text).
    """
    if not data:
        return Lines(path, pl.Series("t", [], dtype=pl.String))
    if binary is None:
        binary = looks_binary(data)
    ascii_ = data.isascii()
    truncated = not data.endswith(b"\n")
    plain = ascii_ and b"\r" not in data  # line lengths then map back to byte offsets exactly
    n_lines = None if plain else data.count(b"\n") + (1 if truncated else 0)
    text = starts = lengths = None
    if _SEP.encode() not in data and not binary:
        text = pl.read_csv(
            data,
            has_header=False,
            separator=_SEP,
            quote_char=None,
            schema={"t": pl.String},
            encoding="utf8-lossy",
            truncate_ragged_lines=True,
        ).to_series()
        if plain:
            lengths = text.str.len_bytes().fill_null(0).to_numpy()
            starts = np.zeros(len(lengths), dtype=np.int64)
            np.cumsum(lengths[:-1] + 1, out=starts[1:])
            end = starts[-1] + lengths[-1] + (0 if truncated else 1) if len(lengths) else 0
            if end != len(data):  # the CSV reader disagreed about lines: be exact instead
                text = starts = lengths = None
        elif len(text) != n_lines:
            text = None
    if text is None:
        parts = data.decode("utf-8", "replace").split("\n")
        if not truncated:
            parts.pop()
        text = pl.Series("t", [s[:-1] if s.endswith("\r") else s for s in parts], dtype=pl.String)
        text = pl.select(pl.when(text.str.len_bytes() > 0).then(text)).to_series().alias("t")
    return Lines(path, text, binary=binary, ascii=ascii_, truncated=truncated, data=data,
                 line_starts=starts, line_lengths=lengths)


def looks_binary(data: bytes) -> bool:
    """A NUL byte in the first :data:`BINARY_SNIFF_BYTES` bytes (as git decides)."""
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def _starts_from_newlines(data: bytes, n: int) -> np.ndarray:
    arr = np.frombuffer(data, dtype=np.uint8)
    nl = np.flatnonzero(arr == 10)
    starts = np.zeros(n, dtype=np.int64)
    starts[1:] = nl[: n - 1] + 1
    return starts


def read_lines(path: str | Path) -> Lines:
    """Read a text file into :class:`Lines`."""
    return split_lines(read_bytes(path), str(path))
