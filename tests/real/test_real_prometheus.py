"""Real-format Prometheus samples (tests/fixtures/real/prometheus, provenance in its README): exact rows and values."""

from __future__ import annotations

import datetime as dt
import json

from throttlelab import tables
from throttlelab.ingest.prometheus.prometheus import read_prometheus, read_prometheus_parts

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 2, 6, 14, 24, tzinfo=UTC)
COLS = ["timestamp", "container", "segment", "usage_seconds", "nr_periods", "nr_throttled", "limit_cores", "period_us"]


def test_one_query_range_file_per_metric_is_merged_and_restarts_stay_distinct(real):
    paths = sorted((real / "prometheus").glob("query_range_*.json"))
    r = read_prometheus(paths)
    s = r.samples
    assert tables.validate(s, "samples") == []
    assert [tuple(x) for x in s.select(COLS).iter_rows()] == [
        (T0, "ffmpeg", 0, 100.5, 1000, 900, None, None),
        (T0 + dt.timedelta(seconds=15), "ffmpeg", 0, 160.5, 1150, 1040, None, None),
        (T0 + dt.timedelta(seconds=30), "ffmpeg", 0, 220.5, 1300, 1180, None, None),
        # the restarted container: another id and image, its own series and segment
        (T0 + dt.timedelta(seconds=45), "ffmpeg", 1, 30.25, 150, 120, None, None),
        (T0 + dt.timedelta(seconds=60), "ffmpeg", 1, 90.25, 300, 240, None, None),
    ]
    assert s["series"].n_unique() == 2 and all("cpu=" not in x for x in s["series"])  # cpu="total" normalised
    assert "id=/kubepods/burstable/pod5e0c.../cri-containerd-1a2b3c" in s["series"][0]
    assert r.skipped.total == 0 and r.lines_total == r.lines_used == 15 and r.unit == "values"
    iv = r.intervals()
    assert iv["throttled_ratio"].to_list() == [140 / 150, 140 / 150, 120 / 150]
    assert iv["effective_cores"].to_list() == [4.0, 4.0, 4.0]
    prov = r.provenance[str(paths[0])]
    assert prov["aggregation"].startswith("none") and {x["kind"] for x in prov["series"]} == {"counter"}


def test_the_same_file_twice_counts_duplicates(real):
    p = real / "prometheus" / "query_range_container_cpu_cfs_periods_total.json"
    r = read_prometheus([p, p])
    assert r.samples.height == 5 and r.skipped.counts == {"duplicate value (same series and time already read)": 5}
    assert r.lines_total == 10


def test_rate_without_a_name_is_a_rate(real):
    p = real / "prometheus" / "container_cpu_usage_seconds_total_by_pod.json"
    parts = read_prometheus_parts(p)
    assert list(parts) == ["prometheus_rates"]
    r = parts["prometheus_rates"]
    assert r.frame["value"].to_list() == [3.9871, 4.0012, 3.2104, 3.9987]
    assert r.frame["measure"].unique().to_list() == ["cores"]
    assert r.frame["timestamp"][0] == T0 + dt.timedelta(seconds=45)
    (series,) = r.provenance[str(p)]["series"]
    assert series["kind"] == "rate" and "go down" in series["decided_by"]
    forced = read_prometheus_parts(p, kind="counter")
    assert list(forced) == ["samples"] and forced["samples"].samples["usage_seconds"].to_list()[0] == 3.9871


def test_instant_vector(real):
    r = read_prometheus(real / "prometheus" / "query_vector_spec.json")
    s = r.samples
    assert s.height == 1 and s["limit_cores"].to_list() == [4.0] and s["period_us"].to_list() == [100000]
    assert s["timestamp"][0] == T0 + dt.timedelta(seconds=60, milliseconds=781)
    assert r.provenance[str(real / "prometheus" / "query_vector_spec.json")]["result_type"] == "vector"


def test_kubelet_metrics_cadvisor_text(real):
    p = real / "prometheus" / "kubelet_metrics_cadvisor.prom"
    r = read_prometheus(p)
    s = r.samples
    when = dt.datetime(2025, 4, 16, 3, 46, 5, 350000, tzinfo=UTC)
    assert [tuple(x) for x in s.select(COLS).iter_rows()] == [
        (when, None, 0, 7042.43, 70521, 63012, None, None),  # the pod's cgroup (container="")
        (when, "stress-test", 1, 7040.1, 70498, 62990, 0.1, 100000),  # spec gauges have no timestamp
    ]
    assert r.skipped.counts == {"metric not used": 1}  # container_memory_working_set_bytes
    assert r.unit == "lines" and r.lines_total == 21 and r.lines_used == 20
    assert "latest sample timestamp" in r.provenance[str(p)]["untimed_samples"]


def test_kubelet_metrics_resource_text(real):
    r = read_prometheus(real / "prometheus" / "kubelet_metrics_resource.prom")
    s = r.samples
    assert s.select("pod", "container", "usage_seconds").rows() == [("stress-demo-5d5d9c8bcb-wsl6p", "stress-test", 6765.751112)]
    assert s["timestamp"][0] == dt.datetime(2025, 4, 16, 3, 46, 5, 350000, tzinfo=UTC)
    assert r.skipped.counts == {"metric not used": 4} and r.lines_total == 5


def test_cadvisor_issue_line(real):
    r = read_prometheus(real / "prometheus" / "cadvisor_issue2686.prom")
    s = r.samples
    assert s["nr_throttled"].to_list() == [18121] and s["pod"].to_list() == [None]
    assert s["timestamp"][0] == dt.datetime(2020, 9, 30, 13, 24, 55, 73000, tzinfo=UTC)
    assert s["series"][0].endswith("id=/ecs/1b9663fa-7658-4ef0-9dd9-382324745905,image=,name=")


def test_per_cpu_series_are_never_summed(tmp_path):
    doc = {"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"__name__": "container_cpu_usage_seconds_total", "pod": "p", "container": "c", "cpu": f"cpu0{k}"},
         "values": [[1770387840, str(10 + k)], [1770387855, str(20 + k)]]} for k in range(2)]}}
    p = tmp_path / "percpu.json"
    p.write_text(json.dumps(doc))
    s = read_prometheus(p).samples
    assert s.height == 4 and s["series"].n_unique() == 2 and sorted(s["usage_seconds"]) == [10, 11, 20, 21]


def test_text_line_problems_are_counted_with_their_lines(tmp_path, real, monkeypatch):
    from throttlelab.ingest import input_files

    monkeypatch.setattr(input_files, "CHUNK_BYTES", 512)  # several chunks
    lines = (real / "prometheus" / "kubelet_metrics_cadvisor.prom").read_bytes().splitlines()
    lines[3] = b"container_cpu_cfs_periods_total{container=\"x\" 12"  # broken label set
    lines[11] = lines[11].replace(b"stress-test", b"stre\xffss")  # not UTF-8
    p = tmp_path / "c.prom"
    p.write_bytes(b"\n".join(lines) + b"\ncontainer_cpu_usage_seconds_total{pod=\"p\"} 1")  # cut while written
    r = read_prometheus(p)
    assert r.skipped.counts == {"not a Prometheus sample line (name{labels} value [timestamp])": 1,
                                "non-UTF-8 bytes": 1, "metric not used": 1, "truncated last line (no newline)": 1}
    assert {s.line for v in r.skipped.examples.values() for s in v} == {4, 12, 21, 22}
    assert r.lines_total == 22 and r.samples["nr_periods"].to_list() == [70521, None]
