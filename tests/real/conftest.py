"""Fixtures of the real-format corpus: tests/fixtures/real/ (provenance in its README)."""

from __future__ import annotations

from pathlib import Path

import pytest

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


@pytest.fixture
def real() -> Path:
    return REAL


def count_lines(path: Path) -> int:
    data = path.read_bytes()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
