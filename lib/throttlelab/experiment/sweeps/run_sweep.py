"""Run a sweep: every planned run not yet in the run store, with cleanup on any exit.

:func:`run_sweep` is what ``throttlelab sweep`` and notebook ``01_run_sweep`` call.
It resumes (runs whose id already has a row are skipped), shows a progress bar
with an ETA (``tqdm.auto``: a widget in notebooks, text in a terminal), pauses
``cooldown_s`` between runs, turns SIGTERM into the same clean stop as Ctrl-C
(the running workload is killed, its cgroup or pod removed, no row written, so
the run is redone on resume), and returns the experiment's runs table.
A spec with ``design: adaptive`` is run by
:class:`~throttlelab.experiment.sweeps.adaptive.adaptive.AdaptiveDesign`: one run at a time,
each chosen from the results so far, its reason in ``chosen_because``.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import polars as pl

from throttlelab.experiment.sweeps.backends import Backend, get_backend
from throttlelab.experiment.sweeps.run_store import RunStore

if TYPE_CHECKING:
    from throttlelab.experiment.sweeps.plan import RunPlan
    from throttlelab.experiment.sweeps.spec import SweepSpec

log = logging.getLogger(__name__)


class SweepTerminated(KeyboardInterrupt):
    """Raised in the sweep's thread when it receives SIGTERM (handled like Ctrl-C)."""


def pending_runs(spec: SweepSpec, store: RunStore | None = None, *, retry_failed: bool = False) -> list[RunPlan]:
    """The planned runs that have no row yet (with ``retry_failed``: no ``ok`` row).

    For ``design: adaptive`` the plan is not known in advance: the runs of the
    initial design not yet stored (plus the next chosen run once it is done).
    """
    store = store or RunStore(spec.experiment_dir)
    if spec.design == "adaptive":
        from throttlelab.experiment.sweeps.adaptive import AdaptiveDesign

        design = AdaptiveDesign(spec, store.read_runs())
        nxt = design.next_run()
        return [design._plan(c) for c in design.initial_missing()] or ([nxt[0]] if nxt else [])
    done = store.completed_run_ids(include_failed=not retry_failed)
    return [p for p in spec.plan() if p.run_id not in done]


def run_sweep(
    spec: SweepSpec,
    *,
    backend: Backend | None = None,
    progress: bool = True,
    retry_failed: bool = False,
    max_runs: int | None = None,
) -> pl.DataFrame:
    """Run (or resume) a sweep and return its runs table.

    Parameters
    ----------
    spec
        The sweep (see :mod:`throttlelab.experiment.sweeps.spec`).
    backend
        A backend instance; default ``get_backend(spec.backend)``.
    progress
        Show a progress bar with ETA.
    retry_failed
        Also redo runs whose only rows failed or timed out (the new attempt is
        appended; the old row stays).
    max_runs
        Stop after this many runs (the rest is done by the next call).

    Returns
    -------
    polars.DataFrame
        The experiment's whole runs table (earlier sweeps' rows included).

    Raises
    ------
    EnvironmentProblem
        If the backend cannot work on this machine.
    KeyboardInterrupt
        On Ctrl-C or SIGTERM (:class:`SweepTerminated`), after cleanup.
    """
    store = RunStore(spec.experiment_dir)
    store.remove_temporaries()
    backend = backend or get_backend(spec.backend)
    if spec.design == "adaptive":
        return _run_adaptive(spec, backend, store, progress, max_runs)
    all_todo = pending_runs(spec, store, retry_failed=retry_failed)
    total = len(spec.plan())
    todo = all_todo if max_runs is None else all_todo[:max_runs]
    if not todo:
        log.info("%s: all %d runs already done", spec.name, total)
        return store.read_runs()
    removed = backend.remove_orphans()
    if removed:
        log.warning("removed %d leftover(s) of an earlier sweep: %s", len(removed), ", ".join(removed))
    with _sigterm_as_interrupt():
        try:
            backend.prepare(spec)
            store.write_spec(_spec_yaml(spec))
            bar = _progress_bar(total, total - len(all_todo), spec.name, progress)
            try:
                for plan, row in _rows(backend, todo, store, spec.cooldown_s):
                    store.append(row)
                    bar.set_postfix_str(_postfix(row), refresh=False)
                    bar.update(1)
            finally:
                bar.close()
        finally:
            backend.cleanup(spec)
    return store.read_runs()


def _run_adaptive(spec: SweepSpec, backend: Backend, store: RunStore, progress: bool,
                  max_runs: int | None) -> pl.DataFrame:
    """Run an adaptive sweep: one run at a time, each chosen by the design from the rows so far."""
    from throttlelab.experiment.sweeps.adaptive import AdaptiveDesign

    design = AdaptiveDesign(spec, store.read_runs())
    step = design.next_run()
    if step is None:
        log.info("%s: adaptive sweep finished (%s)", spec.name, design.status().stop_reason)
        return store.read_runs()
    removed = backend.remove_orphans()
    if removed:
        log.warning("removed %d leftover(s) of an earlier sweep: %s", len(removed), ", ".join(removed))
    done = 0
    with _sigterm_as_interrupt():
        try:
            backend.prepare(spec)
            store.write_spec(_spec_yaml(spec))
            bar = _progress_bar(design.budget, design.runs_used, spec.name, progress)
            try:
                while step is not None and (max_runs is None or done < max_runs):
                    if done and spec.cooldown_s:
                        time.sleep(spec.cooldown_s)
                    plan, reason = step
                    row = _execute(backend, plan, store)
                    row["chosen_because"] = reason
                    store.append(row)
                    design.record(row)
                    done += 1
                    bar.set_postfix_str(_postfix(row), refresh=False)
                    bar.update(0 if plan.warmup else 1)
                    step = design.next_run()
            finally:
                bar.close()
        finally:
            backend.cleanup(spec)
    return store.read_runs()


def _rows(backend: Backend, todo: list[RunPlan], store: RunStore, cooldown_s: float) -> Iterator[tuple[RunPlan, dict]]:
    """``(plan, row)`` per run, in the order runs finish.

    A backend offering ``parallel_lanes() > 1`` and ``execute_many`` (kubernetes
    with several nodes) runs plans in parallel, one per node; otherwise one at a
    time with ``cooldown_s`` between runs.
    """
    lanes = getattr(backend, "parallel_lanes", None)
    if lanes is not None and lanes() > 1:
        for plan, row in backend.execute_many(todo, store.monitor_path):
            monitor = store.monitor_path(plan.run_id)
            row.setdefault("monitor_log", store.relative(monitor) if monitor.exists() else None)
            yield plan, row
        return
    for i, plan in enumerate(todo):
        if i and cooldown_s:
            time.sleep(cooldown_s)
        yield plan, _execute(backend, plan, store)


def _execute(backend: Backend, plan: RunPlan, store: RunStore) -> dict:
    """Run one plan; an unexpected error of the backend becomes a failed row."""
    from throttlelab.errors import EnvironmentProblem

    monitor = store.monitor_path(plan.run_id)
    try:
        row = backend.execute(plan, monitor)
    except (KeyboardInterrupt, EnvironmentProblem):
        raise
    except Exception as exc:  # noqa: BLE001 - recorded, never dropped
        log.exception("run %s failed in the backend", plan.run_id)
        from throttlelab.experiment.sweeps.backends import base_row

        row = base_row(plan, getattr(backend, "name", "?"))
        row.update(status="failed", error=f"{type(exc).__name__}: {exc}")
    row.setdefault("monitor_log", store.relative(monitor) if monitor.exists() else None)
    return row


def _postfix(row: dict) -> str:
    wall = row.get("wall_seconds")
    lim = row.get("cpu_limit_cores")
    text = f"{'unl' if lim is None else f'{lim:g}c'} t={row.get('threads')}"
    if wall is not None:
        text += f" {wall:.1f}s"
    return text + ("" if row.get("status") == "ok" else f" {row.get('status')}")


def _progress_bar(total: int, initial: int, name: str, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc=name, unit="run", smoothing=0.1)


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str, refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`SweepTerminated` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):  # noqa: ARG001
        raise SweepTerminated("terminated (SIGTERM)")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _spec_yaml(spec: SweepSpec) -> str:
    import yaml

    return yaml.safe_dump(spec.to_mapping(), sort_keys=False)
