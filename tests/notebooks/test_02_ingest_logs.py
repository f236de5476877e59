"""Notebook 02 on the bundled sample log and on the bad-input corpus."""

from __future__ import annotations

import json
from pathlib import Path

from tests.notebooks.results_schemas import validate

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"


def test_02_on_the_bundled_sample(run_notebook):
    out, results = run_notebook("02_ingest_logs")
    validate(results)
    r = results["results"]
    assert r["samples"] == 90 and r["lines_skipped"] == 0
    limits = {row["limit_cores"]: row for row in r["by_limit"]}
    assert set(limits) == {0.25, 0.5, 1.0}
    assert limits[0.25]["throttled_ratio"] > 0.9  # two busy loops under a quarter core
    assert limits[0.25]["throttled_ratio"] == limits[0.25]["nr_throttled"] / limits[0.25]["nr_periods"]
    assert {"inputs", "skipped", "samples", "intervals", "by_limit"} <= set(results["tables"])
    assert len(json.loads((out / "headlines.json").read_text())) == 2


def test_02_on_bad_and_mixed_inputs(run_notebook):
    paths = [str(FIX / "good_v2.log"), str(FIX / "bad" / "garbage_lines.log"), str(FIX / "bad" / "counters_backwards.log"),
             str(FIX / "semaphore__vus10.k6.json")]
    _, results = run_notebook("02_ingest_logs", input_paths=paths, request_cores=2.0, timezone="Asia/Seoul")
    validate(results)
    r = results["results"]
    assert r["samples"] == 12
    assert r["skipped_by_reason"]["bad cpu.stat line"] == 2 and r["skipped_by_reason"]["not JSON"] == 1
    assert [i["format"] for i in r["inputs"]] == ["monitor", "monitor", "monitor", "k6-json"]
    assert r["lines_skipped"] == sum(i["lines_skipped"] for i in r["inputs"])
