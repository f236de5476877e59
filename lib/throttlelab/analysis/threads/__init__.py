"""Thread counts: the best thread count per limit, automatic threads against the best, thread advice."""

from throttlelab.analysis.threads.thread_advice import advice_sentences, thread_advice
from throttlelab.analysis.threads.thread_choice import selection_adjusted
from throttlelab.analysis.threads.thread_count_results import thread_count_results
from throttlelab.analysis.threads.thread_counts import ThreadCountAnalysis, analyse_thread_counts

__all__ = [
    'ThreadCountAnalysis', 'advice_sentences', 'analyse_thread_counts', 'selection_adjusted',
    'thread_advice', 'thread_count_results'
]
