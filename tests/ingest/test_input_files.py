"""Opening inputs: compression told by magic bytes, chunks that end at newlines, one-line errors."""

from __future__ import annotations

import gzip
import io
import lzma

import pytest
import zstandard

from throttlelab.errors import InputError
from throttlelab.ingest.input_files import compression_of, disk_size, head, iter_chunks, open_input, read_input

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


@pytest.mark.parametrize("kind, pack", [
    (None, lambda b: b), ("gzip", gzip.compress), ("xz", lzma.compress),
    ("zstd", lambda b: zstandard.ZstdCompressor().compress(b)),
])
def test_every_compression_reads_back(tmp_path, kind, pack):
    p = tmp_path / "input.log"  # the name says nothing
    p.write_bytes(pack(DATA))
    assert compression_of(p) == kind
    assert read_input(p) == DATA
    assert head(p, 14) == b"line 0\nline 1\n"
    assert disk_size(p) == len(pack(DATA))


def test_missing_directory_and_corrupt(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_input(tmp_path / "nope.log")
    with pytest.raises(InputError, match="is a directory, not a file"):
        compression_of(tmp_path)
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(gzip.compress(DATA)[:200])
    with pytest.raises(InputError) as err:
        read_input(cut)
    assert str(err.value).startswith(str(cut))


def test_iter_chunks_end_at_newlines_and_lose_nothing():
    blocks = list(iter_chunks(io.BytesIO(DATA + b"last without newline"), size=1000))
    assert b"".join(blocks) == DATA + b"last without newline"
    assert all(b.endswith(b"\n") for b in blocks[:-1]) and len(blocks) > 40
    long_line = b"x" * 2500 + b"\nend\n"
    assert [bytes(b) for b in iter_chunks(io.BytesIO(long_line), size=1000)] == [long_line]  # a line is never split


def test_open_input_reports_compressed_position(tmp_path):
    p = tmp_path / "big.gz"
    p.write_bytes(gzip.compress(DATA))
    with open_input(p) as f:
        f.read()
        assert 0 < f.compressed_tell() <= disk_size(p)
