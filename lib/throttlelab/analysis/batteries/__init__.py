"""Batteries: false-alarm rate, power and interval coverage of the analyses, simulated as the reports use them."""

from throttlelab.analysis.batteries.pooled_quantile_battery import COVERAGE_GOAL, missed_goals, pooled_rows
from throttlelab.analysis.batteries.battery_scenarios import goal_missed
from throttlelab.analysis.batteries.stats_battery import battery
from throttlelab.analysis.batteries.thread_count_battery import METHODS as THREAD_METHODS
from throttlelab.analysis.batteries.thread_count_battery import goal_missed as thread_goal_missed
from throttlelab.analysis.batteries.thread_count_battery import thread_count_rows

__all__ = [
    'COVERAGE_GOAL', 'THREAD_METHODS', 'battery', 'goal_missed', 'missed_goals', 'pooled_rows', 'thread_count_rows',
    'thread_goal_missed'
]
