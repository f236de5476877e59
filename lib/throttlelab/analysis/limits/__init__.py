"""CPU limits: scaling fits, the knee, dead zones, active time and the recommended limit."""

from throttlelab.analysis.limits.active_time import ActiveTimeFit, fit_active_time
from throttlelab.analysis.limits.cpu_limit_results import (
    CpuLimitResults, active_time_results, cpu_limit_results
)
from throttlelab.analysis.limits.cpu_limits import analyse_cpu_limits, dead_zone_sentences
from throttlelab.analysis.limits.dead_zone_results import DeadZone, DeadZoneAnalysis, LimitTest
from throttlelab.analysis.limits.dead_zones import find_dead_zones
from throttlelab.analysis.limits.recommend import Knee, Recommendation, expected_estimate
from throttlelab.analysis.limits.scaling import fit_runtime_model, rank_fits
from throttlelab.analysis.limits.scaling_models import MODEL_ORDER, ScalingFit

__all__ = [
    'MODEL_ORDER', 'ActiveTimeFit', 'CpuLimitResults', 'DeadZone', 'DeadZoneAnalysis', 'Knee', 'LimitTest',
    'Recommendation', 'ScalingFit', 'active_time_results', 'analyse_cpu_limits', 'cpu_limit_results',
    'dead_zone_sentences', 'expected_estimate', 'find_dead_zones', 'fit_active_time',
    'fit_runtime_model', 'rank_fits'
]
