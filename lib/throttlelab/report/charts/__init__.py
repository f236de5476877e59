"""Altair chart builders, one module per topic. Each returns an ``alt.Chart``.

Importing the package enables the shared theme (:mod:`.style`: colour-blind-safe palettes).
"""

from throttlelab.report.charts.active_time_charts import active_time_chart
from throttlelab.report.charts.capacity_charts import capacity_chart
from throttlelab.report.charts.dead_zone_charts import dead_zone_chart
from throttlelab.report.charts.latency_charts import (
    fitted_curves, latency_ecdf, percent_change_heatmap, response_vs_contention, response_vs_workers, stage_bars
)
from throttlelab.report.charts.monitor_charts import monitor_panels, skip_chart
from throttlelab.report.charts.rightsizing_charts import throttled_ratio_chart, usage_distribution_chart
from throttlelab.report.charts.scaling_charts import scaling_chart
from throttlelab.report.charts.style import enable_theme, with_static_width
from throttlelab.report.charts.sweep_charts import limit_wall_chart, run_intervals_chart
from throttlelab.report.charts.thread_charts import auto_vs_best_chart, thread_heatmap

__all__ = [
    'active_time_chart', 'auto_vs_best_chart', 'capacity_chart', 'dead_zone_chart', 'enable_theme', 'fitted_curves',
    'latency_ecdf', 'limit_wall_chart', 'monitor_panels', 'percent_change_heatmap', 'response_vs_contention',
    'response_vs_workers', 'run_intervals_chart', 'scaling_chart', 'skip_chart', 'stage_bars', 'thread_heatmap',
    'throttled_ratio_chart', 'usage_distribution_chart', 'with_static_width'
]

enable_theme()
