"""Opening inputs: compression told by magic bytes, chunks that end at newlines, one-line errors."""

from __future__ import annotations

import gzip
import io
import lzma

import pytest
import zstandard

from throttlelab.errors import InputError
from throttlelab.ingest.input_files import compression_of, head, iter_chunks, read_input

DATA = b"".join(b"line %d\n" % i for i in range(5000))


@pytest.mark.parametrize("kind,pack", [(None, bytes), ("gzip", gzip.compress), ("xz", lzma.compress),
                                       ("zstd", lambda d: zstandard.ZstdCompressor().compress(d))])
def test_magic_bytes_not_names(tmp_path, kind, pack):
    p = tmp_path / "misleading.gz.txt"
    p.write_bytes(pack(DATA))
    assert compression_of(p) == kind
    assert read_input(p) == DATA and head(p, 10) == DATA[:10]


def test_chunks_end_at_newlines_and_lose_nothing():
    data = DATA + b"no newline at the end"
    chunks = list(iter_chunks(io.BytesIO(data), 333))
    assert b"".join(chunks) == data
    assert all(c.endswith(b"\n") for c in chunks[:-1]) and not chunks[-1].endswith(b"\n")


def test_errors_are_one_line(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_input(tmp_path / "nope")
    with pytest.raises(InputError, match="is a directory"):
        read_input(tmp_path)
    cut = tmp_path / "cut"
    cut.write_bytes(zstandard.ZstdCompressor().compress(DATA)[:-10])
    with pytest.raises(InputError, match="corrupt zstd data"):
        read_input(cut)
