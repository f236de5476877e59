"""Splitting a file into lines: every line kept, file-level problems flagged per line, bad paths as one-line errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

from throttlelab.errors import InputError
from throttlelab.ingest import lines as L


def reasons(lines: L.Lines) -> list:
    return [L.LINE_REASONS[c] for c in lines.problem_codes(lines.lengths())]


def test_plain_lines_and_empty_lines_are_kept_in_order():
    lines = L.split_lines(b"a 1\n\nb 2\n", "x.log")
    assert len(lines) == 3 and lines.text.to_list() == ["a 1", None, "b 2"]
    assert lines.lengths().tolist() == [3, 0, 3]
    assert not lines.truncated and lines.ascii and not lines.binary
    assert reasons(lines) == [None, None, None]


def test_crlf_is_accepted_and_a_cut_last_line_is_flagged():
    lines = L.split_lines(b"a\r\nb\r\nc", "x.log")
    assert lines.text.to_list() == ["a", "b", "c"] and lines.truncated
    assert reasons(lines) == [None, None, L.TRUNCATED]


def test_bad_utf8_is_flagged_on_its_line_only():
    lines = L.split_lines("ok\n".encode() + b"caf\xe9\n" + "d\u00e9j\u00e0\n".encode(), "x.log")
    assert len(lines) == 3 and not lines.ascii
    assert reasons(lines) == [None, L.NON_UTF8, None]


def test_a_line_over_the_limit_is_flagged():
    data = b"short\n" + b"x" * (L.MAX_LINE_BYTES + 1) + b"\nend\n"
    assert reasons(L.split_lines(data)) == [None, L.TOO_LONG, None]


def test_binary_file_skips_every_line():
    lines = L.split_lines(b"\x00\x01abc\nmore\n", "blob")
    assert lines.binary and reasons(lines) == [L.BINARY, L.BINARY]
    assert L.looks_binary(b"a" * L.BINARY_SNIFF_BYTES + b"\x00") is False  # NUL beyond the sniffed start


def test_separator_byte_in_the_data_falls_back_without_losing_lines():
    lines = L.split_lines(b"a\x1fb\nc\n")
    assert lines.text.to_list() == ["a\x1fb", "c"]


def test_empty_file_has_no_lines():
    assert len(L.split_lines(b"")) == 0


def test_line_count_matches_a_python_split_on_random_text():
    rng = np.random.default_rng(0)
    alphabet = np.array(list(b"ab \n\r,\"'"), dtype=np.uint8)
    for _ in range(30):
        data = bytes(rng.choice(alphabet, size=int(rng.integers(0, 200))).tolist())
        lines = L.split_lines(data)
        expected = data.split(b"\n")
        if data.endswith(b"\n") or not data:
            expected.pop()  # nothing after the last newline (or nothing at all) is no line
        assert len(lines) == len(expected), data
        assert [t or "" for t in lines.text.to_list()] == [e.decode().removesuffix("\r") for e in expected], data


def test_read_lines_reads_a_file(tmp_path):
    p = tmp_path / "m.log"
    p.write_bytes(b"one\ntwo\n")
    lines = L.read_lines(p)
    assert lines.path == str(p) and lines.text.to_list() == ["one", "two"]


@pytest.mark.parametrize("make, reason", [
    (lambda d: d / "missing.log", "file not found"),
    (lambda d: d, "is a directory, not a file"),
])
def test_bad_paths_are_one_line_errors(tmp_path, make, reason):
    with pytest.raises(InputError) as err:
        L.read_lines(make(tmp_path))
    assert err.value.reason == reason and "\n" not in str(err.value) and str(tmp_path) in str(err.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file_is_an_error(tmp_path):
    p = tmp_path / "secret.log"
    p.write_text("x\n")
    p.chmod(0)
    with pytest.raises(InputError, match="permission denied"):
        L.read_lines(p)
