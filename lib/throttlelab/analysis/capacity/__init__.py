"""Capacity: CPU per unit of work and how many units fit under a CPU budget."""

from throttlelab.analysis.capacity.capacity import (
    CapacityProjection, UnitCost, VariantComparison, compare_variants, project_capacity,
    projection_curve, unit_costs
)
from throttlelab.analysis.capacity.capacity_results import CapacityResults, capacity_results

__all__ = [
    'CapacityProjection', 'CapacityResults', 'UnitCost', 'VariantComparison', 'capacity_results',
    'compare_variants', 'project_capacity', 'projection_curve', 'unit_costs'
]
