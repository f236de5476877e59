"""The lazy k6 NDJSON reader: fast chunks and slow chunks give the same rows, lines and skips."""

from __future__ import annotations

import json

import pytest

from throttlelab.ingest import input_files
from throttlelab.ingest.k6.k6 import read_k6_json
from throttlelab.ingest.k6.k6_ndjson import scan_ndjson


def _point(metric, k, time="2026-02-06T14:24:00.5+09:00"):
    return json.dumps({"metric": metric, "type": "Point", "data": {"time": time, "value": 100 + k,
                       "tags": {"status": "200", "name": "http://x/", "expected_response": "true"},
                       "metadata": {"vu": "1", "iter": str(k)}}}, separators=(",", ":"))


def _lines(n=3000, bad_at=(1777,)):
    out = []
    for k in range(1, n + 1):
        metric = "http_req_duration" if k % 3 == 0 else "http_req_waiting"
        out.append(_point(metric, k, "not a time" if k in bad_at else "2026-02-06T14:24:00.5+09:00"))
    return out


@pytest.mark.parametrize("chunk", [2**10, 2**14, 2**24])
def test_fast_path_lines_and_skips(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(input_files, "CHUNK_BYTES", chunk)
    lines = _lines(bad_at=(1776, 2000))  # 1776 is a request line (bad), 2000 another metric (not parsed)
    p = tmp_path / "run.json"
    p.write_text("\n".join(lines) + "\n")
    r = read_k6_json(p)
    assert r.frame.height == 1000 - 1
    assert r.skipped.counts == {"bad k6 point (time/value)": 1}
    assert r.skipped.first.line == 1776
    assert r.lines_total == 3000 and r.lines_used == 2999


def test_slow_chunk_when_not_compact(tmp_path):
    lines = _lines(bad_at=(1776,))
    lines[10] = lines[10].replace('"metric":"', '"metric": "')  # not k6's writing: the chunk is parsed line by line
    lines[20] = "garbage"
    p = tmp_path / "run.json"
    p.write_text("\n".join(lines) + "\n")
    r = read_k6_json(p)
    assert r.skipped.counts == {"not JSON": 1, "bad k6 point (time/value)": 1}
    assert sorted(s.line for v in r.skipped.examples.values() for s in v) == [21, 1776]
    assert r.frame.height == 1000 - 2  # line 21 (a request) is garbage, 1776 has a bad time


def test_truncated_last_line_and_stage_line_numbers(tmp_path):
    lines = _lines(n=30, bad_at=())
    lines[4] = _point("stage_embedding", 5)
    p = tmp_path / "run.json"
    p.write_text("\n".join(lines) + "\n" + _point("http_req_duration", 99)[:40])
    scan = scan_ndjson(p, lambda m: "embedding" if m == "stage_embedding" else None)
    assert [s["line"] for s in scan.stage_points] == [5]
    assert scan.skips.report().counts == {"truncated last line (no newline)": 1}
    assert scan.lines_total == 31 and len(scan.requests) == 10
