"""Tests of throttlelab.input_log: the readers record what they read; a notebook's folder keeps the list."""

from __future__ import annotations

import json

import pytest

from throttlelab import input_log


@pytest.fixture(autouse=True)
def fresh_log():
    input_log.reset()
    yield
    input_log.reset()


def test_records_once_each_in_reading_order_and_keeps_urls_as_given(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.log"
    input_log.record(a)
    input_log.record(str(b))
    input_log.record(tmp_path / "." / "a.csv")
    input_log.record("http://127.0.0.1:9090")
    assert input_log.recorded() == [str(a.resolve()), str(b.resolve()), "http://127.0.0.1:9090"]


def test_a_notebook_folder_holds_the_list_as_it_grows(tmp_path):
    assert input_log.read(tmp_path) is None, "no log kept"
    path = input_log.write_to(tmp_path)
    assert input_log.read(tmp_path) == [] and path.name == input_log.FILE_NAME
    input_log.record(tmp_path / "x.csv")
    assert input_log.read(tmp_path) == [str((tmp_path / "x.csv").resolve())]
    input_log.reset()
    input_log.record(tmp_path / "y.csv")
    assert json.loads(path.read_text())["inputs"] == [str((tmp_path / "x.csv").resolve())], "reset stops writing"
    path.write_text("{not json")
    assert input_log.read(tmp_path) is None


def test_the_readers_record_what_they_open():
    """Published tables, runs tables, monitor logs: each reader that opens a file records it."""
    from throttlelab.analysis.runs.runs_input import load_runs
    from throttlelab.ingest.detect import read_any
    from throttlelab.ingest.published.published import PUBLISHED_DIR, load_contention

    load_contention()
    load_runs("published:automaxprocs")
    sample = PUBLISHED_DIR / "samples" / "local_cgroup_v1_quota_steps.log"
    read_any(sample)
    assert input_log.recorded() == [str(PUBLISHED_DIR / "contention_response_time.csv"),
                                    str(PUBLISHED_DIR / "automaxprocs_gomaxprocs.csv"), str(sample)]
