"""Run-level comparisons, outlying runs and replicates needed."""

import math

import numpy as np
import pytest
from scipy import stats

from throttlelab.analysis.stats.outlying_runs import flag_outliers
from throttlelab.analysis.stats.run_level import TOO_FEW, compare_runs, replicates_needed


def test_one_run_a_side_is_too_few_to_decide():
    c = compare_runs(np.array([2.0]), np.array([1.0, 1.1]))
    assert c.verdict == TOO_FEW and c.change.p_value is None and c.change.low is None
    assert c.change.value == pytest.approx(100 * (2 / math.sqrt(1.1) - 1))


def test_welch_on_log_run_summaries():
    x, y = np.array([1.30, 1.35, 1.28]), np.array([1.0, 1.02, 0.98])
    c = compare_runs(x, y)
    t = stats.ttest_ind(np.log(x), np.log(y), equal_var=False)
    assert c.verdict == "slower" and c.change.low > 0
    assert c.change.p_value >= t.pvalue  # df capped at min(n) - 1/2: never more liberal than Welch
    assert c.replicates_needed.runs_per_level >= 2


def test_outlying_run_is_flagged_not_silently_dropped():
    groups = {"a": np.log([1.0, 1.01, 0.99, 1.8]), "b": np.log([1.0, 1.02, 0.98, 1.01])}
    flagged = flag_outliers(groups, {"a": ["a0", "a1", "a2", "a3"], "b": ["b0", "b1", "b2", "b3"]})
    assert [o.run for o in flagged] == ["a3"] and flagged[0].deviation_pct > 70
    c = compare_runs(np.array([1.0, 1.01, 0.99, 1.8]), np.array([1.0, 1.02, 0.98, 1.01]), sample_ids=["a0", "a1", "a2", "a3"])
    assert [o.run for o in c.outlying_runs] == ["a3"] and c.runs == 3 and "left out" in c.change.note


def test_replicates_needed_matches_a_power_calculation():
    need = replicates_needed(0.10, effect_pct=10.0)
    n = need.runs_per_level
    d = math.log(1.1) / 0.10
    power = lambda k: stats.nct.sf(stats.t.ppf(0.975, 2 * k - 2), 2 * k - 2, d * math.sqrt(k / 2))
    assert power(n) >= 0.8 > power(n - 1)
    assert replicates_needed(None).runs_per_level is None


