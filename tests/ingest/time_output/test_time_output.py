"""time output (bash keyword, GNU time -v) -> timings frame."""

from __future__ import annotations

from throttlelab.ingest.time_output.time_output import read_time_output

from tests.ingest.conftest import count_lines


def test_bash_keyword(fixtures):
    r = read_time_output(fixtures / "time_bash.txt")
    row = r.frame.row(0, named=True)
    assert (row["real_seconds"], row["user_seconds"], row["system_seconds"]) == (70.49, 135.12, 3.05)
    assert row["form"] == "bash" and r.skipped.total == 0


def test_mixed_with_command_output(fixtures):
    path = fixtures / "time_mixed.txt"
    r = read_time_output(path)
    assert r.frame["real_seconds"].to_list() == [22.07, 3.85]
    assert r.frame["system_seconds"].to_list() == [2.5, 1.25]  # decimal comma
    assert r.skipped.counts == {"not time output": 2}
    assert r.lines_used + r.skipped.total == r.lines_total == count_lines(path)


def test_gnu_verbose(fixtures):
    r = read_time_output(fixtures / "time_gnu.txt")
    row = r.frame.row(0, named=True)
    assert row["command"] == "ffmpeg -threads 4 -i in.mp4 out.mp4"
    assert row["real_seconds"] == 19.88 and row["user_seconds"] == 75.12 and row["system_seconds"] == 2.34
    assert row["cpu_percent"] == 389 and row["max_rss_bytes"] == 412345 * 1024
    assert row["voluntary_switches"] == 4567 and row["involuntary_switches"] == 8910 and row["exit_status"] == 0
    assert r.skipped.total == 0
