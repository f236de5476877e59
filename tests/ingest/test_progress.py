"""The progress bar: only on a terminal and over 50 MB, unless asked."""

from __future__ import annotations

import sys

from throttlelab.ingest.progress import PROGRESS_MIN_BYTES, byte_progress, wants_progress


class _Tty:
    def isatty(self):
        return True

    def write(self, s):
        self.out = getattr(self, "out", "") + s

    def flush(self):
        pass


def test_terminal_and_size(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Tty())
    assert wants_progress(PROGRESS_MIN_BYTES + 1) and not wants_progress(PROGRESS_MIN_BYTES)
    assert not wants_progress(10**9, False) and wants_progress(10, True)


def test_not_a_terminal_draws_nothing(capsys):
    with byte_progress("x.json", 10**9) as update:
        update(5 * 10**8)
    assert capsys.readouterr().err == ""


def test_bar_counts_bytes(monkeypatch):
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    with byte_progress("x.json", 100 * 2**20) as update:
        update(50 * 2**20)
        update(100 * 2**20)
    assert "x.json" in tty.out and "100M" in tty.out


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
