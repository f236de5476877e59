"""Parsers of sweep-spec values: limits (read by the core's CPU quantity parser), threads."""

from __future__ import annotations

import pytest

from throttlelab.config_file import ValueAt, dotted
from throttlelab.experiment.sweeps.spec_values import parse_limits, parse_threads


def test_parse_limits():
    assert parse_limits([0.5, "1500m", "250m", 2, "unlimited", "max", 0.5]) == (0.5, 1.5, 0.25, 2.0, None)
    assert parse_limits({"from": 0.25, "to": 1, "step": 0.25}) == (0.25, 0.5, 0.75, 1.0)
    assert parse_limits(None) == (None,)


@pytest.mark.parametrize("value, message", [
    (["1", "15OOm"], "key 'limits[1]': cannot read '15OOm' as CPU cores (use 0.5, '1500m' or 'unlimited')"),
    ([0.5, -1], "key 'limits[1]': CPU limit must be positive, got -1"),
    (["0m"], "key 'limits[0]': CPU limit must be positive, got '0m'"),
    ([True], "key 'limits[0]': cannot read True as CPU cores"),
    ([], "key 'limits': needs at least one limit")])
def test_parse_limits_rejects_naming_the_item(value, message):
    with pytest.raises(ValueAt) as err:
        parse_limits(value)
    assert f"key '{dotted(err.value.path)}': {err.value}" == message and err.value.absolute


def test_parse_threads():
    assert parse_threads([1, "2", "auto", 1]) == ("1", "2", "auto")
    with pytest.raises(ValueAt) as err:
        parse_threads([1, 0])
    assert err.value.path == ("threads", 1)
