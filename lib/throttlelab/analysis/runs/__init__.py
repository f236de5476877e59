"""Runs and their response metric: reading runs, the metric's unit and direction, summaries per level."""

from throttlelab.analysis.runs.ingest_summary import ingest_summary, merge_by_table
from throttlelab.analysis.runs.measured_sections import (
    LiveSweep, MeasuredContention, MeasuredStages, MeasuredWorkers, live_sweep, measured_contention,
    measured_stages, measured_workers
)
from throttlelab.analysis.runs.metric_views import (
    best_threads_view, cells_view, dead_zone_view, limits_view, recommendations_view
)
from throttlelab.analysis.runs.prepare import (
    GROUP_KEYS, PreparedRuns, group_label, iter_groups, limit_label, limit_summary, prepare_runs
)
from throttlelab.analysis.runs.response_metric import (
    RESPONSE_METRICS, ResponseMetric, metric_change_ci, metric_change_pct, metric_ci, metric_value,
    resolve, worse_word
)
from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.analysis.runs.single_numbers import (
    CEILING_CV, FLOOR_CV, critical_gap, sigma_to_cv, single_number_verdicts, verdict_sentences
)

__all__ = [
    'CEILING_CV', 'FLOOR_CV', 'GROUP_KEYS', 'LiveSweep', 'MeasuredContention', 'MeasuredStages',
    'MeasuredWorkers', 'PreparedRuns', 'RESPONSE_METRICS', 'ResponseMetric', 'best_threads_view',
    'cells_view', 'critical_gap', 'dead_zone_view', 'group_label', 'ingest_summary', 'iter_groups',
    'limit_label', 'limit_summary', 'limits_view', 'live_sweep', 'load_runs', 'measured_contention',
    'measured_stages', 'measured_workers', 'merge_by_table', 'metric_change_ci', 'metric_change_pct',
    'metric_ci', 'metric_value', 'prepare_runs', 'recommendations_view', 'resolve', 'sigma_to_cv',
    'single_number_verdicts', 'verdict_sentences', 'worse_word'
]
