"""Tests of throttlelab.report.recommend.recommend_answer: the right-sizing lead in plain words, at most 40 words."""

from __future__ import annotations

import dataclasses
import doctest
import re
import sys

import pytest

from throttlelab.analysis.rightsizing.recommendation import Settings
from throttlelab.analysis.rightsizing.rightsizing_parallel import rightsize_all
from throttlelab.ingest.published.published import PUBLISHED_DIR
from throttlelab.ingest.prometheus.prometheus_local import read_source
from throttlelab.report.recommend.recommend_answer import MAX_WORDS, recommend_answer

SAMPLE = PUBLISHED_DIR / "samples" / "shop_namespace.om.gz"
JARGON = ("max-T", "Holm", "break-even", "one number per cell", "simulated repeats")


@pytest.fixture(scope="module")
def sample_recs():
    fetched, source, _ = read_source(openmetrics_path=str(SAMPLE), use_prometheus=False, namespace="shop")
    return rightsize_all(fetched.containers, Settings()), source


def check_plain(lead: str) -> None:
    assert len(lead.split()) <= MAX_WORDS, (len(lead.split()), lead)
    assert not [j for j in JARGON if j in lead] and not re.search(r"\b\w+=\w", lead), lead
    assert "How sure:" in lead


def test_the_sample_namespace_lead_names_the_actions_and_the_most_throttled(sample_recs):
    recs, source = sample_recs
    lead, rests = recommend_answer(recs, Settings(), source=source)
    check_plain(lead)
    assert lead.startswith("Raise the CPU limit of starved-0/api (throttled in 99% of periods; rerun in 6h) and "
                           "bursty-0/batch (15%);")
    assert "set a limit on nolimit-0/cache" in lead and "lower the limit of oversized-0/worker" in lead
    assert "keep the other 2" in lead
    assert rests.startswith("6 containers, up to 26 h of usage and throttling at 120-s steps "
                            "(the bundled sample namespace); throttling target 5%")


def test_many_containers_are_named_fewer_then_counted(sample_recs):
    recs, _ = sample_recs
    many = [dataclasses.replace(recs[0], pod=f"api-7d9f8c6b5-{i:05d}") for i in range(40)] + list(recs)
    lead, _ = recommend_answer(many, Settings(), source="http://127.0.0.1:9090")
    check_plain(lead)
    assert lead.startswith("Raise the CPU limit of starved-0/api (throttled in 99% of periods; rerun in 6h) and 41 "
                           "more;")
    every = list(recs) + [dataclasses.replace(recs[0], decision=d, pod=f"p{i}")
                          for i, d in enumerate(("no limit (policy)", "too little data", "keep (policy)"))]
    lead, _ = recommend_answer(every, Settings(), source="x.om")
    check_plain(lead)
    assert lead.startswith("Raise 2 CPU limits (1 to rerun in 6h); set 1 limit; lower 1; remove 1; keep the other 3; "
                           "1 container had too little data to size.")


def test_a_first_round_raise_is_marked_in_the_lead(sample_recs):
    """A raise that rests on demand never observed (throttled in most periods) says so, with its factor; one that
    does not, does not."""
    recs, _ = sample_recs
    starved = next(r for r in recs if r.pod == "starved-0")
    assert starved.demand_censored and starved.decision == "raise limit"
    five = dataclasses.replace(starved, recommended_limit_cores=2.5)
    lead, _ = recommend_answer([five], Settings(), source="x.om")
    check_plain(lead)
    assert lead.startswith("Raise the CPU limit of starved-0/api (throttled in 99% of periods; rerun in 6h).")
    observed = dataclasses.replace(five, demand_censored=False)
    assert "rerun" not in recommend_answer([observed], Settings(), source="x.om")[0]
    counted = [dataclasses.replace(five, pod=f"p{i}", demand_censored=i in (0, 9)) for i in range(30)]
    lead, _ = recommend_answer(counted, Settings(), source="x.om")
    check_plain(lead)
    assert "p0/api (throttled in 99% of periods; rerun in 6h), p1/api (99%) and 28 more (1 to rerun in 6h)." in lead


def test_nothing_to_size_and_nothing_to_change(sample_recs):
    recs, _ = sample_recs
    lead, rests = recommend_answer([], Settings(), source="http://127.0.0.1:9090")
    assert lead.startswith("No container to size") and rests == "nothing read from http://127.0.0.1:9090"
    keep = [r for r in recs if r.decision == "keep"]
    assert recommend_answer(keep[:1], Settings(), source="x.om")[0].startswith("Keep it as it is.")


def test_examples_in_the_docstrings():
    assert doctest.testmod(sys.modules[recommend_answer.__module__]).failed == 0
