"""Real ``time`` output (tests/fixtures/real/time, provenance in its README): exact rows and values."""

from __future__ import annotations

from throttlelab.ingest.time_output.time_output import read_time_output

from .conftest import count_lines

COLS = ["form", "line", "real_seconds", "user_seconds", "system_seconds", "cpu_percent", "max_rss_bytes",
        "exit_status", "signal", "status"]


def rows(r):
    return [tuple(x) for x in r.frame.select(COLS).iter_rows()]


def test_gnu_default_ok_failed_killed(real):
    path = real / "time" / "gnu_default.txt"
    r = read_time_output(path)
    assert rows(r) == [
        ("gnu", 1, 2.27, 0.52, 0.03, 24.0, 13288 * 1024, 0, None, "ok"),
        ("gnu", 4, 0.10, 0.0, 0.0, 0.0, 1700 * 1024, 3, None, "failed"),
        ("gnu", 7, 0.0, 0.0, 0.0, 91.0, 1544 * 1024, None, 9, "killed"),
    ]
    assert r.skipped.total == 0 and r.lines_used == r.lines_total == count_lines(path) == 8


def test_gnu_verbose_failed_and_killed(real):
    path = real / "time" / "gnu_verbose_failed.txt"
    r = read_time_output(path)
    assert rows(r) == [
        ("gnu-v", 2, 1.65, 0.34, 0.01, 21.0, 13420 * 1024, 3, None, "failed"),
        # GNU time -v says "Exit status: 0" after "Command terminated by signal 9": the signal decides
        ("gnu-v", 26, 0.0, 0.0, 0.0, 0.0, 1628 * 1024, None, 9, "killed"),
    ]
    assert r.frame["command"].to_list() == ["python3 -c import sys; sum(range(2*10**7)); sys.exit(3)", "sh -c kill -9 $$"]
    assert r.skipped.total == 0 and r.lines_total == count_lines(path)


def test_bash_time_p(real):
    path = real / "time" / "bash_time_p.txt"
    r = read_time_output(path)
    assert rows(r) == [("bash", 2, 2.75, 0.56, 0.02, None, None, None, None, None)]
    assert r.skipped.counts == {"not time output": 1}  # the command's own output line
    assert r.lines_used + r.skipped.total == r.lines_total == 4


def test_zsh_time_lines(real):
    path = real / "time" / "zsh_time.txt"
    r = read_time_output(path)
    assert rows(r) == [
        ("zsh", 1, 0.113, 0.0, 0.0, 1.0, None, None, None, None),
        ("zsh", 2, 0.009, 0.0, 0.0, 9.0, None, None, None, None),
        ("zsh", 3, 61.21, 0.0, 0.0, 0.0, None, None, None, None),
    ]
    assert r.frame["command"].to_list() == ["sleep 0.1", 'sh -c "exit 2"', "sleep 61.2"]
    assert r.skipped.total == 0


def test_bsd_macos_time(real):
    path = real / "time" / "bsd_time.txt"
    r = read_time_output(path)
    assert rows(r) == [
        ("bsd", 2, 2.75, 0.56, 0.02, None, None, None, None, None),
        ("bsd", 3, 61.21, 230.07, 3.40, None, None, None, None, None),
    ]
    assert r.skipped.counts == {"not time output": 1} and r.lines_total == 3
