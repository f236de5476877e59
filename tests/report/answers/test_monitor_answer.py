"""The monitor-log answer: the smallest limit throttled under the alert line, or that the limit must rise."""

from types import SimpleNamespace

import polars as pl

from throttlelab.report.answers.answer_text import lead_problems
from throttlelab.report.answers.monitor_answer import monitor_answer


def summary(limits, ratios):
    by_limit = pl.DataFrame({"source": ["a.log"] * len(limits), "limit_cores": limits, "seconds": [15.0] * len(limits),
                             "nr_periods": [150] * len(limits), "nr_throttled": [round(150 * r) for r in ratios],
                             "throttled_ratio": ratios, "effective_cores": [0.25] * len(limits)})
    return SimpleNamespace(samples=90, lines_total=1353, lines_skipped=0, by_limit=by_limit)


def test_several_limits_give_the_smallest_under_the_alert_line():
    a = monitor_answer(summary([0.25, 0.5, 1.0], [0.993, 0.68, 0.099]), inputs=1)
    assert a.lead.startswith("Give it at least 1 core: there 9.9% of CFS periods were throttled, against 99% at "
                             "0.25 cores (the usual alert fires at 25%).")
    assert "How sure: clear, measured directly: 15 of 150 periods over 15 s at 1 core." in a.lead
    assert lead_problems(a.lead) == [] and len(a.headlines) == 2
    assert a.headlines[0] == "Read 90 monitor samples from 1 input; 0 of 1,353 input lines skipped, each counted by reason."


def test_every_limit_above_the_line_asks_for_more():
    a = monitor_answer(summary([0.25], [0.993]), inputs=1)
    assert a.lead.startswith("Raise the CPU limit above 0.25 cores, or cut the work per period: 99% of CFS periods")


def test_every_limit_under_the_line_keeps_it():
    a = monitor_answer(summary([1.0, 2.0], [0.1, 0.0]), inputs=2)
    assert a.lead.startswith("Keep the limit: at most 10% of CFS periods were throttled")
    assert "from 2 logs" in a.rests_on


def test_no_cpu_counters_say_so():
    empty = SimpleNamespace(samples=0, lines_total=3, lines_skipped=3, by_limit=pl.DataFrame())
    a = monitor_answer(empty, inputs=1)
    assert a.lead.startswith("Nothing to say about throttling") and len(a.headlines) == 1
