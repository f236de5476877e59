"""Tests of throttlelab.ingest.progress: a bar only for large inputs on a terminal, or when asked."""

from __future__ import annotations

from throttlelab.ingest.progress import PROGRESS_MIN_BYTES, byte_progress, wants_progress


def test_wants_progress(capsys):
    assert wants_progress(10, True) and not wants_progress(10**12, False)
    assert not wants_progress(PROGRESS_MIN_BYTES * 10)  # standard error is captured here, not a terminal


def test_the_bar_counts_bytes_on_standard_error(capsys):
    with byte_progress("/data/big.log", 4096, progress=True) as update:
        update(1024)
        update(512)  # going backwards draws nothing
        update(4096)
    err = capsys.readouterr().err
    assert "big.log" in err and "/4.00k" in err  # the bar runs against the size on disk


def test_no_bar_draws_nothing(capsys):
    with byte_progress("x.log", 10, progress=False) as update:
        update(5)
    assert capsys.readouterr().err == ""
