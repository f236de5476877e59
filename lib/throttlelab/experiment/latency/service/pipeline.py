"""The multi-stage pipeline of the target service.

A request runs one heavy stage (``embedding``), then three light stages in
parallel (``categories``, ``duplicates``, ``quality``), then a last light one
(``score``) -- the shape of the pipeline in the semaphore wiki (seed 002).  Every
stage is a task in one shared worker pool of ``max_workers`` threads (the
FastAPI thread pool); the CPU work releases the GIL (see :mod:`.work`), so the
workers really compete for the cores.

The optional semaphore limits how many *embedding* stages are in the pool at
once.  It is acquired by the request's own thread *before* the stage is
submitted (like ``async with sem: await run_in_executor(...)``), so embeddings
waiting for the semaphore do not occupy pool workers and the light stages of
other requests find free workers.

Each stage's ``seconds`` runs from the moment the request asks for the stage
(semaphore wait included) to its result, as the wiki's service measured it;
``wait_seconds`` is the part before a worker started it (semaphore + pool queue).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from throttlelab.experiment.latency.service.work import burn

HEAVY_STAGE = "embedding"
PARALLEL_STAGES = ("categories", "duplicates", "quality")
LAST_STAGE = "score"
STAGES = (HEAVY_STAGE, *PARALLEL_STAGES, LAST_STAGE)


@dataclass(frozen=True)
class PipelineConfig:
    """Work sizes and concurrency of the pipeline.

    Parameters
    ----------
    max_workers
        Threads in the shared stage pool (``max_workers`` of the wiki).
    semaphore
        Maximum concurrent embedding stages; ``None`` = no semaphore.
    heavy_elements
        Work of the embedding stage (element evaluations, see :func:`.work.burn`).
    light_elements
        Work of each of categories, duplicates and quality.
    score_elements
        Work of the score stage.
    """

    max_workers: int = 8
    semaphore: int | None = None
    heavy_elements: int = 6_000_000
    light_elements: int = 400_000
    score_elements: int = 200_000

    def __post_init__(self) -> None:
        if self.max_workers < 1:
            raise ValueError("max_workers must be >= 1")
        if self.semaphore is not None and self.semaphore < 1:
            raise ValueError("semaphore must be >= 1 or None")

    def work_of(self, stage: str) -> int:
        if stage == HEAVY_STAGE:
            return self.heavy_elements
        if stage == LAST_STAGE:
            return self.score_elements
        return self.light_elements


@dataclass
class Pipeline:
    """A running pipeline: the worker pool and the semaphore (thread-safe)."""

    config: PipelineConfig
    _pool: ThreadPoolExecutor = field(init=False, repr=False)
    _sem: threading.BoundedSemaphore | None = field(init=False, repr=False)
    #: Embedding stages running now, and the most ever seen at once (checks the semaphore).
    heavy_running: int = field(default=0, init=False)
    heavy_peak: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self._pool = ThreadPoolExecutor(self.config.max_workers, thread_name_prefix="stage")
        self._sem = threading.BoundedSemaphore(self.config.semaphore) if self.config.semaphore else None
        self._lock = threading.Lock()

    @staticmethod
    def _run(elements: int) -> tuple[float, float]:
        start = time.perf_counter()
        burn(elements)
        return start, time.perf_counter()

    def _run_heavy(self, elements: int) -> tuple[float, float]:
        with self._lock:
            self.heavy_running += 1
            self.heavy_peak = max(self.heavy_peak, self.heavy_running)
        try:
            return self._run(elements)
        finally:
            with self._lock:
                self.heavy_running -= 1

    def _timing(self, asked: float, started: float, ended: float) -> dict[str, float]:
        return {"seconds": ended - asked, "wait_seconds": started - asked, "run_seconds": ended - started}

    def run(self, overrides: dict[str, int] | None = None) -> dict[str, dict[str, float]]:
        """Run one request through every stage; return per-stage timings.

        ``overrides`` maps a stage name to its work (element evaluations).
        The result maps stage -> ``{"seconds", "wait_seconds", "run_seconds"}``
        plus ``"total"`` -> ``{"seconds"}``.
        """
        work = {s: self.config.work_of(s) for s in STAGES} | dict(overrides or {})
        out: dict[str, dict[str, float]] = {}
        t0 = time.perf_counter()
        if self._sem is not None:
            self._sem.acquire()
        try:
            started, ended = self._pool.submit(self._run_heavy, work[HEAVY_STAGE]).result()
        finally:
            if self._sem is not None:
                self._sem.release()
        out[HEAVY_STAGE] = self._timing(t0, started, ended)
        t1 = time.perf_counter()
        futures = {s: self._pool.submit(self._run, work[s]) for s in PARALLEL_STAGES}
        for stage, fut in futures.items():
            out[stage] = self._timing(t1, *fut.result())
        t2 = time.perf_counter()
        out[LAST_STAGE] = self._timing(t2, *self._pool.submit(self._run, work[LAST_STAGE]).result())
        out["total"] = {"seconds": time.perf_counter() - t0}
        return out

    def close(self) -> None:
        """Stop the pool, cancelling stages that have not started."""
        self._pool.shutdown(wait=True, cancel_futures=True)
