"""Tests of throttlelab.core.quantities: CPU quantities read and written one way, memory quantities as polars expressions."""

from __future__ import annotations

import doctest

import polars as pl
import pytest

from throttlelab.core import quantities
from throttlelab.core.quantities import (cores_expr, cores_text, format_cores, format_cpu, format_millicores,
                                         format_millicores_range, label_cores, memory_bytes, parse_cores)


@pytest.mark.parametrize(
    ("value", "cores"),
    [(0.5, 0.5), (2, 2.0), ("1500m", 1.5), ("250m", 0.25), ("2", 2.0), ("unlimited", None), (None, None), ("max", None),
     (" None ", None), ("500000u", 0.5), ("2000000000n", 2.0), ("333m", 0.333), (0.1234567891, 0.123456789)],
)
def test_parse_cores(value, cores):
    assert parse_cores(value) == cores


@pytest.mark.parametrize("value", ["15OOm", -1, 0, "1.5 cores", True, "0m", "1e3", "-1", "+2", ".5", "3k", "inf",
                                   float("nan"), float("inf"), [1]])
def test_parse_cores_rejects(value):
    with pytest.raises(ValueError):
        parse_cores(value)


def test_zero_is_read_only_when_allowed():
    assert [parse_cores(v, allow_zero=True) for v in ("0m", "0", 0, "250m", "unlimited")] == [0.0, 0.0, 0.0, 0.25, None]
    for value in ("-1", -0.5, "1.5 cores", float("nan")):
        with pytest.raises(ValueError):
            parse_cores(value, allow_zero=True)


def test_patch_quantities_read_back():
    """The recommend patch's CPU quantities: whole millicores out, the same cores back (what ``kubectl`` reads)."""
    assert [format_millicores(c) for c in (1.86, 0.05, 2.0)] == ["1860m", "50m", "2000m"]
    assert [parse_cores(q) for q in ("1860m", "2", "0.5")] == [1.86, 2.0, 0.5]


@pytest.mark.parametrize(
    ("label", "cores"),
    [("12000m", 12.0), ("500m", 0.5), ("2", 2.0), (" 1.5 ", 1.5), ("1.25 cores", 1.25), ("1 core", 1.0),
     ("500000u", 0.5), (1.0, 1.0), (3, 3.0), (0.1 + 0.2, 0.1 + 0.2), ("unlimited", None), ("no limit", None),
     ("max", None), ("auto", None), ("0m", None), ("-1", None), ("", None), (None, None), (True, None),
     (float("inf"), None)],
)
def test_label_cores(label, cores):
    assert label_cores(label) == cores


def test_label_cores_reads_every_label_the_formatters_write():
    for cores in (0.001, 0.25, 0.45, 1.0, 1.25, 2.0, 12.0):
        assert label_cores(format_millicores(cores)) == cores
        assert label_cores(format_cores(cores)) == cores
        assert label_cores(format_cpu(cores)) == cores
    assert {label_cores(format_millicores(None)), label_cores(format_cores(None)), label_cores(format_cpu(None))} == {None}


def test_the_text_a_value_reads_back_to_it():
    for cores in (0.001, 0.25, 0.5, 1.0, 1.5, 2.0, 12.0, 0.333):
        assert parse_cores(format_millicores(cores)) == cores
        assert parse_cores(format_cores(cores)) == cores
    assert parse_cores(format_millicores(None)) is None and parse_cores(format_cores(None)) is None


def test_formats():
    assert [format_millicores(c) for c in (1.5, 0.0005, float("nan"), None)] == ["1500m", "0m", "unlimited", "unlimited"]
    assert format_cores(1.0, unlimited="unl", suffix="c") == "1c" and format_cores(None, unlimited="unl") == "unl"
    assert [format_cpu(c) for c in (0.999, 1.0, 12.345, None)] == ["999m", "1.00 cores", "12.35 cores", "no limit"]


def test_millicore_ranges_write_the_unit_once_and_read_back():
    assert format_millicores_range(0.25, 0.6) == "250-600m" and format_millicores_range(0.25, None) == "250m-open"
    assert format_millicores_range(1.0, None, open_above="?") == "1000m-?"
    for low, high in ((0.0015, 0.0025), (0.1234, 12.3456), (0.0005, 0.0035), (1 / 3, 2 / 3)):
        text = format_millicores_range(low, high)
        a, b = text.removesuffix("m").split("-")
        assert (a + "m", b + "m") == (format_millicores(low), format_millicores(high))  # each end as one value
        assert text == f"{low * 1000:.0f}-{high * 1000:.0f}m"  # the decision table's earlier spelling, halves too


def test_cores_expr_matches_parse_cores_on_quantities():
    texts = ["250m", "1", "1.5", "500000u", "2000000000n", "x", "-1", "1e3", None, "3k", "unlimited", "1.5 cores"]
    got = pl.select(cores_expr(pl.lit(pl.Series("q", texts, pl.String)))).to_series().to_list()
    assert got == [0.25, 1.0, 1.5, 0.5, 2.0, None, None, None, None, None, None, None]
    for text, cores in zip(texts, got):
        if cores is not None:
            assert parse_cores(text) == cores


def test_cores_expr_reads_a_column_of_millicores():
    got = pl.select(cores_expr(pl.lit(pl.Series(["1500", "128", "250m", "unlimited", "UNLIMITED"])), bare="m")).to_series()
    assert got.to_list() == [1.5, 0.128, 0.25, None, None]


def test_cores_text():
    s = pl.Series([0.5, 2.0, None])
    assert pl.select(cores_text(pl.lit(s), suffix=" cores")).to_series().to_list() == ["0.5 cores", "2.0 cores", "unlimited"]


def test_memory_bytes():
    s = pl.Series("q", ["512Mi", "1Gi", "1000", "2k", "1.5Ki", "1M", "7Qi", "", "Mi"])
    got = pl.select(memory_bytes(pl.lit(s))).to_series().to_list()
    assert got == [512 * 2**20, 2**30, 1000, 2000, 1536, 10**6, None, None, None]


def test_the_examples_hold():
    result = doctest.testmod(quantities, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 10 and result.failed == 0
