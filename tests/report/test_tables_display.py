"""Tables for people: labels with units, precision, no reprs, empty tables say why."""

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from throttlelab.report.tables_display import format_number, format_value, readable_label, table_html, table_markdown

LEAKS = ("shape:", "PosixPath(", "object at 0x", "…", '"', "str</", "f64", "i64", "null", "None", "nan")


@pytest.mark.parametrize("column, label", [
    ("geomean_seconds", "geomean (s)"), ("slowdown_pct", "slowdown (%)"), ("ci_low", "95% CI low"),
    ("cpu_limit_cores", "CPU limit (cores)"), ("memory_mib", "memory (MiB)"), ("threads", "threads"),
])
def test_readable_labels_carry_units(column, label):
    assert readable_label(column) == label


@pytest.mark.parametrize("value, column, text", [
    (70.49, "", "70.5"), (0.114146, "", "0.114"), (20.358649, "", "20.4"), (12345.6, "", "12,346"),
    (8.56e-16, "", "< 0.001"), (-2e-9, "", "> -0.001"), (None, "", "–"), (float("nan"), "", "–"), (float("inf"), "", "∞"),
    (0.0004, "p_value", "< 0.001"), (0.0391, "adjusted_p", "0.039"), (34.21, "slowdown_pct", "34.2"), (3, "", "3"),
    (1234567, "", "1,234,567"), (True, "", "yes"),
])
def test_numbers_have_sensible_precision(value, column, text):
    assert format_number(value, column=column) == text


def test_values_never_show_python_reprs():
    from dataclasses import dataclass

    @dataclass
    class Thing:
        a: int
        b: str

    assert format_value(Path("/x/y.csv")) == "/x/y.csv"
    assert format_value(Thing(1, "z")) == "a: 1; b: z"
    assert format_value({"k": [1, 2]}) == "k: 1, 2"
    assert format_value(dt.date(2024, 1, 2)) == "2024-01-02"


def _frame():
    return pl.DataFrame({
        "group": ["ffmpeg, threads=auto"] * 3 + ["x" * 80],
        "limit_label": ["500m", "1000m", "unlimited", "2000m"],
        "geomean_seconds": [70.49, 40.0312, None, 3.85],
        "runs": [1, 2, 3, 4],
        "load": [10.0, 15.0, 20.0, 25.0],
        "empty": [None, None, None, None],
        "paths": [Path("/a"), Path("/b"), Path("/c"), Path("/d")],
        "ok": [True, False, True, True],
    }, schema_overrides={"empty": pl.Float64, "paths": pl.Object})


def test_table_html_has_no_repr_dtype_shape_or_truncation():
    df = pl.concat([_frame()] * 10)  # 40 rows: polars would truncate its repr
    html = table_html(df, title="Runs")
    text = table_markdown(df)
    for leak in LEAKS:
        assert leak not in text, leak
    assert "shape:" not in html and "PosixPath" not in html and "…" not in html
    assert text.count("\n") == 41, "every row is shown"
    assert "| 10 |" in text, "whole-number floats shown as integers"
    assert "CPU limit" in text and "geomean (s)" in text and "empty" not in text.split("\n")[0]
    assert "Left out, no value in any row: empty" in html


def test_mapping_is_a_two_column_table():
    text = table_markdown({"runs_analysed": 16, "machine_cores": 20.0, "excluded_by_reason": {}})
    assert text.splitlines()[2] == "| runs analysed | 16 |"
    assert "| machine (cores) | 20.0 |" in text
    assert "| excluded by reason | – |" in text


def test_show_table_says_why_a_table_is_empty(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    from throttlelab.report.tables_display import show_table

    shell = InteractiveShell.instance()
    shell.display_pub.publish = lambda data, metadata=None, **kw: print(data)  # capture display output
    try:
        show_table(pl.DataFrame(), title="Skipped lines", empty="every line was used")
        show_table(_frame().head(2), title="Runs")
    finally:
        InteractiveShell.clear_instance()
    out = capsys.readouterr().out
    assert "Skipped lines: every line was used." in out
    assert "text/html" in out and "gt_table" in out


def test_quantities_are_shown_in_the_unit_a_reader_expects():
    """Latency in ms, memory in MiB, shares in %, no scientific notation (one formatter, throttlelab.units)."""
    df = pl.DataFrame({"latency_p999_seconds": [0.0264, 0.00084], "max_memory_bytes": [3_145_728, 5_242_880],
                       "throttled_ratio": [0.993, 0.099], "knee": [0.452, 0.5], "estimate": [8.56e-16, 1.5]})
    text = table_markdown(df, quantities={"knee": "share"})
    head, _, first, second = text.splitlines()
    assert head == "| latency p999 (ms) | max memory (MiB) | throttled ratio (%) | knee (%) | estimate |"
    assert first == "| 26.4 | 3 | 99.3 | 45.2 | < 0.001 |" and second.startswith("| 0.840 | 5 | 9.90 | 50.0 |")
    assert "e-" not in text


def test_a_table_of_several_metrics_shows_each_value_in_its_own_unit():
    df = pl.DataFrame({"metric": ["throughput_rps", "latency_p50_seconds"], "unit": ["req/s", "s"],
                       "use_value": [44715.07, 0.00084], "change_pct": [-50.4, -46.4]})
    text = table_markdown(df)
    assert "unit" not in text.splitlines()[0]
    assert "| throughput | 44,715 req/s |" in text and "| p50 latency | 0.84 ms |" in text
