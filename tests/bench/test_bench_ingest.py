"""bench_ingest: its goals are ratios measured in one run (MB/s reported, never gated), and on its generated days
``throttlelab ingest``'s polars pass gives the rows of the plain line parser it is measured against."""

from __future__ import annotations

import doctest

import numpy as np
import polars as pl
import pytest

from throttlelab.ingest.monitor import read_monitor_log


def test_goals_are_ratios_and_a_slow_machine_misses_none(bench_module):
    mod = bench_module("bench_ingest")
    slow = {"one": {"label": "one", "speedup": 3.2, "rss_x": 3.5, "mb_per_s": 40.0}}
    assert [ok for _, ok in mod.goals(slow, 9.0, 10.0)] == [True, True, True]  # 40 MB/s: not a goal
    missed = {"multi": {"label": "multi", "speedup": 2.9, "rss_x": 4.0, "mb_per_s": 400.0}}
    assert [what for what, ok in mod.goals(missed, 10.0, 9.0) if not ok] == [
        "multi: >= 3x the line parser", "multi: peak < 4x the file", "logs at once faster"]
    assert [what for what, _ in mod.goals(missed)] == ["multi: >= 3x the line parser", "multi: peak < 4x the file"]
    assert doctest.testmod(mod).failed == 0


@pytest.mark.parametrize("day", ["one", "multi"])
def test_generated_days_give_the_line_parsers_rows(bench_module, tmp_path, day):
    mod = bench_module("bench_ingest")
    generator, baseline = bench_module("monitor_log_generator"), bench_module("baseline_monitor_parser")
    path = tmp_path / f"{day}.log"
    generator.generate(path, generator.Settings(blocks=3000, **mod.DAYS[day][1]))
    ours, plain = read_monitor_log(path).frame, baseline.parse(str(path))
    assert ours.height == plain.height >= 3000
    for col in ("pod", "nr_periods", "nr_throttled", "nr_bursts", "period_us", "limit_cores", "top_cpu_cores",
                "top_memory_bytes"):
        assert ours[col].to_list() == plain[col].to_list(), col
    for col in ("usage_seconds", "throttled_seconds"):  # us / 1e6: the line parser's polars division is not exact
        np.testing.assert_allclose(ours[col].to_numpy(), plain[col].to_numpy(), rtol=1e-15)
    assert ours["timestamp"].dt.replace_time_zone(None).equals(plain["timestamp"].cast(pl.Datetime("us")))
    listed = plain["container"].is_not_null()  # ingest also gives a run's container to the blocks without one
    assert listed.any() and ours["container"].filter(listed).equals(plain["container"].filter(listed))
