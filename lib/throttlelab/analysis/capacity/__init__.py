"""Capacity: CPU per unit of work and how many units fit under a CPU budget."""

from throttlelab.analysis.capacity.capacity import (
    compare_variants, project_capacity, projection_curve, unit_costs
)
from throttlelab.analysis.capacity.capacity_results import capacity_results

__all__ = [
    'capacity_results', 'compare_variants', 'project_capacity', 'projection_curve', 'unit_costs'
]
