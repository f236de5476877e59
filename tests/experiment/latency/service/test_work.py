"""Tests of throttlelab.experiment.latency.service.work: the CPU kernel."""

from __future__ import annotations

import pytest

from throttlelab.experiment.latency.service.work import CHUNK, MAX_ELEMENTS, burn


def test_burn_is_deterministic_and_bounded():
    assert burn(CHUNK * 2) == burn(CHUNK * 2)
    assert burn(0) == burn(1)  # at least one chunk
    with pytest.raises(ValueError):
        burn(-1)
    with pytest.raises(ValueError):
        burn(MAX_ELEMENTS + 1)
