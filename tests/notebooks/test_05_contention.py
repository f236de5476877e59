"""Notebook 05 (contention): published table 1 reproduces; measured requests get the same analysis."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from tests.notebooks.results_schemas import validate
from throttlelab import tables


def synthetic_requests(path, rng) -> str:
    rows = []
    for load in (5.0, 10.0):
        for share in (0.0, 0.2, 0.4, 0.5, 0.6, 0.7):
            mean = 0.02 + 0.015 / (0.85 - share)
            for i, lat in enumerate(rng.exponential(mean, 40)):
                rows.append({"experiment": "fx", "run_id": f"r{load}-{share}", "config": "workers=8,semaphore=none",
                             "endpoint": "cpu", "contention": share, "load": load, "request_id": i,
                             "latency_seconds": float(lat), "status": "ok", "http_status": 200,
                             "neighbour_workers": 2 if share else None})
    rows.append(rows[-1] | {"request_id": 99, "latency_seconds": None, "status": "timeout", "http_status": None,
                            "error": "no answer"})
    df = tables.conform(pl.DataFrame(rows, infer_schema_length=None), "requests")
    df.write_parquet(path / "requests.parquet")
    return str(path)


def test_published_default(run_notebook):
    out, doc = run_notebook("05_contention", n_boot=20)
    validate(doc)
    res = doc["results"]
    knee = res["headline_knee"]  # the take-off share the answer states, with its interval
    assert knee["low"] <= knee["value"] <= knee["high"] and knee["value"] == res["published_fit"]["hyperbolic"]["derived"]["knee"]["value"]
    assert res["paper_table1"]["cells"] == 21 and res["paper_table1"]["consistent"] == 18
    assert {(c["requests_per_30s"], c["contention"]) for c in res["paper_table1"]["inconsistent_cells"]} == {
        (150, 0.5), (150, 0.65), (150, 0.7)}
    assert res["paper_table1"]["max_percent_printed"] == 361
    inc = res["headline_increase"]  # the +361% headline as a number with its (rounding) interval
    assert inc["low"] <= 361 <= inc["high"] and inc["unit"] == "pct"
    hyper = res["published_fit"]["hyperbolic"]
    hk = hyper["derived"]["knee"]
    assert 0.3 < hk["value"] < 0.6 and hk["low"] <= hk["value"] <= hk["high"]
    assert set(hyper["parameters"]) == {"a", "b", "c"} and hyper["goodness"]["r_squared"] > 0.5
    # AICc, named so; the pooled hyperbolic fit beats the pooled M/M/1 fit by it
    assert set(hyper["goodness"]) == {"rss", "aicc", "r_squared"}
    assert hyper["goodness"]["aicc"] < res["published_fit"]["mm1"]["goodness"]["aicc"] - 10
    table = pl.read_csv(out / "paper_table1.csv")
    cell = table.filter((pl.col("requests_per_30s") == 450) & (pl.col("contention") == 0.7)).row(0, named=True)
    assert cell["mean_ms"] == 236 and cell["percent_printed"] == 361 and cell["consistent"]
    assert res["measured"] is None
    assert {"paper_table1", "published_fits"} <= set(doc["tables"])


def test_measured_requests(run_notebook, tmp_path):
    path = synthetic_requests(tmp_path, np.random.default_rng(0))
    out, doc = run_notebook("05_contention", requests_path=path, n_boot=20)
    m = doc["results"]["measured"]
    assert m["requests"] == 481 and m["by_status"] == {"ok": 480, "timeout": 1}
    fits = pl.read_csv(out / "measured_fits.csv")
    assert fits.height == 2 and fits["knee"].drop_nulls().len() >= 1
    summ = pl.read_csv(out / "measured_summary.csv")
    assert summ.filter(pl.col("n_failed") > 0)["failed_by_status"].to_list() == ["timeout=1"]
    inf = pl.read_csv(out / "measured_inflation_mean.csv")
    assert (inf.filter(pl.col("contention") == 0.7)["percent"] > 0).all()
    # one run per share: the intervals cover that run's requests only, and the notebook says so under the table
    assert not any(r["run_to_run_measured"] for r in m["summary"])
    assert "12 of 12 rows rest on one run" in (tmp_path / "05_contention.out.ipynb").read_text()


@pytest.mark.slow
def test_live_sweep_without_cgroup(run_notebook, tmp_path):
    sweep = {"experiment": "nb05", "endpoint": "cpu", "mode": "open", "loads": [10], "contention": [0.0, 0.3],
             "seconds": 0.4, "warmup_seconds": 0.1, "settle_seconds": 0.05, "cpu_elements": 65536}
    out, doc = run_notebook("05_contention", live_sweep=sweep, live_backend="none", data_root=str(tmp_path / "raw"),
                            n_boot=10)
    res = doc["results"]
    assert res["live_sweep"]["points"] == 2
    assert res["measured"]["requests"] == 8
    assert "not enough data" in res["measured"]["fits"][0]["note"]


def worker_requests(path, rng, runs: int = 1) -> str:
    """The paper's second design, small: share 0.65, neighbour workers 2-10, tail growing with workers; a refusal.
    ``runs`` runs per worker count, each with its own run effect (10% lognormal) when there are several."""
    rows = []
    for w in (2, 4, 6, 8, 10):
        for r in range(runs):
            effect = float(np.exp(rng.normal(0, 0.1))) if runs > 1 else 1.0
            for i, lat in enumerate(effect * (0.05 + rng.exponential(0.01 + 0.01 * w, 40))):
                rows.append({"experiment": "fx", "run_id": f"w{w}" + (f"-{r}" if runs > 1 else ""),
                             "config": "workers=8,semaphore=none", "endpoint": "cpu", "contention": 0.65, "load": 13.3,
                             "request_id": i, "latency_seconds": float(lat), "status": "ok", "http_status": 200,
                             "neighbour_workers": w})
    rows.append(rows[0] | {"request_id": 99, "latency_seconds": None, "status": "refused", "http_status": None,
                           "error": "connection refused"})
    df = tables.conform(pl.DataFrame(rows, infer_schema_length=None), "requests")
    df.write_parquet(path / "requests.parquet")
    return str(path)


def test_measured_worker_counts(run_notebook, tmp_path):
    path = worker_requests(tmp_path, np.random.default_rng(0))
    out, doc = run_notebook("05_contention", requests_path=path, n_boot=20)
    validate(doc)
    w = doc["results"]["measured_workers"]
    assert w["share"] == 0.65 and w["baseline_workers"] == 2 and w["workers"] == [2, 4, 6, 8, 10]
    assert sum(r["n"] for r in w["summary"]) == 201 and sum(r["n_failed"] for r in w["summary"]) == 1
    assert {r["stat"] for r in w["change"]} == {"mean", "p50", "p90", "p95", "p99"}
    assert [r["neighbour_workers"] for r in w["tests"]] == [4, 6, 8, 10]
    assert w["trend"][0]["workers"] == "2,4,6,8,10" and w["trend"][0]["jt_tau"] > 0
    assert "optimistic" in w["note"]
    assert {"measured_workers_summary", "measured_workers_runs", "measured_workers_change", "measured_workers_tests",
            "measured_workers_trend"} <= set(doc["tables"])
    headlines = json.loads((out / "headlines.json").read_text())
    assert any(h.startswith("Neighbour at 65% with 10 vs 2 busy workers") for h in headlines)
    wide = pl.read_csv(out / "measured_workers_change_wide.csv")
    assert wide["neighbour_workers"].to_list() == [4, 6, 8, 10]


def test_replicate_runs_make_the_run_the_unit(run_notebook, tmp_path):
    """Three runs per worker count: every interval of the summary is the t interval across runs, and the text under
    the table and the chart says the intervals include run-to-run variation."""
    path = worker_requests(tmp_path, np.random.default_rng(1), runs=3)
    _, doc = run_notebook("05_contention", requests_path=path, n_boot=20)
    validate(doc)
    summary = doc["results"]["measured_workers"]["summary"]
    assert [r["runs"] for r in summary] == [3] * 5
    assert all(r["run_to_run_measured"] and r["interval"].startswith("runs as the unit") for r in summary)
    assert all(r["p95_low"] < r["p95_seconds"] < r["p95_high"] for r in summary)
    assert all(r["p99_low"] is None for r in summary)  # 40 requests per run: too few for a p99 across runs
    text = (tmp_path / "05_contention.out.ipynb").read_text()
    assert "5 of 5 rows have two or more runs" in text and "rest on one run" not in text


def test_share_sweep_has_no_worker_section(run_notebook, tmp_path):
    path = synthetic_requests(tmp_path, np.random.default_rng(0))
    _, doc = run_notebook("05_contention", requests_path=path, n_boot=10)
    assert doc["results"]["measured_workers"]["note"].startswith("not enough data to decide")
