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
