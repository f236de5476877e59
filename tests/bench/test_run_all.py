"""``make bench`` runs every benchmark whatever the others did, and names those that missed their goals."""

from __future__ import annotations


def test_every_benchmark_runs_and_the_missed_goals_are_named(bench_module, tmp_path, capsys):
    (tmp_path / "bench_a.py").write_text("def main():\n    print('a ran')\n    return 1\n")  # missed its goal
    (tmp_path / "bench_b.py").write_text("def main():\n    raise RuntimeError('broken')\n")  # failed to run
    (tmp_path / "bench_c.py").write_text("import sys\ndef main():\n    print('c ran')\n    sys.exit(2)\n")
    (tmp_path / "bench_d.py").write_text("def main():\n    print('d ran')\n    return 0\n")
    rc = bench_module("run_all").main([], here=tmp_path)
    out = capsys.readouterr().out
    assert rc == 1
    assert all(f"{x} ran" in out for x in "acd")  # none stopped the others
    assert "=== bench a: MISSED ITS GOAL" in out and "=== bench d: ok" in out
    assert "benchmarks that missed their goals: a, c" in out
    assert "benchmarks that failed to run: b" in out


def test_all_goals_met_exits_zero(bench_module, tmp_path, capsys):
    (tmp_path / "bench_a.py").write_text("def main():\n    return 0\n")
    assert bench_module("run_all").main([], here=tmp_path) == 0
    assert "missed" not in capsys.readouterr().out


def test_the_adaptive_benchmark_exits_non_zero_when_its_goal_is_missed(bench_module, monkeypatch, capsys):
    """Its goal (runs <= 50% of the grid, correct >= the grid's) is known not to be met: main() returns 1."""
    mod = bench_module("bench_adaptive")
    monkeypatch.setattr(mod, "KINDS", ("knee",))
    monkeypatch.setattr(mod, "PER_KIND", 1)
    rc = mod.main()
    out = capsys.readouterr().out
    assert rc == 1
    assert "goal (runs <= 50% of the grid, correct >= the grid's): MISSED: runs " in out
