"""Notebook 07's ``results.json``: the result class and the function that builds it from the capacity analysis.

The headline numbers (CPU at the target load and the capacity under the
threshold, each with its range; the after-against-before change) are fields of
:class:`~throttlelab.analysis.capacity.capacity.CapacityProjection` and
:class:`~throttlelab.analysis.capacity.capacity.VariantComparison`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from throttlelab.analysis.capacity.capacity import CapacityProjection, UnitCost, VariantComparison


@dataclass(frozen=True)
class CapacityResults:
    """``results.json`` of notebook 07 (capacity): cost per unit, projected CPU and capacity, before against after.

    Attributes
    ----------
    input
        Where the usage table came from (``capacity_path``).
    parameters
        The projections' parameters (target load, limit, threshold, assumed overhead and noise, simulation size,
        seed, level), as they carry them.
    unit
        What one unit of load is (``streams``).
    unit_costs
        Measured usage per variant and its cost per unit.
    projections
        Per variant: CPU at the target load and the capacity under the threshold, with 95% ranges.
    comparison
        The last variant against the first (``null`` with one variant).
    assumption
        The assumption the projections rest on (stated with every range).
    """

    input: dict[str, str]
    parameters: dict[str, Any]
    unit: str
    unit_costs: tuple[UnitCost, ...]
    projections: tuple[CapacityProjection, ...]
    comparison: VariantComparison | None
    assumption: str


def capacity_results(costs: list[UnitCost], projections: list[CapacityProjection],
                     comparison: VariantComparison | None, *, capacity_path: str = "",
                     unit: str = "streams") -> CapacityResults:
    """Notebook 07's :class:`CapacityResults` (``projections`` must not be empty: they state the assumption).

    Its ``parameters`` are those the projections were made with (:attr:`CapacityProjection.parameters`, the
    target load as ``target_units``); projections made with different parameters raise ``ValueError``.
    """
    if not projections:
        raise ValueError("no projection: the usage table has no variant")
    made_with = {repr(p.parameters) for p in projections}
    if len(made_with) > 1:
        raise ValueError(f"projections made with different parameters: {sorted(made_with)}")
    parameters = projections[0].parameters
    return CapacityResults(
        input={"capacity_path": capacity_path or "published:mediamtx_optimization.csv"},
        parameters={"target_units": parameters.pop("units"), **parameters}, unit=unit, unit_costs=tuple(costs), projections=tuple(projections),
        comparison=comparison, assumption=projections[0].assumption,
    )
