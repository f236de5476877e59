"""One formatter per quantity: units a reader expects, no scientific notation, nouns counted right."""

import math

import pytest

from throttlelab import units


@pytest.mark.parametrize("value, text", [
    (70.49, "70.5"), (0.114146, "0.114"), (12345.6, "12,346"), (0, "0"), (8.56e-16, "< 0.001"),
    (-2.5e-7, "> -0.001"), (None, "–"), (math.nan, "–"), (math.inf, "∞"), (3, "3"), (1234567, "1,234,567"),
])
def test_numbers_never_use_scientific_notation(value, text):
    assert units.number(value) == text


@pytest.mark.parametrize("f, value, text", [
    (units.latency, 0.00084, "0.84 ms"), (units.latency, 0.0264, "26.4 ms"), (units.latency, 1.5, "1,500 ms"),
    (units.seconds, 3.85, "3.85 s"), (units.seconds, 0.25, "250 ms"), (units.seconds, 900, "15 min"),
    (units.memory, 3_145_728, "3 MiB"), (units.memory, 1.5 * 2**30, "1.5 GiB"), (units.memory, 512, "512 bytes"),
    (units.percent, 0.452, "45%"), (units.percent, 0.0025, "0.25%"), (units.percent, 1.0, "100%"),
    (units.p_value, 0.0431, "0.043"), (units.p_value, 1e-12, "< 0.001"),
])
def test_each_quantity_has_its_unit(f, value, text):
    assert f(value) == text


def test_signed_percent_and_times():
    assert units.pct(48.2, sign=True) == "+48%" and units.pct(-5.5) == "-5.5%" and units.pct(361) == "361%"
    assert units.times(1.37) == "1.37 times" and units.times(2.0) == "2 times"


@pytest.mark.parametrize("n, noun, text", [(1, "thread", "1 thread"), (2, "thread", "2 threads"),
                                           (0, "run", "0 runs"), (1.0, "core", "1 core"), (0.5, "core", "0.5 cores"),
                                           (1200, "run", "1,200 runs")])
def test_nouns_are_counted_right(n, noun, text):
    assert units.count(n, noun) == text


def test_cpu_limits_read_as_cores():
    assert [units.cores_label(v) for v in ("12000m", "500m", "2", "unlimited", 1.0)] == \
        ["12 cores", "0.5 cores", "2 cores", "no limit", "1 core"]
    assert units.cores_range(["6000m", "7000m"]) == "6-7 cores"
    assert units.cores_range(["6000m"]) == "6 cores"
    assert units.cores_range(["16000m", "unlimited"]) == "16 cores or no limit"
    assert units.cores(None) == "no limit" and units.cores(0.25) == "0.25 cores"


def test_metric_values_in_their_units():
    assert units.metric(0.0264, "latency_p999_seconds", "s") == "26.4 ms"
    assert units.metric(3.85, "wall_seconds", "s", 2) == "3.9 s"
    assert units.metric(44715.07, "throughput_rps", "req/s") == "44,715 req/s"
    assert units.metric(12.5, "items_per_second", "items/s") == "12.5 items/s"


def test_memory_columns_pick_the_unit_of_their_largest_value():
    assert units.memory_quantity([3 * 2**20, 900 * 2**20]) == "memory_mib"
    assert units.memory_quantity([3 * 2**30, None]) == "memory_gib"
    assert units.QUANTITIES["latency"].scale == 1000 and units.QUANTITIES["share"].unit == "%"
