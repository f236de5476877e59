"""The noisy neighbour: busy workers capped at a share of the machine."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from throttlelab.errors import EnvironmentProblem
from throttlelab.experiment.local_cgroup.cgroup_layout import CgroupLayout
from throttlelab.experiment.local_cgroup.neighbour import NoisyNeighbour

NOWHERE = CgroupLayout(1, Path("/nonexistent/cpu"), Path("/nonexistent/cpuacct"))


def test_no_neighbour_is_a_no_op():
    with NoisyNeighbour(0, 4) as nb:
        assert nb.mode == "none" and not nb.running()
    with NoisyNeighbour(0.5, 0) as nb:
        assert nb.mode == "none"


def test_bad_arguments():
    with pytest.raises(ValueError):
        NoisyNeighbour(1.5, 1)
    with pytest.raises(ValueError):
        NoisyNeighbour(0.5, -1)


def test_without_cgroup_it_fails_clearly_or_falls_back():
    with pytest.raises(EnvironmentProblem, match="does not exist"):
        with NoisyNeighbour(0.1, 1, layout=NOWHERE):
            pass
    with NoisyNeighbour(0.05, 1, layout=NOWHERE, fallback=True) as nb:
        assert nb.mode == "duty-cycle" and nb.running()
    assert not nb.running()


@pytest.mark.cgroup
def test_neighbour_is_capped_at_its_share(cgroup_layout):
    share, workers = 0.1, 2
    with NoisyNeighbour(share, workers, layout=cgroup_layout) as nb:
        assert nb.mode == "cgroup" and nb.running()
        cg_dirs = nb.cgroup.dirs
        assert nb.quota_us == round(share * os.cpu_count() * 100_000)
        t0 = time.monotonic()
        time.sleep(0.6)
    elapsed = time.monotonic() - t0
    assert not nb.running()
    assert not any(d.exists() for d in cg_dirs)
    # the kernel's count of what it used: at most its quota (plus a period's slack)
    cap = share * os.cpu_count() * (elapsed + 0.1)
    assert 0 < nb.cpu_seconds <= cap * 1.1
