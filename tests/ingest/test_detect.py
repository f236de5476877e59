"""Tests of throttlelab.ingest.detect: formats told from content, errors that list what was tried."""

from __future__ import annotations

import gzip

import pytest

from throttlelab.errors import InputError
from throttlelab.ingest.detect import FORMATS, detect_format, read_any


def test_format_is_detected(fixtures):
    from throttlelab.ingest.detect import detect_format

    assert detect_format(fixtures / "good_v2.log") == "monitor"
    assert detect_format(fixtures / "semaphore__vus10.k6.json") == "k6-json"
    assert detect_format(fixtures / "semaphore__vus20.k6.csv") == "k6-csv"
    assert detect_format(fixtures / "k6_summary.json") == "k6-summary"
    assert detect_format(fixtures / "prometheus_cadvisor.json") == "prometheus"
    assert detect_format(fixtures / "time_gnu.txt") == "time"
    assert detect_format(fixtures / "time_mixed.txt") == "time"
    assert detect_format(fixtures / "cgroup_v1") == "cgroup-dir"
    assert detect_format(fixtures / "bad" / "binary.bin") == "monitor"


def test_compressed_input_is_judged_by_what_it_holds(fixtures, tmp_path):
    gz = tmp_path / "run.log.gz"
    gz.write_bytes(gzip.compress((fixtures / "good_v2.log").read_bytes()))
    assert detect_format(gz) == "monitor"
    assert read_any(gz).samples.height == read_any(fixtures / "good_v2.log").samples.height > 0


@pytest.mark.parametrize("text, fmt", [
    ("# TYPE container_cpu_usage_seconds_total counter\ncontainer_cpu_usage_seconds_total{pod=\"a\"} 1.5\n",
     "prometheus-text"),
    ("real\t1m10.49s\nuser\t0m2.00s\nsys\t0m0.10s\n", "time"),
    ("usage_usec 100\nnr_periods 3\n", "monitor"),
    ("NAME   CPU(cores)   MEMORY(bytes)\npod-a  250m         64Mi\n", "monitor"),
])
def test_small_texts(tmp_path, text, fmt):
    p = tmp_path / "x.txt"
    p.write_text(text)
    assert detect_format(p) == fmt


def test_empty_missing_and_unknown(tmp_path):
    (tmp_path / "empty.txt").write_text("\n\n")
    with pytest.raises(InputError, match="empty file"):
        detect_format(tmp_path / "empty.txt")
    with pytest.raises(InputError):
        detect_format(tmp_path / "missing.txt")
    (tmp_path / "notes.txt").write_text("shopping list\nmilk\n")
    with pytest.raises(InputError) as err:
        detect_format(tmp_path / "notes.txt")
    msg = str(err.value)
    assert msg.startswith(f"{tmp_path / 'notes.txt'}: unknown format (none of the formats matched")
    first, *tried = msg.splitlines()
    assert "--format" in first and len(first) - len(str(tmp_path / "notes.txt")) <= 200
    assert [t.split(":")[0].strip() for t in tried] == list(FORMATS)  # one format a line, after the error


def test_read_any_by_name(fixtures):
    r = read_any(fixtures / "time_bash.txt", "time")
    assert r.table == "timings" and r.frame["real_seconds"][0] == 70.49
    with pytest.raises(ValueError, match="unknown format 'xml'; known: auto, monitor"):
        read_any(fixtures / "time_bash.txt", "xml")
