"""Right-sizing running containers: throttling-aware requests and limits from Prometheus series."""

from throttlelab.analysis.rightsizing.ladder_truth import LadderStep, LadderTruth, ladder_truth
from throttlelab.analysis.rightsizing.recommendation import Rightsizing, Settings
from throttlelab.analysis.rightsizing.rightsizing_parallel import rightsize_all
from throttlelab.analysis.rightsizing.rightsizing_results import RightsizingResults, run_results
from throttlelab.analysis.rightsizing.rightsizing_run import RightsizingRequest, RightsizingRun, rightsize_read
from throttlelab.analysis.rightsizing.rightsizing_views import (
    EXTRAPOLATED_NOTE, advice_sentences, decision_table, label, marks_frame, recommendations_frame,
    throttled_ratio_frame, usage_distribution_frame
)
from throttlelab.analysis.rightsizing.runtime_advice import RuntimeAdvice, runtime_advice
from throttlelab.analysis.rightsizing.workload_advice import method_lines

__all__ = [
    'RuntimeAdvice', 'runtime_advice',
    'EXTRAPOLATED_NOTE', 'LadderStep', 'LadderTruth', 'Rightsizing', 'RightsizingRequest', 'RightsizingResults',
    'RightsizingRun', 'Settings', 'advice_sentences', 'decision_table', 'label', 'ladder_truth', 'marks_frame',
    'method_lines', 'recommendations_frame', 'rightsize_all', 'rightsize_read', 'run_results',
    'throttled_ratio_frame', 'usage_distribution_frame'
]
