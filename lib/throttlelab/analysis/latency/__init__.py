"""Latency and services: quantiles, response curves, noisy neighbours, contention and concurrency limits."""

from throttlelab.analysis.latency.concurrency import (
    analyse_measured_stages, measured_headlines, percent_change_table, wiki_layout, wiki_reproduction
)
from throttlelab.analysis.latency.concurrency_results import concurrency_results
from throttlelab.analysis.latency.contention_paper import paper_table1, paper_table1_wide, published_increase
from throttlelab.analysis.latency.contention_results import contention_results
from throttlelab.analysis.latency.neighbour_workers import analyse_neighbour_workers, change_wide, headline
from throttlelab.analysis.latency.response_curves import analyse_measured, fit_summary, inflation_headline

__all__ = [
    'analyse_measured', 'analyse_measured_stages', 'analyse_neighbour_workers', 'change_wide',
    'concurrency_results', 'contention_results', 'fit_summary', 'headline', 'inflation_headline',
    'measured_headlines', 'paper_table1', 'paper_table1_wide', 'percent_change_table',
    'published_increase', 'wiki_layout', 'wiki_reproduction'
]
