"""The noisy-neighbour and semaphore answers: from the published tables and fit rows, 40 plain words."""

from throttlelab.analysis.latency import concurrency as cc
from throttlelab.analysis.latency.contention_paper import paper_table1
from throttlelab.ingest.published.published import load_contention, load_semaphore
from throttlelab.report.answers.answer_text import lead_problems
from throttlelab.report.answers.service_answers import concurrency_answer, contention_answer

FIT = {"knee": 0.469, "knee_low": 0.441, "knee_high": 0.504, "r2": 0.938}


def test_contention_answer_gives_the_share_to_stay_under_and_how_sure():
    table1 = paper_table1(load_contention())
    a = contention_answer(table1, FIT, n_boot=200)
    assert a.lead.startswith("Keep a noisy neighbour below about 47% of the node's CPU: above it response time "
                             "takes off, up to 361% slower at 70%.")
    assert "How sure: 21 published means, one per setting; the take-off is clear (95% interval 44% to 50%)" in a.lead
    assert lead_problems(a.lead) == [] and "(200 resamples)" in a.method_markdown()
    assert a.rests_on == "the paper's table 1: 21 published means (3 request rates x 7 stress shares)"


def test_contention_answer_follows_the_fit():
    table1 = paper_table1(load_contention())
    a = contention_answer(table1, {**FIT, "knee": 0.3, "knee_low": 0.1, "knee_high": 0.6}, n_boot=10)
    assert "below about 30%" in a.lead and "10% to 60%" in a.lead


def test_concurrency_answer_from_the_rebuilt_wiki_table():
    repro = cc.wiki_reproduction(load_semaphore(None), max_workers=8)
    a = concurrency_answer(repro, reproduced=45, measured_requests=1200)
    assert a.lead.startswith("Yes: a semaphore of 4 on the CPU-heavy stage. At 30 virtual users the mean total time "
                             "fell 63% (24 s to 8.9 s), the duplicates stage most (-96%).")
    assert "How sure: one published run per setting" in a.lead and "not yet clear" in a.lead
    assert lead_problems(a.lead) == [] and a.rests_on.endswith("; 1,200 measured requests")
    assert "Holm" in a.method_markdown()
