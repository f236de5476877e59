"""Capacity: the MediaMTX report's projection (100 streams: 71% asis, 52% tobe)."""

from __future__ import annotations

import pytest

from throttlelab.analysis.capacity.capacity import (
    compare_variants, fit_load_levels, project_capacity, projection_curve, unit_costs,
)
from throttlelab.ingest.published.published import load_mediamtx


def test_mediamtx_projection_reproduces_the_report():
    asis, tobe = unit_costs(load_mediamtx())
    assert asis.cpu_cores_per_unit * 100 == pytest.approx(0.71, abs=0.005)  # 0.71% per stream
    assert asis.memory_bytes_per_unit / 2**20 == pytest.approx(3.95, abs=0.01)  # 3.95 MB per stream
    pa, pt = project_capacity(asis, units=100), project_capacity(tobe, units=100)
    assert round(pa.cpu_pct_of_limit) == 71 and round(pt.cpu_pct_of_limit) == 52
    assert pa.cpu_cores.low < pa.cpu_cores.value < pa.cpu_cores.high
    assert "assumed" in pa.assumption
    assert pa.capacity_units.value == pytest.approx(0.7 / asis.cpu_cores_per_unit)
    c = compare_variants(pa, pt, asis, tobe)
    assert c.cpu_change_pct == pytest.approx(-27.2, abs=0.1)
    assert c.memory_change_pct == pytest.approx(-86.6, abs=0.1)
    assert c.capacity_ratio == pytest.approx(asis.cpu_cores_per_unit / tobe.cpu_cores_per_unit)
    assert projection_curve(asis, [64, 100], n_sim=500).height == 2


def test_projection_is_seeded():
    asis, _ = unit_costs(load_mediamtx())
    assert project_capacity(asis, seed=4) == project_capacity(asis, seed=4)


def test_load_level_fit_recovers_fixed_and_per_unit():
    f = fit_load_levels([10, 20, 40, 80], [0.1 + 0.008 * x for x in (10, 20, 40, 80)])
    assert f.fixed == pytest.approx(0.1) and f.per_unit == pytest.approx(0.008)
    est, ci = f.predict(100)
    assert est == pytest.approx(0.9)
    with pytest.raises(ValueError):
        fit_load_levels([1, 1, 1], [1, 2, 3])
