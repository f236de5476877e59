"""``throttlelab ingest`` on the real-format corpus: merged Prometheus files, compressed inputs, refusals in one line."""

from __future__ import annotations

import json
import subprocess
import sys

import polars as pl
import pytest


def ingest(*args):
    return subprocess.run([sys.executable, "-m", "throttlelab", "ingest", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_prometheus_files_merged_with_provenance(real, tmp_path):
    paths = sorted((real / "prometheus").glob("query_range_*.json"))
    out = tmp_path / "s.parquet"
    p = ingest(*paths, "-o", out, "--intervals", tmp_path / "i.parquet")
    assert p.returncode == 0, p.stderr
    df = pl.read_parquet(out)
    assert df.height == 5 and df["nr_throttled"].null_count() == 0 and df["usage_seconds"].null_count() == 0
    prov = json.loads(pl.read_parquet_metadata(out)["throttlelab.provenance"])
    assert set(prov) == {str(x) for x in paths}
    assert "counter (metric name" in p.stdout
    assert pl.read_parquet(tmp_path / "i.parquet")["throttled_ratio"].to_list() == [140 / 150, 140 / 150, 120 / 150]


def test_rate_series_table_and_decision_printed(real, tmp_path):
    p = ingest(real / "prometheus" / "container_cpu_usage_seconds_total_by_pod.json", "-o", tmp_path / "r.parquet")
    assert p.returncode == 0, p.stderr
    assert "prometheus_rates rows" in p.stdout and "1 series rate (values go down" in p.stdout
    assert pl.read_parquet(tmp_path / "r.parquet")["value"].to_list() == [3.9871, 4.0012, 3.2104, 3.9987]


@pytest.mark.parametrize("name", ["docs_out_json.json.gz", "docs_out_json.zst"])
def test_compressed_k6(real, tmp_path, name):
    p = ingest(real / "k6" / name, "-o", tmp_path / "k.parquet")
    assert p.returncode == 0, p.stderr
    assert "k6-json: 1 requests rows from 4 lines" in p.stdout


def test_unknown_format_lists_the_formats(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("dear diary\nthe pods were slow today\n")
    p = ingest(f, "-o", tmp_path / "o.parquet")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    (line,) = p.stderr.splitlines()
    assert line.startswith(f"throttlelab: error: {f}: unknown format")
    for fmt in ("monitor", "k6-json", "k6-csv", "k6-summary", "prometheus", "prometheus-text", "time", "cgroup-dir"):
        assert f"{fmt}:" in line


def test_missing_path_is_one_line_before_reading_anything(real, tmp_path):
    p = ingest(real / "k6" / "docs_out_json.json", tmp_path / "nope.json", "-o", tmp_path / "o.parquet")
    assert p.returncode == 2 and p.stderr == f"throttlelab: error: {tmp_path / 'nope.json'}: file not found\n"
    assert p.stdout == ""


def test_lenient_run_that_read_nothing_fails(real, tmp_path):
    f = tmp_path / "only_metrics.json"
    f.write_text((real / "k6" / "docs_out_json.json").read_text().splitlines()[0] + "\n")
    p = ingest(f, "-o", tmp_path / "o.parquet")
    assert p.returncode == 2 and "no rows read from 1 input(s)" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "o.parquet").exists()


def test_corrupt_gzip_is_one_line(real, tmp_path):
    data = (real / "k6" / "docs_out_json.json.gz").read_bytes()
    f = tmp_path / "cut.json.gz"
    f.write_bytes(data[: len(data) // 2])
    p = ingest(f, "-o", tmp_path / "o.parquet", "--format", "k6-json")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.startswith(f"throttlelab: error: {f}: corrupt gzip data") and len(p.stderr.splitlines()) == 1


def test_progress_bar_only_when_asked_or_on_a_terminal(real, capsys):
    from throttlelab.ingest.k6.k6 import read_k6_json
    from throttlelab.ingest.progress import wants_progress

    assert not wants_progress(10**9)  # pytest's stderr is not a terminal
    assert not wants_progress(10**6, None)
    read_k6_json(real / "k6" / "docs_out_json.json", progress=True)
    assert "docs_out_json.json" in capsys.readouterr().err


EXPECTED_FORMAT = {"k6": {".csv": "k6-csv", "docs_out_json": "k6-json", "summary": "k6-summary"},
                   "prometheus": {".prom": "prometheus-text", ".json": "prometheus"}, "time": {"": "time"}}


def test_every_real_sample_is_detected(real):
    from throttlelab.ingest.detect import detect_format

    seen = 0
    for folder, rules in EXPECTED_FORMAT.items():
        for f in sorted((real / folder).iterdir()):
            want = next(v for k, v in rules.items() if k in f.name)
            assert detect_format(f) == want, f
            seen += 1
    assert seen == 24
