"""Runtime thread advice: threads a runtime runs against the CPU limit it gets."""

import doctest
import importlib

import pytest

from throttlelab.analysis.rightsizing.runtime_advice import (
    RULES, ceil_threads, quota_threads, runtime_advice,
)


def test_gomaxprocs_above_the_quota_is_told_to_match_it():
    a = runtime_advice("go", 8, 2.0)
    assert (a.action, a.advised_threads, a.threads_seen) == ("set threads", 2, 8)
    assert a.reason.startswith("GOMAXPROCS is 8 under a 2-core limit: set GOMAXPROCS=2")


def test_a_go_service_on_the_host_cpu_count_under_128m_gets_one_thread():
    a = runtime_advice("go", 24, 0.128)
    assert (a.action, a.advised_threads) == ("set threads", 1)
    assert "128m limit" in a.reason


def test_fractional_limits_rounded_up_by_the_runtime_get_whole_core_advice():
    assert ceil_threads(2.1, runtime="go") == 3  # Go 1.25: three Ps under 2.1 cores
    a = runtime_advice("go", 3, 2.1)
    assert (a.action, a.advised_threads) == ("whole-core limit", 2)
    assert "2 or 3 cores" in a.reason
    assert runtime_advice("jvm", 3, 2.1).action == "whole-core limit"


def test_threads_the_quota_feeds_need_no_change():
    for rt, seen, limit in (("go", 2, 2.0), ("jvm", 4, 4.0), ("go", 1, 1.5)):
        a = runtime_advice(rt, seen, limit)
        assert (a.action, a.advised_threads) == ("none", None), (rt, seen, limit)


def test_no_limit_means_nothing_to_match():
    assert runtime_advice("jvm", 16, None).action == "none"


def test_quota_threads_is_the_automaxprocs_rule():
    assert [quota_threads(c) for c in (0.1, 0.99, 1.0, 1.9, 2.0, 7.5)] == [1, 1, 1, 1, 2, 7]
    assert ceil_threads(0.5, runtime="go") == 2 and ceil_threads(0.5, runtime="jvm") == 1
    assert ceil_threads(6.2, runtime="go", usable_cpus=4) == 4


def test_unknown_runtime_is_refused_and_rules_name_every_runtime_we_know():
    with pytest.raises(ValueError, match="expected one of go, jvm"):
        runtime_advice("dotnet", 4, 2.0)
    assert {"go", "jvm", "dotnet", "node", "llama.cpp", "container_threads"} <= set(RULES)


def test_docstring_examples_run():
    mod = importlib.import_module("throttlelab.analysis.rightsizing.runtime_advice")
    result = doctest.testmod(mod)
    assert result.attempted >= 5 and result.failed == 0


def test_the_advice_is_the_best_row_of_the_shipped_automaxprocs_table():
    """Under the table's 2-core quota, the advised GOMAXPROCS is the thread count with the highest throughput."""
    import csv
    from pathlib import Path

    rows = list(csv.DictReader(open(Path(__file__).resolve().parents[3] / "data/published/automaxprocs_gomaxprocs.csv")))
    best = max(rows, key=lambda r: float(r["throughput_rps"]))
    default = next(r for r in rows if r["threads"] == "24")
    advice = runtime_advice("go", int(default["threads"]), 2.0)
    assert advice.advised_threads == int(best["threads"]) == 2
    assert float(default["throughput_rps"]) < 0.55 * float(best["throughput_rps"])  # the 50% loss the reason cites
