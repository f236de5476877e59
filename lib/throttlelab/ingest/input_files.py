"""Open any input file, decompressing gzip, zstd and xz told by their magic bytes (not the name).

Every reader opens its file through :func:`open_input` (a stream, for the
readers that go through a file in chunks) or :func:`read_input` (all bytes).
A missing, unreadable or corrupt file raises
:class:`~throttlelab.errors.InputError` naming the file: never a traceback.

>>> import gzip, pathlib
>>> p = pathlib.Path("k6.json")   # the name says nothing
>>> _ = p.write_bytes(gzip.compress(b'{"type":"Point"}\\n'))
>>> compression_of(p), read_input(p)
('gzip', b'{"type":"Point"}\\n')
"""

from __future__ import annotations

import io
import os
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator

from throttlelab.errors import InputError

#: Magic bytes -> compression name.
MAGIC = {
    b"\x1f\x8b": "gzip",
    b"\x28\xb5\x2f\xfd": "zstd",
    b"\xfd7zXZ\x00": "xz",
}
#: Decompressed bytes read at a time by :func:`iter_chunks` (and :func:`read_input`).
CHUNK_BYTES = 16 * 2**20


def _check_path(path: str | Path) -> Path:
    p = Path(path)
    if not p.exists():
        raise InputError(p, None, "file not found")
    if p.is_dir():
        raise InputError(p, None, "is a directory, not a file")
    return p


def compression_of(path: str | Path) -> str | None:
    """``"gzip"``, ``"zstd"``, ``"xz"`` or None (plain), from the file's first bytes."""
    p = _check_path(path)
    try:
        with open(p, "rb") as f:
            head = f.read(8)
    except OSError as exc:
        raise InputError(p, None, "cannot read file", exc.strerror or str(exc)) from None
    for magic, name in MAGIC.items():
        if head.startswith(magic):
            return name
    return None


class _Checked(io.RawIOBase):
    """A decompressing stream whose errors become :class:`InputError` (corrupt or cut-off data)."""

    def __init__(self, inner: BinaryIO, path: Path, kind: str, raw: BinaryIO):
        self._inner, self._path, self._kind, self._raw = inner, path, kind, raw

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        try:
            return self._inner.readinto(b)
        except (OSError, EOFError, ValueError) as exc:
            raise InputError(self._path, None, f"corrupt {self._kind} data", str(exc) or type(exc).__name__) from None
        except Exception as exc:  # zstandard.ZstdError
            if type(exc).__name__ == "ZstdError":
                raise InputError(self._path, None, f"corrupt {self._kind} data", str(exc)) from None
            raise

    def compressed_tell(self) -> int:
        """Bytes of the file on disk consumed so far (for progress)."""
        return self._raw.tell()

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            self._raw.close()
            super().close()


class _ZstdFrames(io.RawIOBase):
    """zstd frames one after another; a stream cut inside a frame is an error (``stream_reader``
    would return nothing and say nothing)."""

    def __init__(self, raw: BinaryIO, path: Path):
        import zstandard

        self._raw, self._path, self._new = raw, path, zstandard.ZstdDecompressor().decompressobj
        self._obj, self._pending, self._fed = self._new(), b"", False

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while not self._pending:
            block = self._raw.read(1 << 20)
            if not block:
                if self._fed and not self._obj.eof:
                    raise InputError(self._path, None, "corrupt zstd data", "the stream ends inside a frame")
                return 0
            while block:
                self._fed = True
                self._pending += self._obj.decompress(block)
                block = b""
                if self._obj.eof:  # the next frame, if any, starts in the unused data
                    block, self._obj, self._fed = self._obj.unused_data, self._new(), False
        n = min(len(b), len(self._pending))
        b[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


@contextmanager
def open_input(path: str | Path) -> Iterator[BinaryIO]:
    """A binary stream of the (decompressed) content of ``path``.

    The stream has ``compressed_tell()`` (bytes of the file consumed), so a
    progress bar can run against the size on disk.
    """
    p = _check_path(path)
    kind = compression_of(p)
    try:
        raw = open(p, "rb")
    except OSError as exc:
        raise InputError(p, None, "cannot read file", exc.strerror or str(exc)) from None
    if kind is None:
        inner: BinaryIO = raw
    elif kind == "gzip":
        import gzip

        inner = gzip.GzipFile(fileobj=raw, mode="rb")
    elif kind == "xz":
        import lzma

        inner = lzma.LZMAFile(raw, "rb")
    else:
        try:
            import zstandard
        except ImportError:  # pragma: no cover - a dependency
            raise InputError(p, None, "zstd file, but the zstandard package is missing") from None
        inner = _ZstdFrames(raw, p)
    stream = _Checked(inner, p, kind or "plain", raw)
    try:
        yield stream
    finally:
        stream.close()


def iter_chunks(stream: BinaryIO, size: int = CHUNK_BYTES) -> Iterator[bytearray]:
    """Blocks of ``stream`` each ending at a newline (the last one as it ends).

    Each block is a fresh ``bytearray`` filled in place (no copies of the
    data beyond the few bytes carried over to the next block).
    """
    rest = b""
    while True:
        buf = bytearray(len(rest) + size)
        buf[: len(rest)] = rest
        view = memoryview(buf)
        got = len(rest)
        while got < len(buf):
            k = stream.readinto(view[got:])
            if not k:
                break
            got += k
        view.release()
        if got < len(buf):
            del buf[got:]
        if got == len(rest):  # end of the stream
            if rest:
                yield bytearray(rest)
            return
        cut = buf.rfind(b"\n") + 1
        if cut == 0:
            rest = bytes(buf)
            continue
        rest = bytes(buf[cut:])
        del buf[cut:]
        yield buf


def read_input(path: str | Path) -> bytes:
    """All (decompressed) bytes of ``path``; :class:`InputError` when it cannot be read."""
    with open_input(path) as f:
        parts = []
        while True:
            block = f.read(CHUNK_BYTES)
            if not block:
                break
            parts.append(block)
    return b"".join(parts)


def head(path: str | Path, n: int = 64 * 1024) -> bytes:
    """The first ``n`` (decompressed) bytes of ``path``."""
    with open_input(path) as f:
        out = b""
        while len(out) < n:
            block = f.read(n - len(out))
            if not block:
                break
            out += block
    return out


def disk_size(path: str | Path) -> int:
    """Size of the file on disk (bytes)."""
    return os.path.getsize(_check_path(path))
