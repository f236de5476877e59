"""Fixtures of the ingest tests: the small input files under tests/fixtures/ingest/."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


def count_lines(path: Path) -> int:
    """Lines as a text editor counts them (a last line without newline counts), after decompression."""
    from throttlelab.ingest.input_files import read_input

    data = read_input(path)
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
