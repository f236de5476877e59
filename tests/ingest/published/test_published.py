"""The bundled published datasets load into tidy frames with the write-ups' numbers."""

import pytest

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest.published import published as pub


def test_ffmpeg_is_a_canonical_runs_table():
    runs = pub.load_ffmpeg_sweep()
    assert tables.validate(runs, "runs") == []
    assert runs.height == 16
    sweep = runs.filter(runs["experiment"] == "ffmpeg-sweep")
    assert sweep.height == 11
    assert sweep["cpu_limit_cores"].null_count() == 1  # unlimited
    row = sweep.filter(sweep["cpu_limit_cores"] == 6.0).row(0, named=True)
    assert row["wall_seconds"] == pytest.approx(27.45)
    assert row["threads"] == "auto"
    repeat = runs.filter(runs["experiment"] == "ffmpeg-dead-zone-repeat")
    assert sorted(repeat["cpu_limit_cores"].to_list()) == [4.0, 5.0, 6.0, 7.0, 8.0]


def test_contention_units():
    df = pub.load_contention()
    assert df.height == 21
    row = df.filter((df["requests_per_30s"] == 450) & (df["contention"] == 0.7)).row(0, named=True)
    assert row["mean_latency_seconds"] == pytest.approx(0.236)
    assert row["load"] == pytest.approx(15.0)


def test_semaphore_and_others():
    sem = pub.load_semaphore()
    assert set(sem["stage"]) == {"embedding", "categories", "duplicates", "quality", "score", "total"}
    assert sem.filter(sem["semaphore"].is_null()).height == sem.filter(sem["semaphore"] == 4).height
    go = pub.load_go_active_time()
    assert go["active_over_wall"].to_list() == pytest.approx([0.106, 0.252, 0.483, 0.95])
    mtx = pub.load_mediamtx()
    assert mtx.filter(mtx["variant"] == "asis")["cpu_cores"][0] == pytest.approx(0.4552)


def test_missing_file_names_the_file(tmp_path):
    with pytest.raises(InputError, match="nope.csv: file not found"):
        pub.load_contention(tmp_path / "nope.csv")


def test_missing_column_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("requests_per_30s,stress\n150,0\n")
    with pytest.raises(InputError, match=r"bad.csv:1: missing column"):
        pub.load_contention(bad)
