"""Thread advice from a container's runtime: how many threads it runs against the CPU limit it is given."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from throttlelab.core.quantities import format_cores, format_millicores

# The runtime metrics that say how many threads a runtime will run, and the labels that join them to a
# container: an application's own series carry namespace and pod (and container where the scrape adds it).
RUNTIME_METRICS = {
    "go": "go_sched_gomaxprocs_threads",  # client_golang >= 1.20 exports it by default
    "jvm": "system_cpu_count",  # Micrometer: Runtime.availableProcessors()
}

# Each runtime's rule under a CFS quota, for the method text (and for runtimes that export no such metric).
RULES = {
    "go": "Go 1.25+ sets GOMAXPROCS to min(usable CPUs, max(2, ceil(quota))) and follows changes, but only when "
          "GOMAXPROCS is unset and go.mod says go 1.25 or later; automaxprocs sets floor(quota), at least 1, once at "
          "start; older Go uses the host's CPU count.",
    "jvm": "The JVM's availableProcessors() rounds the quota up (ceil); -XX:ActiveProcessorCount overrides it.",
    "dotnet": ".NET's Environment.ProcessorCount rounds the quota up; DOTNET_PROCESSOR_COUNT overrides it.",
    "node": "Node.js runs one JavaScript thread; its libuv pool is 4 threads whatever the quota (UV_THREADPOOL_SIZE).",
    "llama.cpp": "llama.cpp and ollama default to one thread per host core; under a smaller quota their lockstep "
                 "threads convoy against throttling and throughput collapses: set --threads (num_thread) to the quota.",
    "container_threads": "cAdvisor's container_threads counts every OS thread (a JVM has dozens): reported, never "
                         "advised from on its own.",
}
OVERRIDE = {"go": "GOMAXPROCS", "jvm": "-XX:ActiveProcessorCount"}


@dataclass(frozen=True)
class RuntimeAdvice:
    """What a container's runtime metric says about its threads under a CPU limit.

    Attributes
    ----------
    runtime : str
        ``go`` or ``jvm``.
    threads_seen : int
        Threads the runtime reports it will run (GOMAXPROCS, availableProcessors).
    limit_cores : float or None
        The CPU limit the advice is for (``None``: no limit, so no quota to match).
    rule : str
        The runtime's rule under a quota, in one sentence.
    advised_threads : int or None
        Threads to run under that limit (``None``: nothing to change).
    action : str
        ``set threads``, ``whole-core limit`` or ``none``.
    reason : str
        The advice in plain words.
    """

    runtime: str
    threads_seen: int
    limit_cores: float | None
    rule: str
    advised_threads: int | None
    action: str
    reason: str

    def to_dict(self) -> dict:
        """The advice as the JSON field ``runtime_advice``."""
        return asdict(self)


def quota_threads(limit_cores: float) -> int:
    """Threads a quota feeds in every period: ``floor(limit)``, at least 1 (the automaxprocs rule).

    Examples
    --------
    >>> quota_threads(2.0), quota_threads(2.5), quota_threads(0.25)
    (2, 2, 1)
    """
    return max(1, math.floor(limit_cores + 1e-9))


def ceil_threads(limit_cores: float, *, runtime: str = "jvm", usable_cpus: int | None = None) -> int:
    """Threads a ceil-rounding runtime runs under ``limit_cores`` (Go 1.25: at least 2; JVM/.NET: at least 1).

    Examples
    --------
    >>> ceil_threads(2.1, runtime="go"), ceil_threads(0.5, runtime="go"), ceil_threads(2.1, runtime="jvm")
    (3, 2, 3)
    """
    n = math.ceil(limit_cores - 1e-9)
    n = max(2, n) if runtime == "go" else max(1, n)
    return min(n, usable_cpus) if usable_cpus else n


def _limit_size(cores: float) -> str:
    """A limit as the adjective before "limit": ``2-core``, ``1.5-core``, ``500m``."""
    return format_cores(cores, suffix="-core") if cores >= 1 else format_millicores(cores)


def runtime_advice(runtime: str, threads_seen: float, limit_cores: float | None) -> RuntimeAdvice:
    """Compare the threads a runtime runs with the CPU limit it gets, and say what to do.

    More threads than the quota feeds means every period's quota is spent early by all threads at once and the
    container is throttled for the rest of the period (GOMAXPROCS 24 under a 2-core quota lost 50% of its
    throughput in the automaxprocs table). A fractional limit rounded up by the runtime (2.1 cores gives Go 1.25
    three Ps) has the same effect on a smaller scale: a whole-core limit avoids it.

    Examples
    --------
    >>> runtime_advice("go", 8, 2.0).reason
    'GOMAXPROCS is 8 under a 2-core limit: set GOMAXPROCS=2 (or use Go 1.25+ / automaxprocs) before raising the limit.'
    >>> runtime_advice("go", 3, 2.1).action
    'whole-core limit'
    >>> runtime_advice("jvm", 2, 2.0).action
    'none'
    """
    if runtime not in RUNTIME_METRICS:
        raise ValueError(f"runtime {runtime!r}: expected one of {', '.join(RUNTIME_METRICS)}")
    seen = int(round(threads_seen))
    rule = RULES[runtime]
    name = OVERRIDE[runtime]
    if limit_cores is None:
        return RuntimeAdvice(runtime, seen, None, rule, None, "none",
                             f"{name} is {seen} and the container has no CPU limit: nothing to match.")
    fed = quota_threads(limit_cores)
    whole = abs(limit_cores - round(limit_cores)) < 1e-9
    if seen > math.ceil(limit_cores - 1e-9):
        hint = " (or use Go 1.25+ / automaxprocs)" if runtime == "go" else ""
        noun = "GOMAXPROCS" if runtime == "go" else "availableProcessors"
        return RuntimeAdvice(runtime, seen, limit_cores, rule, fed, "set threads",
                             f"{noun} is {seen} under a {_limit_size(limit_cores)} limit: set {name}={fed}{hint} "
                             f"before raising the limit.")
    if not whole and seen > fed:
        up = math.ceil(limit_cores)
        size = format_cores(limit_cores, suffix="-core")  # above one core: a fraction below one feeds every thread
        return RuntimeAdvice(runtime, seen, limit_cores, rule, fed, "whole-core limit",
                             f"{name} is {seen} under a fractional {size} limit, which feeds {fed}: "
                             f"use a whole-core limit ({fed} or {up} cores) or set {name}={fed}.")
    return RuntimeAdvice(runtime, seen, limit_cores, rule, None, "none",
                         f"{name} is {seen} under a {_limit_size(limit_cores)} limit: the quota feeds every thread.")
