"""The lead of an answer: at most 40 words, the action first, then how sure, no jargon; the method collapsed."""

import pytest

from throttlelab.report.answers.answer_text import (GLOSSARY, JARGON, MAX_WORDS, Answer, change_words, group_name, how_sure,
                                            join_words, lead_problems, runs_per, source_name, thread_knob,
                                            threads_words, within, word_count)


def test_the_lead_is_the_action_then_how_sure():
    a = Answer("Give ffmpeg 12 cores (3.9 s per run).", "How sure: 16 runs; clear.", rests_on="16 runs",
               method="Dead zones by max-T.", terms=("max-T", "unknown term"))
    assert a.lead == "Give ffmpeg 12 cores (3.9 s per run). How sure: 16 runs; clear."
    method = a.method_markdown()
    assert method.startswith("Dead zones by max-T.") and f"- *max-T*: {GLOSSARY['max-T']}" in method
    assert "unknown term" not in method
    assert Answer("x").method_markdown() is None and Answer("Too few to decide.").lead == "Too few to decide."


@pytest.mark.parametrize("text, problem", [
    ("word " * (MAX_WORDS + 1), f"{MAX_WORDS + 1} words (at most {MAX_WORDS})"),
    ("clearly worse, break-even noise 19%", "jargon in the lead: break-even"),
    ("Holm-adjusted p = 0.01", "jargon in the lead: Holm"),
    ("go-load-balancer, contention=0: 2000m", "a key=value label in the lead: contention=0"),
    ("recommended in 66% of simulated repeats", "jargon in the lead: simulated repeats"),
    ("one number per cell", "jargon in the lead: one number per cell"),
])
def test_lead_problems_find_what_a_user_should_not_read(text, problem):
    assert problem in lead_problems(text)


def test_a_plain_lead_has_no_problem():
    lead = ("Set GOMAXPROCS to 2, the quota. With all 24 host cores, throughput halved and p99.9 latency nearly "
            "tripled. How sure: one run per setting; 1 and 8 threads are not yet clear (6 runs each would decide).")
    assert lead_problems(lead) == [] and word_count(lead) == 37
    assert lead_problems(None) == [] and all(w in JARGON for w in ("max-T", "Holm", "break-even"))


def test_how_sure_keeps_the_lead_within_its_budget():
    action = "word " * 30
    sure = how_sure(["16 runs"], [("a long clause " * 3, "short clause"), "x y z w v u t s"], action=action)
    assert sure == "How sure: 16 runs; short clause."
    assert word_count(action + sure) <= MAX_WORDS
    assert how_sure([], []) == ""
    assert within(["One.", "Two."], ["three " * 50, "Four."], budget=10) == "One. Two. Four."


def test_groups_are_named_in_words():
    groups = [{"workload": "ffmpeg", "threads": t, "contention": 0.0} for t in ("1", "2", "auto")]
    assert group_name(groups[0], among=groups) == "ffmpeg with 1 thread"
    assert group_name(groups[2], among=groups) == "ffmpeg with automatic threads"
    assert group_name(groups[2], among=groups[2:]) == "ffmpeg"
    shared = [{"workload": "svc", "contention": c} for c in (0.0, 0.5)]
    assert group_name(shared[1], among=shared) == "svc next to a neighbour using 50%"
    assert group_name(shared[0], among=shared) == "svc alone"
    assert threads_words("8") == "8 threads" and threads_words("auto") == "automatic threads"


def test_changes_in_words():
    assert [change_words(x) for x in (-50.4, 100, 189, 203, 63, -35, 400)] == \
        ["halved", "doubled", "nearly tripled", "tripled", "rose 63%", "fell 35%", "rose 5 times"]


def test_small_helpers():
    assert join_words(["1"]) == "1" and join_words(["1", "3", "4"]) == "1, 3 and 4"
    assert join_words(["8", "24"], "or") == "8 or 24" and join_words([]) == ""
    assert runs_per([1, 2, 2]) == "1-2 per limit" and runs_per([3, 3], "setting") == "3 per setting"
    assert runs_per([]) == ""
    assert source_name("/data/raw/report_local/", "published") == "report_local" and source_name("", "x") == "x"
    assert thread_knob("go-load-balancer") == "GOMAXPROCS" and thread_knob("ffmpeg") == "threads"
