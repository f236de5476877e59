"""Each report's answer in plain words: the lead (action, then how sure), what it rests on, the method.

One module per report (notebooks 01-07), each building an :class:`Answer` from the notebook's results;
:mod:`.answer_text` holds what they share (the word budget, :func:`how_sure`, names of groups, runs and thread
counts).  The right-sizing answer is :mod:`throttlelab.report.recommend`'s.
"""

from throttlelab.report.answers.answer_text import Answer, how_sure
from throttlelab.report.answers.capacity_answer import capacity_answer
from throttlelab.report.answers.cpu_limit_answer import cpu_limit_answer
from throttlelab.report.answers.monitor_answer import monitor_answer
from throttlelab.report.answers.service_answers import concurrency_answer, contention_answer
from throttlelab.report.answers.sweep_answer import sweep_answer
from throttlelab.report.answers.thread_count_answer import per_limit_lines, thread_count_answer

__all__ = [
    'Answer', 'capacity_answer', 'concurrency_answer', 'contention_answer', 'cpu_limit_answer', 'how_sure',
    'monitor_answer', 'per_limit_lines', 'sweep_answer', 'thread_count_answer'
]
