"""Response time against the neighbour's worker count at a fixed share (the paper's second experiment)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from throttlelab import tables
from throttlelab.analysis.latency.neighbour_workers import analyse_neighbour_workers, choose_share


def workers_requests(rng, *, runs: int = 1, n: int = 30, tail: float = 0.004, run_scale=None) -> pl.DataFrame:
    """Share 0.65, workers 2-10; the tail grows with the worker count; one timeout at 10 workers; plus share 0.
    ``run_scale(w, r)``: a factor on run r's latencies (a noisy machine's run-to-run drift)."""
    rows = []
    for w in (2, 4, 6, 8, 10):
        for r in range(runs):
            scale = run_scale(w, r) if run_scale else 1.0
            for i, lat in enumerate(scale * (0.05 + rng.exponential(0.01 + tail * w, n))):
                rows.append({"experiment": "fx", "run_id": f"w{w}-r{r}", "config": "workers=8,semaphore=none",
                             "endpoint": "cpu", "contention": 0.65, "load": 13.3, "request_id": i,
                             "latency_seconds": float(lat), "status": "ok", "http_status": 200, "neighbour_workers": w})
    rows.append(rows[-1] | {"request_id": 999, "latency_seconds": None, "status": "timeout", "http_status": None})
    rows += [{"experiment": "fx", "run_id": "base", "contention": 0.0, "load": 13.3, "request_id": i,
              "latency_seconds": 0.05, "status": "ok", "config": "workers=8,semaphore=none"} for i in range(5)]
    return tables.conform(pl.DataFrame(rows, infer_schema_length=None), "requests")


def test_choose_share_needs_two_worker_counts():
    rng = np.random.default_rng(0)
    df = workers_requests(rng)
    assert choose_share(df) == 0.65
    assert choose_share(df.filter(pl.col("neighbour_workers") == 2)) is None
    note = analyse_neighbour_workers(df.filter(pl.col("contention") == 0))["note"]
    assert note.startswith("not enough data to decide")


def test_summary_counts_every_request_and_has_intervals():
    res = analyse_neighbour_workers(workers_requests(np.random.default_rng(0)), n_boot=50)
    assert res["share"] == 0.65 and res["baseline_workers"] == 2 and res["workers"] == [2, 4, 6, 8, 10]
    s = res["summary"]
    assert s["neighbour_workers"].to_list() == [2, 4, 6, 8, 10]
    assert s["n"].sum() == 151 and s["n_failed"].sum() == 1
    assert s.filter(pl.col("neighbour_workers") == 10)["failed_by_status"][0] == "timeout=1"
    for stat in ("mean", "p50"):
        assert (s[f"{stat}_low"] <= s[f"{stat}_seconds"]).all() and (s[f"{stat}_seconds"] <= s[f"{stat}_high"]).all()
    # about 30 requests per worker count: too few for distribution-free p90/p95/p99 intervals (NaN, not a wrong one)
    for stat in ("p90", "p95", "p99"):
        assert s[f"{stat}_low"].is_nan().all()


def test_change_and_tests_against_two_workers():
    res = analyse_neighbour_workers(workers_requests(np.random.default_rng(1), n=80, tail=0.01), n_boot=50)
    ch = res["change"]
    assert ch.height == 4 * 5 and set(ch["stat"]) == {"mean", "p50", "p90", "p95", "p99"}
    row = ch.filter((pl.col("neighbour_workers") == 10) & (pl.col("stat") == "p95")).row(0, named=True)
    assert row["percent"] == pytest.approx((row["value_seconds"] / row["baseline_seconds"] - 1) * 100)
    assert row["percent_low"] <= row["percent"] <= row["percent_high"]
    t = res["tests"].sort("neighbour_workers")
    assert t["neighbour_workers"].to_list() == [4, 6, 8, 10]
    assert (t["p_holm"] >= t["p_value"]).all()
    assert t.filter(pl.col("neighbour_workers") == 10)["verdict"][0] == "too few to decide (one run per worker count)"
    assert ch["interval"].str.starts_with("requests resampled (one run").all()


def test_trend_is_request_level_without_replicates_and_run_level_with_them():
    one = analyse_neighbour_workers(workers_requests(np.random.default_rng(2), n=80, tail=0.01), n_boot=50)["trend"]
    row = one.row(0, named=True)
    assert row["workers"] == "2,4,6,8,10" and row["n"] == 400
    assert row["jt_tau"] > 0 and row["jt_p"] < 0.05 and row["spearman_rho"] > 0
    assert row["slope_p95_low"] <= row["slope_p95_ms_per_worker"] <= row["slope_p95_high"]
    assert row["run_spearman_p"] is None and row["verdict"] == "rising with workers (request level only)"
    assert "optimistic" in row["note"]
    two = analyse_neighbour_workers(workers_requests(np.random.default_rng(2), runs=2, n=40, tail=0.01),
                                    n_boot=50)["trend"].row(0, named=True)
    assert two["runs_per_workers_min"] == 2 and two["run_spearman_rho"] is not None


def test_no_trend_is_not_claimed():
    res = analyse_neighbour_workers(workers_requests(np.random.default_rng(5), n=40, tail=0.0), n_boot=50)
    assert res["trend"]["verdict"][0] == "no trend shown"
    assert res["tests"]["verdict"].str.starts_with("too few to decide").all()  # one run per worker count


def test_unknown_baseline_is_an_error():
    with pytest.raises(ValueError, match="baseline_workers 3"):
        analyse_neighbour_workers(workers_requests(np.random.default_rng(0)), baseline_workers=3, n_boot=10)


def test_wide_change_and_headline():
    from throttlelab.analysis.latency.neighbour_workers import change_wide, headline

    res = analyse_neighbour_workers(workers_requests(np.random.default_rng(1), n=80, tail=0.01), n_boot=50)
    wide = change_wide(res["change"])
    assert wide["neighbour_workers"].to_list() == [4, 6, 8, 10]
    assert wide.columns[-5:] == ["mean", "p50", "p90", "p95", "p99"]
    assert wide["p95"][0].endswith("]") and "% [" in wide["p95"][0]
    line = headline(res)
    assert line.startswith("Neighbour at 65% with 10 vs 2 busy workers at load 13.3: mean +")
    assert "p90" in line and "p95" in line and line.endswith("rising with workers (request level only)")
    assert headline({"note": "not enough data to decide"}) is None


def test_replicate_runs_put_run_to_run_variation_in_the_intervals():
    # worker count 10: one run 6x slower than the other (what a shared machine did to our live sweep)
    drift = (lambda w, r: 6.0 if (w, r) == (10, 0) else 1.0)
    res = analyse_neighbour_workers(workers_requests(np.random.default_rng(3), runs=2, n=50, tail=0.0,
                                                     run_scale=drift), n_boot=200)
    runs = res["runs"]
    assert runs.height == 10 and runs["n_ok"].sum() == 500
    ch = res["change"].filter((pl.col("neighbour_workers") == 10) & (pl.col("stat") == "mean")).row(0, named=True)
    assert ch["interval"].startswith("runs and requests resampled")
    assert ch["percent"] > 100 and ch["percent_low"] < 20  # the interval admits "no change": one run drove it
    t10 = res["tests"].filter(pl.col("neighbour_workers") == 10).row(0, named=True)
    assert t10["runs"] == 2 and t10["p_holm"] < 0.05  # the request-level test alone would call it slower
    assert t10["verdict"].startswith("no difference shown")
    assert "runs and requests resampled" in headline_of(res)


def test_consistent_replicates_still_show_a_real_effect():
    slow = (lambda w, r: 1.0 + 0.25 * (w == 10))
    res = analyse_neighbour_workers(workers_requests(np.random.default_rng(4), runs=4, n=60, tail=0.0,
                                                     run_scale=slow), n_boot=200)
    t10 = res["tests"].filter(pl.col("neighbour_workers") == 10).row(0, named=True)
    assert t10["verdict"] == "slower" and t10["median_change_low"] > 0 and t10["run_change_low"] > 0


def headline_of(res):
    from throttlelab.analysis.latency.neighbour_workers import headline

    return headline(res)
