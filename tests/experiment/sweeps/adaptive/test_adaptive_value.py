"""Value of one more run: runs go where they can change a decision."""

from __future__ import annotations

from throttlelab.experiment.sweeps.adaptive.adaptive_cells import AdaptiveSettings, Layout
from throttlelab.experiment.sweeps.adaptive.adaptive_value import run_values

LAY = Layout.of([0.0], [1.0, 2.0], ["1", "2"])


def test_a_close_call_is_worth_more_than_a_settled_cell():
    obs = {(0.0, 1.0, "1"): [10.0] * 1, (0.0, 1.0, "2"): [10.0, 10.3, 9.9, 10.1, 10.2, 9.8],
           (0.0, 2.0, "1"): [10.0, 10.1, 9.9, 10.2, 9.8, 10.0], (0.0, 2.0, "2"): [5.0, 5.1, 4.9, 5.05, 4.95, 5.0]}
    obs[(0.0, 1.0, "1")] = [11.2]  # one run, about as far from its neighbour as the resolution
    vals = {v.cell: v for v in run_values(obs, LAY, AdaptiveSettings(draws=2000), list(obs))}
    assert max(vals, key=lambda c: vals[c].gain) == (0.0, 1.0, "1")
    assert vals[(0.0, 2.0, "2")].gain < 0.01  # clearly the best at 2 cores: another run changes nothing
    assert all(-0.02 < v.gain < 1 and 0 <= v.now <= 1 for v in vals.values())


def test_a_cell_without_runs_can_be_valued():
    obs = {(0.0, 1.0, "1"): [10.0, 10.2], (0.0, 1.0, "2"): [9.0, 9.1], (0.0, 2.0, "1"): [6.0, 6.1]}
    vals = run_values(obs, LAY, AdaptiveSettings(draws=1000), LAY.cells)
    assert (0.0, 2.0, "2") in {v.cell for v in vals}
    assert max(vals, key=lambda v: v.gain).cell == (0.0, 2.0, "2")  # the best thread count at 2 is unknown
