"""Batteries: false-alarm rate, power and interval coverage of the analyses, simulated as the reports use them."""

from throttlelab.analysis.batteries.stats_battery import battery
from throttlelab.analysis.batteries.thread_count_battery import thread_count_rows

__all__ = [
    'battery', 'thread_count_rows'
]
