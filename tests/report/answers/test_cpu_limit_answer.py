"""The CPU-limit answer: built from the analysis' result objects, at most 40 plain words."""

from pathlib import Path

import pytest

from throttlelab.analysis.limits import cpu_limits as cl
from throttlelab.analysis.runs.prepare import prepare_runs
from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.report.answers.answer_text import lead_problems
from throttlelab.report.answers.cpu_limit_answer import cpu_limit_answer

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "thread_sweep.csv"


def analyse(path: str = "", metric: str = "wall_seconds"):
    prepared = prepare_runs(load_runs(path), metric=metric)
    return cl.analyse_cpu_limits(prepared, n_boot=10, n_sim=2000, metric=prepared.metric), prepared


@pytest.fixture(scope="module")
def published():
    return analyse()


def test_published_ffmpeg_gives_the_limit_and_the_limits_to_avoid(published):
    groups, prepared = published
    a = cpu_limit_answer(groups, prepared, alpha=0.05, threshold_pct=5.0)
    assert a.lead.startswith("Give ffmpeg 12 cores (3.9 s per run). Avoid 6-7 cores: up to 48% slower than at 4 cores.")
    assert "How sure: 16 runs, 1-2 per limit; the slowdown is clear (95% interval +" in a.lead
    assert lead_problems(a.lead) == []
    assert a.rests_on == "16 runs of ffmpeg with automatic threads, 1-2 per limit (published ffmpeg sweep)"
    method = a.method_markdown()
    assert "max-T" in method and "practical threshold 5%" in method and "experiment as a block" in method
    assert any("dead zone 6000m, 7000m" in h and "adjusted p =" in h for h in a.headlines)


def test_the_zone_follows_the_result_objects(published):
    """The words read the fields: a group without zones says no limit is clearly slower."""
    import dataclasses

    groups, prepared = published
    g = groups[0]
    primary = dataclasses.replace(g.primary_dead_zones, zones=())
    g2 = dataclasses.replace(g, dead_zones=primary, dead_zones_block=None)
    a = cpu_limit_answer([g2], prepared)
    assert "Avoid" not in a.lead and "no limit is clearly slower than a lower one" in a.lead


def test_several_groups_name_the_first_by_what_differs():
    groups, prepared = analyse(str(FIXTURE))
    a = cpu_limit_answer(groups, prepared, runs_path=str(FIXTURE))
    assert a.lead.startswith("Give 1 core to ffmpeg with 1 thread (41 s per run).")
    assert lead_problems(a.lead) == [] and "in 5 groups" in a.rests_on and "(thread_sweep.csv)" in a.rests_on


def test_a_deterministic_metric_says_exact():
    groups, prepared = analyse(str(FIXTURE), "cpu_seconds")
    a = cpu_limit_answer(groups, prepared)
    assert "exact" in a.lead and "95% interval" not in a.lead and lead_problems(a.lead) == []
    assert any("exact: zero run-to-run noise" in h for h in a.headlines)


def test_no_usable_run_is_too_few_to_decide(published):
    _, prepared = published
    a = cpu_limit_answer([], prepared)
    assert a.lead.startswith("Too few runs to decide") and "not yet clear" in a.lead


def test_a_throughput_metric_reads_in_its_own_unit():
    """Intervals are converted once (cost -> metric), and core-seconds belong to wall time only."""
    import re

    service = FIXTURE.parent / "service_sweep.csv"
    groups, prepared = analyse(str(service), "throughput_rps")
    a = cpu_limit_answer(groups, prepared, runs_path=str(service))
    assert lead_problems(a.lead) == [] and "req/s" in a.lead
    give = [h for h in a.headlines if ": give " in h]
    assert give and all("core-seconds" not in h for h in give)
    for h in give:
        value, low, high = (float(x.replace(",", "")) for x in
                            re.search(r"throughput ([\d,.]+) req/s \(95% CI ([\d,.]+) req/s to ([\d,.]+) req/s", h)
                            .groups())
        assert low <= value <= high, h
