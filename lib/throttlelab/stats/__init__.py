"""Statistics shared by the experiment and analysis layers: the knee, the dead-zone rule and the noise prior.

Defined once, below both layers (it imports no layer), so an adaptive sweep and its report ask the same questions of
the same runs: ``limit_rules`` (the knee and the dead-zone rule on log times), ``noise_prior`` (the run-to-run noise
assumed before any is measured).
"""

from throttlelab.stats.limit_rules import (
    KNEE_TOLERANCE_PCT, best_lower, dead_zone_answers, dead_zone_margin, knee_answers, knee_index, slowdown_over_lower
)
from throttlelab.stats.noise_prior import PRIOR_CV, cv_of_log_sd, log_sd

__all__ = [
    'KNEE_TOLERANCE_PCT', 'PRIOR_CV', 'best_lower', 'cv_of_log_sd', 'dead_zone_answers', 'dead_zone_margin',
    'knee_answers', 'knee_index', 'log_sd', 'slowdown_over_lower'
]
