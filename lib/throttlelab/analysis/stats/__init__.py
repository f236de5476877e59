"""Statistics shared by every analysis: run-level summaries, noise per level, intervals, multiple testing."""

from throttlelab.analysis.stats.bootstrap import (
    bootstrap_refits, percentile_interval, residual_bootstrap, residual_draw
)
from throttlelab.analysis.stats.excess_over_best import (
    cholesky, excess_statistics, level_covariance, not_below_larger_limits, null_configuration,
    per_limit_covariance, pooled_covariance, satterthwaite_df
)
from throttlelab.analysis.stats.information_criteria import aic, aicc
from throttlelab.analysis.stats.level_noise import ZERO_NOTE, ZERO_SIGMA, noise_trend
from throttlelab.analysis.stats.monotone_test import monotone_p_value
from throttlelab.analysis.stats.multiple_testing import holm, maxt_stepdown
from throttlelab.analysis.stats.noise import LimitEffects, NoiseModel, PRIOR_CV, estimate_effects
from throttlelab.analysis.stats.outlying_runs import OutlyingRun, flag_outliers
from throttlelab.analysis.stats.profile_intervals import bound_warnings, profile_interval
from throttlelab.analysis.stats.quantile_intervals import (
    ONE_RUN, PooledEstimate, across_runs, pooled_quantile_interval, quantile_interval, split_runs
)
from throttlelab.analysis.stats.run_level import (
    ReplicatesNeeded, RunComparison, TOO_FEW, compare_runs, replicates_needed, run_level_columns,
    runs_of, welch
)
from throttlelab.analysis.stats.selection import (
    BestChoice, pairwise_max_null, posterior_best, worse_than_best, worse_than_best_critical
)

__all__ = [
    'BestChoice', 'LimitEffects', 'NoiseModel', 'ONE_RUN', 'OutlyingRun', 'PRIOR_CV', 'PooledEstimate',
    'ReplicatesNeeded', 'RunComparison', 'TOO_FEW', 'ZERO_NOTE', 'ZERO_SIGMA', 'aic', 'aicc', 'across_runs',
    'bootstrap_refits', 'bound_warnings', 'cholesky', 'compare_runs', 'welch', 'estimate_effects', 'excess_statistics',
    'flag_outliers', 'holm', 'level_covariance', 'maxt_stepdown', 'monotone_p_value', 'noise_trend',
    'not_below_larger_limits', 'null_configuration', 'pairwise_max_null', 'per_limit_covariance',
    'percentile_interval', 'pooled_covariance', 'pooled_quantile_interval', 'posterior_best',
    'profile_interval', 'quantile_interval', 'replicates_needed', 'residual_bootstrap', 'residual_draw',
    'run_level_columns', 'runs_of', 'satterthwaite_df', 'split_runs', 'worse_than_best', 'worse_than_best_critical'
]
