"""Tests of throttlelab.core.cpu_stat: cpu.stat read strictly or leniently, v1 and v2 keys as the canonical counters."""

from __future__ import annotations

import doctest

import pytest

from throttlelab.core import cpu_stat
from throttlelab.core.cpu_stat import (IGNORED_KEYS, SHARED_KEYS, STAT_KEYS, V1_KEYS, V2_KEYS, counter, parse_cpu_stat,
                                       stat_keys)
from throttlelab.errors import InputError

V2 = "usage_usec 15000000\nuser_usec 9000000\nsystem_usec 6000000\nnr_periods 300\nnr_throttled 120\n" \
     "throttled_usec 4500000\nnr_bursts 0\nburst_usec 0\n"
V1 = "nr_periods 300\nnr_throttled 120\nthrottled_time 4500000000\nnr_bursts 2\nburst_time 1000000\n"


def test_both_versions_give_the_same_counters():
    v2, v1 = parse_cpu_stat(V2), parse_cpu_stat(V1)
    for name in ("nr_periods", "nr_throttled", "throttled_seconds"):
        assert counter(v2, name) == counter(v1, name)
    assert counter(v2, "usage_seconds") == 15.0 and counter(v1, "usage_seconds") == 0  # v1: cpuacct.usage
    assert counter(v1, "burst_seconds") == 0.001 and counter(v2, "user_seconds") == 9.0
    assert isinstance(counter(v2, "nr_periods"), int) and counter({}, "throttled_seconds", 0.0) == 0.0


def test_the_key_sets_are_the_monitor_readers_columns_in_their_order():
    assert SHARED_KEYS == ("nr_periods", "nr_throttled", "nr_bursts")
    assert V2_KEYS == ("usage_usec", "user_usec", "system_usec", "throttled_usec", "burst_usec")
    assert V1_KEYS == ("throttled_time", "burst_time") and STAT_KEYS == SHARED_KEYS + V2_KEYS + V1_KEYS
    assert set(parse_cpu_stat(V2)) <= set(STAT_KEYS) and set(parse_cpu_stat(V1)) <= set(STAT_KEYS)
    assert not set(IGNORED_KEYS) & set(STAT_KEYS)
    assert stat_keys("nr_throttled", "burst_seconds", "usage_seconds") == ("nr_throttled", "burst_usec", "burst_time",
                                                                          "usage_usec")


@pytest.mark.parametrize("text, line", [("nr_periods 4\nnr_throttled\n", 2), ("\nnr_periods -1\n", 2),
                                         ("nr_periods 4 5\n", 1), ("nr_periods 1.5\n", 1)])
def test_a_bad_line_names_file_and_line(text, line):
    with pytest.raises(InputError) as err:
        parse_cpu_stat(text, "/x/cpu.stat")
    assert err.value.line == line and str(err.value).startswith(f"/x/cpu.stat:{line}: bad cpu.stat line (")


def test_lenient_skips_what_is_not_a_pair_of_key_and_integer():
    text = "usage_usec 15\nnr_periods -1\nbad line here\nthrottled x\nnr_throttled 4\n"
    assert parse_cpu_stat(text, strict=False) == {"usage_usec": 15, "nr_periods": -1, "nr_throttled": 4}
    assert parse_cpu_stat("", strict=False) == {} == parse_cpu_stat("\n\n")


def test_the_examples_hold():
    result = doctest.testmod(cpu_stat, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5 and result.failed == 0
