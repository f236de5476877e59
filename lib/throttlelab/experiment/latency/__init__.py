"""Latency experiments: the target service and contention x rate sweeps (the load generator is in local_cgroup).

The face is light: ``python -m throttlelab.experiment.latency.service`` (the target service, started inside a run's
cgroup or pod) imports this package first, so its names load on first use, never polars or the load generator.
"""

__all__ = [
    'LatencyPoint', 'LatencySweep', 'LatencySweepFile', 'Placement', 'load_measured', 'run_latency_sweep',
    'run_live_sweep'
]


def __getattr__(name: str):
    """The face's names, each loaded on first use (see the module docstring)."""
    if name == "load_measured":
        from throttlelab.experiment.latency.latency_inputs import load_measured

        return load_measured
    if name == "Placement":
        from throttlelab.experiment.latency.latency_placement import Placement

        return Placement
    if name in ("run_latency_sweep", "run_live_sweep"):
        from throttlelab.experiment.latency.latency_runner import run_latency_sweep, run_live_sweep

        return {"run_latency_sweep": run_latency_sweep, "run_live_sweep": run_live_sweep}[name]
    if name in ("LatencyPoint", "LatencySweep", "LatencySweepFile"):
        from throttlelab.experiment.latency.latency_sweep import LatencyPoint, LatencySweep, LatencySweepFile

        return {"LatencyPoint": LatencyPoint, "LatencySweep": LatencySweep, "LatencySweepFile": LatencySweepFile}[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
