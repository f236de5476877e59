"""Tests of throttlelab.experiment.latency.service.pipeline: stage timings, the semaphore, config checks."""

from __future__ import annotations

import threading

import pytest

from throttlelab.experiment.latency.service import STAGES, Pipeline, PipelineConfig
from throttlelab.experiment.latency.service.work import CHUNK

from .service_helpers import SMALL


def test_pipeline_times_every_stage():
    pipe = Pipeline(SMALL)
    try:
        out = pipe.run()
    finally:
        pipe.close()
    assert set(out) == {*STAGES, "total"}
    for stage in STAGES:
        t = out[stage]
        assert t["seconds"] >= t["run_seconds"] > 0
        assert t["wait_seconds"] >= 0
    assert out["total"]["seconds"] >= out["embedding"]["seconds"]


def test_semaphore_limits_concurrent_heavy_stages():
    pipe = Pipeline(PipelineConfig(max_workers=6, semaphore=2, heavy_elements=CHUNK * 30,
                                   light_elements=CHUNK, score_elements=CHUNK))
    threads = [threading.Thread(target=pipe.run) for _ in range(6)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        pipe.close()
    assert 1 <= pipe.heavy_peak <= 2


def test_config_rejects_nonsense():
    with pytest.raises(ValueError):
        PipelineConfig(max_workers=0)
    with pytest.raises(ValueError):
        PipelineConfig(semaphore=0)
