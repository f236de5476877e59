"""The sweep answer: the fastest measured setting, with what is not yet tested, in plain words."""

from types import SimpleNamespace

import polars as pl

from throttlelab.report.answers.answer_text import lead_problems
from throttlelab.report.answers.sweep_answer import sweep_answer

SWEEP = SimpleNamespace(name="report_local_ffmpeg", replicates=3, warmup=1, backend="local")


def test_the_fastest_measured_setting_with_its_runs():
    runs = pl.DataFrame({"status": ["ok"] * 6, "warmup": [False] * 6})
    summary = pl.DataFrame({"cpu_limit_cores": [0.5, 1.0], "limit": ["0.5", "1.0"], "threads": ["1", "auto"],
                            "median_wall_seconds": [1.274, 1.52], "throttled_ratio": [0.0, 0.1]})
    a = sweep_answer(SWEEP, [SimpleNamespace(warmup=False)] * 6, runs, summary)
    assert a.lead.startswith("Fastest measured: 0.5 cores with 1 thread, 1.3 s per run (median). How sure: 6 runs, "
                             "3 per setting; not yet clear")
    assert lead_problems(a.lead) == [] and "03_" not in a.lead and "1 threads" not in a.lead
    assert a.headlines == ("Local sweep report_local_ffmpeg: 6 of 6 measured runs ok; at 1 core with automatic "
                           "threads 10% of CFS periods were throttled, median wall time 1.52 s",)


def test_nothing_measured_says_why():
    empty = pl.DataFrame({"status": [], "warmup": []}, schema={"status": pl.String, "warmup": pl.Boolean})
    a = sweep_answer(SWEEP, [], empty, pl.DataFrame(), skipped_reason="no writable cgroup")
    assert a.lead == "Not measured yet: no run of report_local_ffmpeg finished here (no writable cgroup)."
    assert a.headlines == ("Local sweep report_local_ffmpeg not run here: no writable cgroup",)
