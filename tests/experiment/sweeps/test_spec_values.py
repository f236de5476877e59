"""Parsers of sweep-spec values: CPU cores."""

from __future__ import annotations

import pytest

from throttlelab.experiment.sweeps.spec_values import parse_cores


@pytest.mark.parametrize(
    ("value", "cores"),
    [(0.5, 0.5), (2, 2.0), ("1500m", 1.5), ("250m", 0.25), ("2", 2.0), ("unlimited", None), (None, None), ("max", None)],
)
def test_parse_cores(value, cores):
    assert parse_cores(value) == cores


@pytest.mark.parametrize("value", ["15OOm", -1, 0, "1.5 cores", True, "0m"])
def test_parse_cores_rejects(value):
    with pytest.raises(ValueError):
        parse_cores(value)
