"""Notebook 08's ``results.json``: the result class and the function that builds it from the right-sizing.

The headline numbers (current and recommended limit, throttled ratio) are
fields of :class:`~throttlelab.analysis.rightsizing.rightsizing.Rightsizing`, the
recommended limit with its block-bootstrap interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from throttlelab.analysis.rightsizing.recommendation import Rightsizing, Settings


@dataclass(frozen=True)
class RightsizingResults:
    """``results.json`` of notebook 08 (right-sizing): one recommendation per container.

    Attributes
    ----------
    input
        Where the usage came from: ``source``, ``how`` it was read, ``namespace``, ``selector``, the window
        requested (``start``, ``end`` in unix seconds, ``step_s``), the hours it actually held
        (``observed_hours``), the HTTP ``queries`` made and the ``notes`` said once about the input.
    parameters
        ``throttle_target``, ``limit_policy``, ``min_history``.
    recommendations
        One per container.
    """

    input: dict[str, Any]
    parameters: dict[str, Any]
    recommendations: tuple[Rightsizing, ...]


def run_results(run) -> RightsizingResults:
    """:class:`RightsizingResults` of a :class:`~throttlelab.analysis.rightsizing.rightsizing_run.RightsizingRun`
    (the namespace, selector and min-history are its request's, as the user wrote them)."""
    f, asked = run.fetched, run.request
    return rightsizing_results(run.recommendations, run.settings, source=run.source, how=run.how,
                               window=(f.start, f.end, f.step_s), queries=f.queries, namespace=asked.namespace or "",
                               selector=asked.selector or "", min_history=asked.min_history,
                               observed_hours=run.observed_s / 3600, notes=run.notes)


def rightsizing_results(recommendations: list[Rightsizing], settings: Settings, *, source: str, how: str,
                        window: tuple[float, float, float], queries: int, namespace: str = "", selector: str = "",
                        min_history: str = "", observed_hours: float | None = None,
                        notes: tuple[str, ...] = ()) -> RightsizingResults:
    """Notebook 08's :class:`RightsizingResults`; ``window`` is ``(start, end, step_s)``."""
    start, end, step_s = window
    return RightsizingResults(
        input={"source": source, "how": how, "namespace": namespace, "selector": selector, "start": start,
               "end": end, "step_s": step_s, "observed_hours": observed_hours, "queries": queries,
               "notes": list(notes)},
        parameters={"throttle_target": settings.throttle_target, "limit_policy": settings.limit_policy,
                    "min_history": min_history},
        recommendations=tuple(recommendations),
    )
