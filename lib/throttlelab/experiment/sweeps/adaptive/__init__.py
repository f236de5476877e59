"""Adaptive sweeps: a model of the grid that chooses the next run where a decision is still uncertain."""

from throttlelab.experiment.sweeps.adaptive.adaptive import AdaptiveDesign
from throttlelab.experiment.sweeps.adaptive.adaptive_answers import acceptable_answers
from throttlelab.experiment.sweeps.adaptive.adaptive_decisions import decide
from throttlelab.experiment.sweeps.adaptive.adaptive_tables import (
    answer_sentences, decisions_table, run_order_table
)
from throttlelab.experiment.sweeps.spec_file import AdaptiveSettings, DEFAULT_BUDGET_SHARE

__all__ = [
    'AdaptiveDesign', 'AdaptiveSettings', 'DEFAULT_BUDGET_SHARE', 'acceptable_answers',
    'answer_sentences', 'decide', 'decisions_table', 'run_order_table'
]
