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
    """

    path: str
    text: pl.Series
    binary: bool = False
    ascii: bool = True
    truncated: bool = False
    line_lengths: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.text)

    def lengths(self) -> np.ndarray:
        """Byte length of each line (0 for an empty line), as a numpy array."""
        if self.line_lengths is not None:
            return self.line_lengths
        return self.text.str.len_bytes().fill_null(0).to_numpy()

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
    text = lengths = None
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
            if int(lengths.sum()) + len(lengths) - truncated != len(data):  # the CSV reader disagreed about lines
                text = lengths = None
        elif len(text) != n_lines:
            text = None
    if text is None:
        parts = data.decode("utf-8", "replace").split("\n")
        if not truncated:
            parts.pop()
        text = pl.Series("t", [s[:-1] if s.endswith("\r") else s for s in parts], dtype=pl.String)
        text = pl.select(pl.when(text.str.len_bytes() > 0).then(text)).to_series().alias("t")
    return Lines(path, text, binary=binary, ascii=ascii_, truncated=truncated, line_lengths=lengths)


def looks_binary(data: bytes) -> bool:
    """A NUL byte in the first :data:`BINARY_SNIFF_BYTES` bytes (as git decides)."""
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def read_lines(path: str | Path) -> Lines:
    """Read a text file into :class:`Lines`."""
    return split_lines(read_bytes(path), str(path))
