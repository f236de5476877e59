"""Sweeps: specs, plans, the backend protocol, the run store and the loop that runs them; ``adaptive/`` picks runs."""

from throttlelab.experiment.sweeps.backends import Backend, base_row
from throttlelab.experiment.sweeps.kubernetes_options import KubernetesOptions
from throttlelab.experiment.sweeps.plan import Contention, RunPlan, Workload
from throttlelab.experiment.sweeps.run_store import RunStore
from throttlelab.experiment.sweeps.run_sweep import pending_runs, run_sweep
from throttlelab.experiment.sweeps.spec import SweepSpec
from throttlelab.experiment.sweeps.spec_file import (
    BACKENDS, DEFAULT_BUDGET_SHARE, WORKLOAD_OPTIONS, AdaptiveSettings, LocalOptions, SimulatedOptions
)
from throttlelab.experiment.sweeps.spec_loading import load_spec, spec_from, spec_from_mapping
from throttlelab.experiment.sweeps.sweep_results import SweepResults, sweep_results
from throttlelab.experiment.sweeps.sweep_summary import pick_example_run, run_intervals, sweep_summary

__all__ = [
    'BACKENDS', 'DEFAULT_BUDGET_SHARE', 'WORKLOAD_OPTIONS', 'AdaptiveSettings', 'Backend', 'Contention',
    'KubernetesOptions', 'LocalOptions', 'RunPlan', 'RunStore', 'SimulatedOptions', 'SweepResults', 'SweepSpec',
    'Workload', 'base_row', 'load_spec', 'pending_runs', 'pick_example_run', 'run_intervals', 'run_sweep',
    'spec_from', 'spec_from_mapping', 'sweep_results', 'sweep_summary'
]
