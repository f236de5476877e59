"""A monitor log's file or bytes read by polars' line or CSV reader (or split in Python when it could differ): the
same lines either way, on odd bytes and on every monitor fixture."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from throttlelab.errors import InputError
from throttlelab.ingest.monitor import monitor_file
from throttlelab.ingest.monitor.monitor_file import line_frame_from_bytes, read_line_frame
from throttlelab.ingest.monitor.monitor_log import read_monitor_log

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ingest"

LOG = b"--- 2026-02-06 14:24:00.123 ---\n[kubectl top]\nPOD NAME CPU(cores) MEMORY(bytes)\np c 5m 1Mi\n" \
      b"[cgroup cpu.stat]\nnr_periods 10\nnr_throttled -1\nfancy 3\n[odd]\n\nPod: x\n"


def test_text_of_any_line_for_messages(tmp_path):
    lf = line_frame_from_bytes(LOG, "x")
    assert [lf.text(j) for j in range(len(lf))] == LOG.decode().split("\n")[:-1][:9] + [None, "Pod: x"]
    p = tmp_path / "x.log"
    p.write_bytes(LOG)
    assert read_line_frame(p).frame.equals(lf.frame) and read_line_frame(p).texts.equals(lf.texts)


@pytest.mark.parametrize("odd", [b"\x1f", b"\r", b"\xff", "é".encode()])
def test_bytes_the_csv_reader_could_split_differently_give_the_same_lines(odd):
    data = LOG.replace(b"fancy", b"fa" + odd + b"ncy")
    lf = line_frame_from_bytes(data, "x")
    assert len(lf) == 11
    assert lf.flag("bad").tolist()[7] is (odd == b"\xff")


def test_truncated_binary_empty_and_missing(tmp_path):
    assert line_frame_from_bytes(LOG[:-1], "x").truncated
    assert line_frame_from_bytes(b"a\x00b\n", "x").binary
    assert len(line_frame_from_bytes(b"", "x")) == 0
    with pytest.raises(InputError, match="file not found"):
        read_line_frame(tmp_path / "nope.log")
    with pytest.raises(InputError, match="directory"):
        read_line_frame(tmp_path)




LOGS = ["good_v1.log", "good_v2.log", *(f"bad/{p.name}" for p in sorted((FIXTURES / "bad").glob("*.log")))]


@pytest.mark.parametrize("name", LOGS)
@pytest.mark.parametrize("strict", [False, True])
def test_whole_logs_read_the_same_by_polars_line_reader_and_split_in_python(name, strict, monkeypatch):
    """Every monitor fixture, strict and lenient: polars' line (or CSV) reader gives the lines that the plain
    Python split (:func:`throttlelab.ingest.lines.split_lines`) gives, the path taken when the two could differ."""
    def read():
        try:
            r = read_monitor_log(FIXTURES / name, strict=strict)
            return r.frame, (r.skipped, r.lines_total, r.lines_used, r.provenance)
        except Exception as e:  # noqa: BLE001 (the same error either way)
            return type(e), str(e)

    by_reader = read()
    checks = monitor_file._checks
    monkeypatch.setattr(monitor_file, "_checks", lambda buf, size: {**checks(buf, size), "csv": False})
    split = read()
    if isinstance(by_reader[0], pl.DataFrame):
        assert by_reader[0].equals(split[0]) and by_reader[1] == split[1]
    else:
        assert by_reader == split
