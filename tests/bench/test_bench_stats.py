"""The statistics battery's exit code reflects every scenario's goal; "too few to decide" is listed apart."""

from __future__ import annotations

import polars as pl


def _row(scenario, **kw):
    row = {"analysis": "dead zones", "scenario": scenario, "reps": 400, "settings": "s", "false_alarm": None,
           "power": None, "power_goal": None, "mc_se": 0.01, "coverage": None, "coverage_se": None,
           "too_few_to_decide": 0.0}
    return row | kw


def _thread_row(scenario, goal, claims, power=None):
    row = {"scenario": scenario, "settings": "t", "goal": goal, "reps": 200, "mc_se": 0.015}
    for m in ("sweep", "limit"):
        row |= {f"false_claim_{m}": claims, f"false_near_{m}": claims, f"false_auto_{m}": 0.0,
                f"false_advice_{m}": 0.0, f"false_headline_{m}": 0.0, f"found_per_limit_{m}": power,
                f"found_any_{m}": power, f"auto_found_per_limit_{m}": None, f"headline_covers_{m}": 0.95,
                f"all_cover_{m}": 0.95, f"too_few_{m}": 0.0}
    return row


def _pooled_row(scenario, coverage, goal=True):
    return {"scenario": scenario, "stat": "p95", "settings": "q", "goal": 0.9 if goal else None, "coverage": coverage,
            "coverage_se": 0.01, "mean_relative_width": 0.2, "no_interval": 0.0, "previous_coverage": 0.5,
            "passed": (coverage >= 0.9) if goal else None}


def _run(bench_module, monkeypatch, capsys, rows, thread_rows, pooled=()):
    mod = bench_module("bench_stats")
    monkeypatch.setattr(mod, "battery", lambda **kw: pl.DataFrame(rows, infer_schema_length=None))
    monkeypatch.setattr(mod, "thread_count_rows", lambda *a, **kw: thread_rows)
    monkeypatch.setattr(mod, "pooled_rows", lambda *a, **kw: list(pooled))
    code = mod.main(["20"])
    return code, capsys.readouterr().out


def test_all_goals_met_exits_0_and_too_few_is_listed_apart(bench_module, monkeypatch, capsys):
    rows = [_row("null: a", false_alarm=0.04), _row("null: one run", false_alarm=0.0, too_few_to_decide=1.0),
            _row("alt: b", power=0.95, power_goal=0.9, coverage=0.97, coverage_se=0.01)]
    code, out = _run(bench_module, monkeypatch, capsys, rows,
                     [_thread_row("null: t", "false claims", 0.02), _thread_row("alt: t", "power", 0.01, 0.9)])
    assert code == 0 and "goals missed: 0" in out
    assert "(no false-alarm rate): dead zones: null: one run" in out
    assert "[settings: s]" in out and "[settings: t; goal: false claims]" in out


def test_any_missed_goal_exits_1_and_names_it(bench_module, monkeypatch, capsys):
    for rows, threads, what in (
        ([_row("null: a", false_alarm=0.12)], [], "false alarms 0.120"),
        ([_row("alt: b", power=0.5, power_goal=0.9)], [], "power 0.500"),
        ([_row("alt: b", power=0.95, coverage=0.8, coverage_se=0.02)], [], "coverage 0.800"),
        ([], [_thread_row("null: t", "false claims", 0.3)], "false claims 0.300"),
        ([], [_thread_row("alt: t", "power", 0.0, 0.0)], "power 0.000"),  # never claiming is no pass
    ):
        code, out = _run(bench_module, monkeypatch, capsys, rows, threads)
        assert code == 1 and "goals missed: 1" in out and what in out
    code, out = _run(bench_module, monkeypatch, capsys, [], [], [_pooled_row("3 runs", 0.7), _pooled_row("1 run", 0.3,
                                                                                                      goal=False)])
    assert code == 1 and "goals missed: 1" in out and "pooled requests: 3 runs" in out


def test_parts_run_only_what_is_asked_and_unknown_parts_are_one_clear_line(bench_module, monkeypatch, capsys):
    mod = bench_module("bench_stats")
    called = []
    monkeypatch.setattr(mod, "battery", lambda **kw: called.append(kw["which"]) or pl.DataFrame())
    monkeypatch.setattr(mod, "thread_count_rows", lambda *a, **kw: called.append("sweeps") or [])
    monkeypatch.setattr(mod, "pooled_rows", lambda *a, **kw: called.append("pooled") or [])
    assert mod.main(["20", "--parts", "dead,sweeps"]) == 0
    assert called == [("dead",), "sweeps"]
    import pytest

    with pytest.raises(SystemExit) as e:
        mod.main(["--parts", "nope"])
    assert e.value.code == 2 and "unknown part(s) nope" in capsys.readouterr().err
