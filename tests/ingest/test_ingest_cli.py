"""``throttlelab ingest`` as a subprocess: exit codes, messages, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import polars as pl
import pytest

from throttlelab import tables

from tests.ingest.monitor.test_monitor_log import BAD


def ingest(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "throttlelab", "ingest", *map(str, args)],
        capture_output=True, text=True, timeout=120, cwd=cwd,
    )


def test_good_log(fixtures, tmp_path):
    out, iv = tmp_path / "s.parquet", tmp_path / "i.parquet"
    p = ingest(fixtures / "good_v2.log", "-o", out, "--intervals", iv)
    assert p.returncode == 0, p.stderr
    assert "4 samples rows" in p.stdout
    assert tables.validate(pl.read_parquet(out), "samples") == []
    assert pl.read_parquet(iv).height == 3


@pytest.mark.parametrize("name", BAD)
def test_bad_inputs_lenient_and_strict(fixtures, tmp_path, name):
    path = fixtures / "bad" / name
    lenient = ingest(path, "-o", tmp_path / "o.parquet")
    if name == "random.bin":  # no format's shape: refused, naming what was tried
        assert lenient.returncode == 2 and "unknown format (binary content)" in lenient.stderr
        return
    if name == "empty.log":  # read nothing: an error even when lenient
        assert lenient.returncode == 2 and lenient.stderr.startswith(f"throttlelab: error: {path}: empty file")
    else:
        assert lenient.returncode == 0, lenient.stderr
    assert "Traceback" not in lenient.stderr + lenient.stdout
    strict = ingest(path, "-o", tmp_path / "o2.parquet", "--strict")
    assert "Traceback" not in strict.stderr + strict.stdout
    if name in ("crlf.log", "counters_backwards.log", "sections_missing.log", "binary.bin"):
        # binary.bin is a gzip-compressed good log: read as such
        assert strict.returncode == 0, strict.stderr  # not problems: accepted as is
    else:
        assert strict.returncode == 2
        assert strict.stderr.startswith(f"throttlelab: error: {path}")
    if lenient.stderr:
        assert "skipped" in lenient.stderr and f"{path}:" in lenient.stderr or name == "empty.log"


def test_missing_file(tmp_path):
    p = ingest(tmp_path / "nope.log", "-o", tmp_path / "o.parquet")
    assert p.returncode == 2 and "file not found" in p.stderr and "Traceback" not in p.stderr


def test_ten_megabyte_line_and_binary(tmp_path, fixtures):
    long = tmp_path / "long.log"
    long.write_bytes((fixtures / "good_v2.log").read_bytes() + b"y" * (10 * 2**20) + b"\n")
    p = ingest(long, "-o", tmp_path / "o.parquet")
    assert p.returncode == 0 and "line too long" in p.stderr and len(p.stderr) < 2000
    p = ingest(long, "-o", tmp_path / "o.parquet", "--strict")
    assert p.returncode == 2 and "line too long" in p.stderr and len(p.stderr) < 2000
    binary = tmp_path / "random.bin"
    binary.write_bytes(bytes(range(256)) * 100)
    p = ingest(binary, "-o", tmp_path / "o.parquet")
    assert p.returncode == 2 and "unknown format (binary content)" in p.stderr and "Traceback" not in p.stderr
    assert "k6-json" in p.stderr and "prometheus-text" in p.stderr and len(p.stderr.splitlines()) == 1


def test_mixed_kinds_give_one_file_per_table(fixtures, tmp_path):
    p = ingest(fixtures / "good_v1.log", fixtures / "semaphore__vus20.k6.csv", fixtures / "time_bash.txt", "-o", tmp_path / "all.parquet")
    assert p.returncode == 0, p.stderr
    assert pl.read_parquet(tmp_path / "all.samples.parquet").height == 3
    assert tables.validate(pl.read_parquet(tmp_path / "all.requests.parquet"), "requests") == []
    assert pl.read_parquet(tmp_path / "all.timings.parquet").height == 1


def test_explicit_format(fixtures, tmp_path):
    p = ingest(fixtures / "time_bash.txt", "--format", "time", "-o", tmp_path / "t.parquet")
    assert p.returncode == 0 and pl.read_parquet(tmp_path / "t.parquet")["real_seconds"][0] == 70.49


def test_tz_is_stated_and_recorded_and_files_are_read_together(fixtures, tmp_path):
    stat = tmp_path / "stat.log"
    stat.write_text("".join(f"2026-02-06 14:24:0{k}.3N\nusage_usec {k * 100}\nnr_periods {k}\nnr_throttled 0\n" for k in range(3)))
    out = tmp_path / "s.parquet"
    p = ingest(stat, fixtures / "good_v1.log", "-o", out, "--tz", "Asia/Seoul")
    assert p.returncode == 0, p.stderr
    assert "times without a zone read in Asia/Seoul" in p.stdout
    provenance = json.loads(pl.read_parquet_metadata(out)["throttlelab.provenance"])
    assert provenance[str(stat)]["naive_timestamps_tz"] == "Asia/Seoul"
    s = pl.read_parquet(out)
    assert s.height == 3 + 3 and s["timestamp"][0].hour == 5  # 14:24 KST = 05:24 UTC


def test_bare_inputs_are_detected_as_monitor_logs(tmp_path):
    from throttlelab.ingest.detect import detect_format

    top = tmp_path / "top.log"
    top.write_text("NAME      CPU(cores)   MEMORY(bytes)\napi-1     250m         100Mi\n")
    stat = tmp_path / "stat.log"
    stat.write_text("usage_usec 5\nuser_usec 4\nsystem_usec 1\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n")
    assert detect_format(top) == detect_format(stat) == "monitor"
