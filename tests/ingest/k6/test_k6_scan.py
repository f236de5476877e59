"""A k6 scan files points as requests, stage timings or the vus gauge."""

import datetime as dt

from throttlelab.ingest.k6.k6_scan import Scan, no_stage, vu_iter
from throttlelab.ingest.skip_counter import SkipCounter

END = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def test_points_become_requests_stages_and_peak_vus():
    scan = Scan("x.json", 5, SkipCounter("x.json"))
    scan.add_point("vus", None, END, 3, None, None, {}, 1)
    scan.add_point("vus", None, END, 7, None, None, {}, 2)
    scan.add_point("http_req_duration", None, END, 250.0, 1, 0, {"status": "200", "name": "/a"}, 3)
    scan.add_point("http_req_duration", None, END, 10.0, 2, 0, {"status": "0", "error": "dial: connection refused"}, 4)
    scan.add_point("stage_embed", "embed", END, 40.0, 1, 0, {}, 5)
    assert scan.peak_vus == 7
    assert [(r["latency_seconds"], r["http_status"], r["status"], r["endpoint"]) for r in scan.requests] == [
        (0.25, 200, "ok", "/a"), (0.01, 0, "refused", None)]
    assert scan.stage_points == [{"stage": "embed", "metric": "stage_embed", "time": END, "value": 40.0, "vu": 1,
                                  "iter": 0, "line": 5}]


def test_vu_and_iteration_from_metadata_first_then_tags():
    assert vu_iter({"vu": "3", "iter": "9"}, {}) == (3, 9)
    assert vu_iter({"vu": "3"}, {"vu": "4", "iter": ""}) == (4, None)
    assert no_stage("anything") is None
