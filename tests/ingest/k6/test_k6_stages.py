"""k6 custom Trend metrics -> stage_timings, linked to their requests by VU iteration."""

from __future__ import annotations

import polars as pl
import pytest

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest.k6.k6_stages import (is_k6_csv, linked, read_k6_stage_timings, read_k6_with_stages,
                                          stage_namer)

from tests.ingest.conftest import count_lines


def test_stage_names_from_prefix_and_mapping():
    name = stage_namer(stages={"total_duration": "total"})
    assert name("stage_embedding") == "embedding" and name("stage_total") == "total"
    assert name("total_duration") == "total"
    assert name("stage_") is None and name("http_req_duration") is None and name("my_counter") is None
    assert stage_namer(prefix="")("stage_x") is None


def test_json_stages_link_to_the_request_of_their_vu_iteration(fixtures):
    path = fixtures / "semaphore__stages.k6.json"
    req, st = read_k6_with_stages(path, stages={"total_duration": "total"}, config="workers=8,semaphore=4")
    assert tables.validate(st.frame, "stage_timings") == [] and tables.validate(req.frame, "requests") == []
    assert req.frame["status"].to_list() == ["ok", "ok", "ok", "refused"]
    assert req.frame["vu"].to_list() == [1, 2, 1, 3]
    assert req.frame["load"].unique().to_list() == [3.0]  # the peak of the vus gauge
    got = st.frame.select("request_id", "stage", "seconds").rows()
    # the embedding value of VU 1 is written after VU 2's request ended: the link follows vu/iter, not time
    assert got == [(0, "embedding", 0.3), (0, "categories", 0.05), (0, "total", 0.38), (1, "embedding", 0.32),
                   (1, "total", 0.37), (2, "embedding", 0.35), (-1, "embedding", 0.01)]
    assert st.frame["config"].unique().to_list() == ["workers=8,semaphore=4"]
    assert st.frame.filter(linked()).height == 6
    # one scan, one line account: the bad stage value is skipped and counted, nothing else lost
    assert st.skipped.counts == {"bad k6 point (time/value)": 1}
    assert st.lines_used + st.skipped.total == st.lines_total == count_lines(path)
    assert (req.lines_total, req.lines_used) == (st.lines_total, st.lines_used)


def test_without_mapping_unknown_custom_metrics_are_not_stages(fixtures):
    st = read_k6_stage_timings(fixtures / "semaphore__stages.k6.json")
    assert "total_duration" not in st.frame["stage"].to_list()
    assert st.frame.filter(pl.col("request_id") == 1)["stage"].to_list() == ["embedding"]


def test_csv_stages_with_metadata_column(fixtures):
    path = fixtures / "semaphore__stages.k6.csv"
    assert is_k6_csv(path)
    req, st = read_k6_with_stages(path)
    assert req.frame["vu"].to_list() == [1, 2] and req.frame["load"][0] == 2.0
    assert st.frame.select("request_id", "seconds").rows() == [(0, 0.3), (1, 0.31), (-1, 0.005)]
    assert st.skipped.counts == {"bad k6 CSV row (timestamp/value)": 1}
    assert st.lines_used + st.skipped.total == st.lines_total == count_lines(path)
    with pytest.raises(InputError, match=r"stages.k6.csv:8: bad k6 CSV row"):
        read_k6_with_stages(path, strict=True)


def test_plain_request_output_gives_an_empty_stage_table(fixtures):
    req, st = read_k6_with_stages(fixtures / "semaphore__vus10.k6.json")
    assert req.frame.height == 3 and st.frame.is_empty()
    assert tables.validate(st.frame, "stage_timings") == []


def test_unit_and_load_override(fixtures):
    st = read_k6_stage_timings(fixtures / "semaphore__stages.k6.json", units_per_second=1.0, load=10)
    assert st.frame["seconds"][0] == 300.0 and st.frame["load"].unique().to_list() == [10.0]
