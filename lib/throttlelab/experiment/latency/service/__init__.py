"""The target service of the latency experiments (stdlib HTTP server + numpy CPU work).

A CPU-bound endpoint (``/cpu``, the php-apache trigonometric loop of the
contention paper) and a multi-stage pipeline endpoint (``/pipeline``, the
embedding pipeline of the semaphore wiki) with a configurable worker pool and
an optional semaphore on the heavy stage; every response returns per-stage
timings as JSON.  :class:`ServiceProcess` runs it as a separate process (to be
placed inside a run's cgroup) on 127.0.0.1.

Why threads + numpy: see :mod:`throttlelab.experiment.latency.service.work`.
"""

from throttlelab.experiment.latency.service.pipeline import STAGES, Pipeline, PipelineConfig
from throttlelab.experiment.latency.service.service_process import ServiceProcess

__all__ = ["STAGES", "Pipeline", "PipelineConfig", "ServiceProcess"]
