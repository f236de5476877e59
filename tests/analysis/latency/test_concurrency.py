"""Per-stage configuration comparison: the wiki's %-change table, and tests on samples."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from throttlelab.analysis.latency.concurrency import (TESTS_UNAVAILABLE, compare_stages, holm, percent_change_table,
                                              stage_summary, wiki_layout, wiki_reproduction)
from throttlelab.ingest.published.published import load_semaphore


@pytest.fixture(scope="module")
def repro():
    return wiki_reproduction(load_semaphore())


def cell(t, load, stage, stat):
    return t.filter((pl.col("load") == load) & (pl.col("stage") == stage) & (pl.col("stat") == stat)).row(0, named=True)


@pytest.mark.parametrize("load, stage, stat, printed", [
    (10, "embedding", "avg", -18.4), (10, "categories", "avg", -18.7), (15, "categories", "avg", -84.8),
    (20, "categories", "avg", -93.4), (15, "score", "avg", -68.9),
    (30, "categories", "p95", -96.7), (10, "embedding", "p95", 0.2), (20, "total", "avg", -55.0),
])
def test_wiki_cells_reproduce_exactly(repro, load, stage, stat, printed):
    c = cell(repro, load, stage, stat)
    assert round(c["percent_change"], 1) == printed
    assert c["percent_printed"] == printed and c["verdict"] == "reproduced"


def test_wiki_headline_within_rounding(repro):
    # "24.09s -> 8.93s (-63%)": -62.93% from the tables, -63.0% printed, inside the rounding range
    c = cell(repro, 30, "total", "avg")
    assert c["percent_min"] - 0.05 <= -63.0 <= c["percent_max"] + 0.05 and c["verdict"] == "reproduced"
    assert round(c["percent_change"]) == -63


def test_wiki_copy_errors_are_flagged(repro):
    # score p95/max at 15-30 VUs repeat quality's printed values; quality p95 at 10 VUs is -4.5 in print
    for load in (15, 20, 25, 30):
        assert cell(repro, load, "score", "p95")["verdict"] == "inconsistent"
    assert cell(repro, 10, "quality", "p95")["verdict"] == "inconsistent"
    assert repro.height == 90
    assert dict(repro.group_by("verdict").len().iter_rows()) == {"reproduced": 45, "close": 28, "inconsistent": 17}


def test_directions_and_layout(repro):
    assert cell(repro, 10, "embedding", "max")["direction"] == "worse"
    assert cell(repro, 30, "total", "avg")["direction"] == "better"
    wide = wiki_layout(repro)
    assert wide.columns == ["load", "embedding", "categories", "duplicates", "quality", "score", "total"]
    assert wide.filter(pl.col("load") == 10)["embedding"][0] == "−18.4%/+0.2%/+1.0%"


def test_workers_12_table_and_unknown_config():
    sem = load_semaphore()
    t = percent_change_table(sem, "workers=12,semaphore=none", "workers=12,semaphore=4")
    assert t.height == 90 and t["percent_change"].null_count() == 0
    with pytest.raises(ValueError, match="no configuration"):
        percent_change_table(sem, "workers=99,semaphore=none", "workers=8,semaphore=4")
    assert "no per-request samples" in TESTS_UNAVAILABLE


def test_holm_matches_definition():
    p = np.array([0.01, 0.04, 0.03, np.nan])
    adj = holm(p)
    assert adj[0] == pytest.approx(0.03) and adj[2] == pytest.approx(0.06) and adj[1] == pytest.approx(0.06)
    assert np.isnan(adj[3])


def stage_frame(rng, n=40, runs=1):
    rows = []
    for config, light in (("base", 1.0), ("sem", 0.2)):
        for r in range(runs):
            run_factor = np.exp(rng.normal(0, 0.05))
            for i in range(n):
                rows += [{"config": config, "load": 10.0, "run_id": f"{config}-{r}", "request_id": i,
                          "stage": "categories", "seconds": rng.exponential(light) * run_factor},
                         {"config": config, "load": 10.0, "run_id": f"{config}-{r}", "request_id": i,
                          "stage": "embedding", "seconds": rng.exponential(1.0) * run_factor}]
    return pl.DataFrame(rows)


def test_one_run_per_configuration_is_too_few_to_decide():
    out = compare_stages(stage_frame(np.random.default_rng(0)), "base", "sem")
    cat = out.filter(pl.col("stage") == "categories").row(0, named=True)
    # the request-level test alone is overwhelming, but one run per side cannot separate run noise
    assert cat["p_holm"] < 0.01 and cat["verdict"] == "too few to decide (runs)" and cat["run_p_value"] is None


def test_compare_stages_tests_with_holm():
    df = stage_frame(np.random.default_rng(0), runs=3)
    out = compare_stages(df, "base", "sem")
    cat = out.filter(pl.col("stage") == "categories").row(0, named=True)
    assert cat["verdict"] == "better" and cat["rank_biserial"] < -0.5 and cat["p_holm"] < 0.01
    assert cat["runs"] == 3 and cat["run_change_high"] < 0 and cat["run_p_bonferroni"] < 0.05
    assert cat["avg_change_percent"] < -50
    emb = out.filter(pl.col("stage") == "embedding").row(0, named=True)
    assert emb["p_holm"] >= emb["p_value"]
    summ = stage_summary(df)
    assert set(summ.columns) >= {"avg_seconds", "p95_seconds", "max_seconds", "n"}


def test_compare_stages_says_when_data_are_too_few():
    df = stage_frame(np.random.default_rng(1), n=3)
    out = compare_stages(df, "base", "sem", min_n=5)
    assert set(out["verdict"]) == {"not enough data to decide"}
