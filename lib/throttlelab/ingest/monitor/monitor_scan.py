"""The per-line facts of a plain ASCII monitor log in one compiled pass over its bytes (``_scan.c``).

:func:`scan_facts` gives exactly what :func:`.monitor_file.collect_facts`
gives for the lines of polars' line reader, for a file of ASCII bytes
without CR: a C loop over the bytes reads each line's ``key value`` split,
section marker and length, the fields of the lines that read as kubectl top
rows, and copies the lines that need their text into a buffer of their own,
which polars takes over as its text column without a copy (an Arrow array,
through the PyCapsule interface; the C side frees it when polars lets it
go).  The polars pass computes the same with about a dozen string
expressions per line; on the multi-container bench day (15 M lines, 402 MB)
it took 3.7 s of CPU where the loop takes about 0.6 s.  The file is cut at
newlines into a part per core, scanned at once in threads (ctypes releases
the GIL).

The loop is built by setuptools with the package (an optional extension: a
plain shared library without Python's API, loaded with ctypes); without it
(no C compiler at install), :func:`available` is false and the polars pass
is used.
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import os
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import numpy as np
import polars as pl

_P = ctypes.c_void_p
_I = ctypes.c_int64
_U8 = ctypes.c_uint8


@cache
def _library() -> ctypes.CDLL | None:
    here = Path(__file__).parent
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = here / f"_scan{suffix}"
        if path.exists():
            lib = ctypes.CDLL(str(path))
            lib.tl_newlines.restype = _I
            lib.tl_newlines.argtypes = [_P, _I, _I]
            lib.tl_scan.restype = None
            lib.tl_scan.argtypes = [_P, _I, _I, _I, *[_P, _P, _I, _I] * 3, _I, *[_U8] * 5, *[_P] * 10]
            lib.tl_malloc.restype = _P
            lib.tl_malloc.argtypes = [_I]
            lib.tl_free.restype = None
            lib.tl_free.argtypes = [_P]
            lib.tl_export_texts.restype = None
            lib.tl_export_texts.argtypes = [_P, _I, _P, _I, _P, _P]
            return lib
    return None


class _ArrowSchema(ctypes.Structure):
    _fields_ = [("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
                ("flags", _I), ("n_children", _I), ("children", _P), ("dictionary", _P), ("release", _P),
                ("private_data", _P)]


class _ArrowArray(ctypes.Structure):
    _fields_ = [("length", _I), ("null_count", _I), ("offset", _I), ("n_buffers", _I), ("n_children", _I),
                ("buffers", _P), ("children", _P), ("dictionary", _P), ("release", _P), ("private_data", _P)]


_CAPSULE = ctypes.pythonapi.PyCapsule_New
_CAPSULE.restype = ctypes.py_object
_CAPSULE.argtypes = [_P, ctypes.c_char_p, _P]
_RELEASE = ctypes.CFUNCTYPE(None, _P)


class _ArrowTexts:
    """Texts the loop wrote, as an Arrow array that polars takes over without a copy (the PyCapsule interface:
    polars moves the array out of :attr:`array`; its buffers are freed by its release, called by polars)."""

    def __init__(self) -> None:
        self.schema, self.array = _ArrowSchema(), _ArrowArray()

    def __arrow_c_array__(self, requested_schema=None):
        return (_CAPSULE(ctypes.addressof(self.schema), b"arrow_schema", None),
                _CAPSULE(ctypes.addressof(self.array), b"arrow_array", None))

    def series(self) -> pl.Series:
        """The texts as a polars Series (``t``); the buffers freed here if polars did not take them."""
        try:
            return pl.Series(self).alias("t")
        finally:
            for part in (self.array, self.schema):
                if part.release:
                    _RELEASE(part.release)(ctypes.addressof(part))


#: The columns of the kubectl top fields of each kept text: start and length of the pod, container (length 0:
#: none), CPU and memory quantities, as ``^(\S+) +(\S+) +(\S+)(?: +(\S+))?$`` reads a row; all 0: not a row;
#: pod start 65535 and length 0: not read (a line over 65,535 bytes).
TOP_FIELDS = ("pod_at", "pod_len", "container_at", "container_len", "cpu_at", "cpu_len", "mem_at", "mem_len")


def available() -> bool:
    """Whether the compiled loop was built (else the polars pass is used)."""
    return os.environ.get("THROTTLELAB_NO_C_SCAN") is None and _library() is not None


def patterns(texts) -> tuple[np.ndarray, np.ndarray]:
    """``texts`` as a padded byte matrix and their lengths (the loop's form of a list of strings).

    >>> m, n = patterns(["ab", "c"])
    >>> m.tolist(), n.tolist()
    ([[97, 98], [99, 0]], [2, 1])
    """
    raw = [t.encode("ascii") for t in texts]
    out = np.zeros((len(raw), max((len(r) for r in raw), default=1)), dtype=np.uint8)
    for k, r in enumerate(raw):
        out[k, :len(r)] = np.frombuffer(r, dtype=np.uint8)
    return out, np.array([len(r) for r in raw], dtype=np.int64)


def _cuts(arr: np.ndarray, parts: int) -> list[int]:
    """Where to cut ``arr`` into about ``parts`` parts: after a newline (a part's lines are whole)."""
    size, cuts = len(arr), [0]
    for k in range(1, parts):
        at = size * k // parts
        nl = np.flatnonzero(arr[at:at + (1 << 20)] == 10)  # lines longer than 1 MB: no cut there
        cut = at + int(nl[0]) + 1 if len(nl) else size
        if cuts[-1] < cut < size:
            cuts.append(cut)
    return [*cuts, size]


def scan_facts(buf, *, keys, markers, heads, long_limit: int, flags: dict, odd: int, no_key: int,
               parts: int | None = None) -> tuple[pl.DataFrame, pl.DataFrame, int, np.ndarray]:
    """The lines of ``buf`` (any buffer of a plain ASCII file's bytes) as :class:`~.monitor_file.Facts`' fields:
    the per-line frame, the kept texts with their line index and bits, the bytes of all lines, and per kept
    text its fields as a kubectl top row (:data:`TOP_FIELDS`).
    ``keys``, ``markers`` and ``heads`` are the cpu.stat keys, section markers and log-header prefixes."""
    lib = _library()
    arr = np.frombuffer(buf, dtype=np.uint8)
    pats = [patterns(p) for p in (keys, markers, heads)]
    pat_args = [a for m, n in pats for a in (m.ctypes.data, n.ctypes.data, len(n), m.shape[1])]
    base = arr.ctypes.data

    cuts = _cuts(arr, parts or os.cpu_count() or 1)
    spans = list(zip(cuts[:-1], cuts[1:]))
    with ThreadPoolExecutor(len(spans)) as pool:
        counts = list(pool.map(lambda span: lib.tl_newlines(base, *span) + int(arr[span[1] - 1] != 10), spans))
    n = sum(counts)
    # the per-line columns, each part's lines written in place
    cols = dict(blank=np.empty(n, np.uint8), key=np.empty(n, np.uint8), val=np.empty(n, np.int64),
                marker=np.empty(n, np.int8))
    first = np.cumsum([0, *counts[:-1]]).tolist()

    def one(k: int):
        (lo, hi), nl, at = spans[k], counts[k], first[k]
        kept = dict(i=np.empty(nl, np.uint32), f=np.empty(nl, np.uint8))
        top = np.empty((nl, 8), np.uint16)
        out = np.zeros(3, np.int64)
        text, offsets = lib.tl_malloc(hi - lo), lib.tl_malloc(8 * (nl + 1))  # owned by the Arrow array below
        if not (text and offsets):
            lib.tl_free(text), lib.tl_free(offsets)
            raise MemoryError(f"no memory for the texts of {hi - lo:,} bytes of lines")
        lib.tl_scan(base, lo, hi, nl, *pat_args, long_limit, no_key, flags["long"], flags["hdr"], flags["loghdr"],
                    odd, *(a[at:].ctypes.data for a in cols.values()), *(a.ctypes.data for a in kept.values()),
                    text, offsets + 8, top.ctypes.data, out.ctypes.data)
        nk, m, nbytes = out.tolist()
        texts = _ArrowTexts()
        lib.tl_export_texts(text, m, offsets, nk, ctypes.addressof(texts.schema), ctypes.addressof(texts.array))
        frame = pl.DataFrame({"i": kept["i"][:nk] + np.uint32(at), "t": texts.series(), "f": kept["f"][:nk]})
        return frame, nbytes, top[:nk]

    with ThreadPoolExecutor(len(spans)) as pool:
        outs = list(pool.map(one, range(len(spans))))
    per_line = pl.DataFrame({"flags": cols["blank"] * np.uint8(flags["blank"]), "key": cols["key"], "val": cols["val"],
                             "marker": cols["marker"]})
    kept = pl.concat([o[0] for o in outs]) if len(outs) > 1 else outs[0][0]
    top = np.concatenate([o[2] for o in outs]) if len(outs) > 1 else outs[0][2].copy()  # not the whole part's array
    return per_line, kept, int(sum(o[1] for o in outs)), top
