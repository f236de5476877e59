"""Right-sizing a cluster's containers in worker processes gives what one process gives, in the same order."""

from __future__ import annotations

import dataclasses

from tests.analysis.synthetic_cpu import container
from throttlelab.analysis.rightsizing.recommendation import Settings
from throttlelab.analysis.rightsizing.rightsizing_parallel import rightsize_all


def test_worker_processes_give_the_same_recommendations_in_the_same_order():
    many = [container(f"web-{i}", limit=[0.5, 1.0, None][i % 3], mean=0.3 + 0.1 * (i % 5), seed=i) for i in range(9)]
    settings = Settings(resamples=50)
    one = rightsize_all(many, settings, processes=1)
    spread = rightsize_all(many, settings, processes=2, parallel_from=2)
    assert [r.pod for r in one] == [f"web-{i}" for i in range(9)]
    assert [dataclasses.asdict(r) for r in spread] == [dataclasses.asdict(r) for r in one]
    assert len({r.recommended_limit_cores for r in one}) > 2  # different containers, different answers


def test_below_the_threshold_or_on_one_core_it_runs_in_this_process(monkeypatch):
    import multiprocessing

    def no_pool(*args, **kwargs):
        raise AssertionError("no worker processes expected")

    monkeypatch.setattr(multiprocessing, "get_context", no_pool)
    few = [container(f"web-{i}", seed=i) for i in range(3)]
    assert len(rightsize_all(few, Settings(resamples=20), processes=2)) == 3  # under PARALLEL_FROM
    assert len(rightsize_all(few, Settings(resamples=20), processes=1, parallel_from=1)) == 3
