"""Published tables as runs tables: the documented CSV layout, the automaxprocs table, bad rows named by line."""

from __future__ import annotations

import polars as pl
import pytest

from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.errors import InputError
from throttlelab.ingest.published.published import load_automaxprocs
from throttlelab.ingest.published.published_runs import parse_limit, read_published_runs


def test_automaxprocs_table_is_a_runs_table():
    r = load_automaxprocs()
    assert r.height == 6 and set(r["backend"]) == {"published"} and set(r["cpu_limit_cores"]) == {2.0}
    assert r["threads"].to_list() == ["1", "2", "3", "4", "8", "24"]
    row = r.filter(pl.col("threads") == "24").row(0, named=True)
    assert row["throughput_rps"] == pytest.approx(22191.40)
    assert row["latency_p50_seconds"] == pytest.approx(0.00045)
    assert row["latency_p999_seconds"] == pytest.approx(0.07619)
    assert load_runs("published:automaxprocs").equals(r)


def test_layout_with_replicates_and_units(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("limit,threads,replicate,wall_seconds,latency_p99_ms\n1,auto,0,2.5,10\n1,auto,1,2.7,\n500m,2,0,4,12\n")
    r = load_runs(p)
    assert r["cpu_limit_cores"].to_list() == [1.0, 1.0, 0.5] and r["replicate"].to_list() == [0, 1, 0]
    assert r["latency_p99_seconds"].to_list() == [pytest.approx(0.01), None, pytest.approx(0.012)]
    assert parse_limit("unlimited") is None and parse_limit("2000m") == 2.0


@pytest.mark.parametrize("text, where, what", [
    ("limit,threads,throughput_rps\n2,1,100\n2,1,90\n", ":3", "duplicate cell"),
    ("limit,threads,throughput_rps\n2000x,1,100\n", ":2", "bad limit"),
    ("limit,threads,throughput_rps\n2,0,100\n", ":2", "bad threads"),
    ("limit,threads,throughput_rps\n2,1,fast\n", ":2", "bad throughput_rps"),
    ("limit,threads,rps\n2,1,100\n", ":1", "no metric column"),
    ("threads,throughput_rps\n1,100\n", ":1", "missing column(s) limit"),
    ("limit,threads,throughput_rps\n", "", "no rows"),
])
def test_bad_input_names_file_and_line(tmp_path, text, where, what):
    p = tmp_path / "bad.csv"
    p.write_text(text)
    with pytest.raises(InputError) as exc:
        read_published_runs(p)
    assert f"bad.csv{where}: {what}" in str(exc.value)


def test_missing_file_and_unknown_name():
    with pytest.raises(InputError, match="not found"):
        read_published_runs("/nonexistent/x.csv")
    with pytest.raises(InputError, match="unknown published runs table"):
        load_runs("published:nope")
