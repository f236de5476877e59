"""Right-sizing running containers: throttling-aware requests and limits from Prometheus series."""

from throttlelab.analysis.rightsizing.rightsizing import Settings, rightsize_all
from throttlelab.analysis.rightsizing.rightsizing_results import rightsizing_results
from throttlelab.analysis.rightsizing.rightsizing_views import (
    decision_table, marks_frame, recommendations_frame, throttled_ratio_frame, usage_distribution_frame
)

__all__ = [
    'Settings', 'decision_table', 'marks_frame', 'recommendations_frame', 'rightsize_all',
    'rightsizing_results', 'throttled_ratio_frame', 'usage_distribution_frame'
]
