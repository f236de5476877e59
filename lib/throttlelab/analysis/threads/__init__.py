"""Thread counts: the best thread count per limit, automatic threads against the best, thread advice."""

from throttlelab.analysis.threads.thread_advice import advice_sentences, thread_advice
from throttlelab.analysis.threads.thread_choice import selection_adjusted
from throttlelab.analysis.threads.thread_choice_metric import LimitThreads
from throttlelab.analysis.threads.thread_count_results import (
    ThreadCountResults, single_number_table, thread_count_results
)
from throttlelab.analysis.threads.thread_counts import ThreadCountAnalysis, analyse_thread_counts
from throttlelab.analysis.threads.thread_sweep import (
    LimitFamily, auto_against_best, limit_family, pair_change, runs_to_decide, slower_than_best
)

__all__ = [
    'LimitFamily', 'LimitThreads', 'ThreadCountAnalysis', 'ThreadCountResults', 'advice_sentences',
    'analyse_thread_counts', 'auto_against_best', 'limit_family', 'pair_change', 'runs_to_decide',
    'selection_adjusted', 'single_number_table', 'slower_than_best', 'thread_advice', 'thread_count_results'
]
