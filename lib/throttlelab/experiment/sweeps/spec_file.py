"""The blocks of a sweep spec as pydantic models: the backends and their options, adaptive settings, workload options."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, StrictBool, StrictFloat, StrictInt

from throttlelab.config_file import ConfigModel
from throttlelab.experiment.sweeps.kubernetes_options import KubernetesOptions
from throttlelab.stats import KNEE_TOLERANCE_PCT, PRIOR_CV

Number = StrictInt | StrictFloat


Share = Annotated[Number, Field(ge=0)]


def _ordered_range(value: list) -> list:
    if value[0] > value[1]:
        raise ValueError(f"a range [low, high] with low <= high, got {value!r}")
    return value


class DeadZoneTruth(ConfigModel):
    """``simulated.dead_zone``: limits in ``[from, to]`` (cores) run ``slowdown_pct`` slower."""

    from_: Number = Field(alias="from", description="first limit of the zone (cores)")
    to: Number = Field(description="last limit of the zone (cores)")
    slowdown_pct: Number = Field(description="how much slower runs in the zone are (%)")


class SimulatedOptions(ConfigModel):
    """The ``simulated:`` mapping of a sweep spec: the true curve and its noise (``backend: simulated``)."""

    cpu_seconds: Number = Field(4.0, gt=0, description="CPU work of one run (s)")
    parallelism: Number = Field(4.0, gt=0, description="cores the work can use at best (the knee)")
    knee_sharpness: Number = Field(4.0, gt=0, description="how sharply it saturates (large: a hard corner)")
    machine_cores: Number = Field(4.0, gt=0, description="the node; 'unlimited' runs get this many cores")
    auto_threads: StrictInt = Field(4, ge=1, description="what 'auto' means (Go before 1.25: the node's cores)")
    oversubscription_pct: Share = Field(0.0, description="extra time per thread beyond the limit, % (GOMAXPROCS > quota)")
    thread_overhead_pct: Share = Field(0.0, description="extra time per thread beyond the first, % (synchronisation)")
    dead_zone: DeadZoneTruth | None = Field(None, description="slower limits; null: none")
    contention_slowdown: Share = Field(0.5, description="at share 1 and full load the run takes (1 + this) longer")
    noise_cv: Share = Field(0.08, description="run-to-run noise: log-scale sd at 0 cores ...")
    noise_growth: Share = Field(0.25, description="... times (1 + noise_growth x cores of the limit)")
    tail_df: Number = Field(5.0, gt=0, description="Student-t degrees of freedom of that noise (heavy tails)")
    outlier_rate: Number = Field(0.03, ge=0, le=1, description="share of runs hit by an interference outlier ...")
    outlier_factor: Annotated[list[Annotated[Number, Field(ge=1)]], Field(min_length=2, max_length=2),
                              AfterValidator(_ordered_range)] = Field(
        [1.3, 2.5], description="... that multiplies their time by a factor in this range [low, high]")
    seed: StrictInt = Field(0, description="seed of the noise (a run's draw depends on it and its run id)")


#: The default run budget of an adaptive sweep, as a share of the full grid's runs: a cap; the
#: joint-confidence stop ends clear sweeps before it.
DEFAULT_BUDGET_SHARE = 0.8

Fraction = Annotated[Number, AfterValidator(float)]  # a number the design computes with as a float


class AdaptiveSettings(ConfigModel):
    """The adaptive design's settings: the ``adaptive:`` mapping of a sweep spec (every key optional)."""

    confidence: Annotated[Fraction, Field(gt=0.5, lt=1)] = Field(
        0.95, description="confidence every decision must reach together (between 0.5 and 1)")
    budget: StrictInt | None = Field(None, ge=1, description=f"runs at most; null: {DEFAULT_BUDGET_SHARE:.0%} of the full "
                                                             "grid's runs (a cap), at least one per cell")
    knee_tolerance_pct: Annotated[Fraction, Field(ge=0)] = Field(
        KNEE_TOLERANCE_PCT, description="the knee: smallest limit within this % of the best")
    dead_zone_threshold_pct: Annotated[Fraction, Field(ge=0)] = Field(
        10.0, description="slower than the best lower limit by this %: dead zone")
    resolution_pct: Annotated[Fraction, Field(ge=0)] = Field(
        10.0, description="differences below this % are ties (either answer counts)")
    min_replicates: StrictInt = Field(2, ge=1, description="runs per pivotal cell before a decision counts")
    max_replicates: StrictInt | None = Field(None, ge=1, description="runs per cell at most; null: 3 x replicates")
    prior_cv: Annotated[Fraction, Field(ge=0)] = Field(
        PRIOR_CV, description="run-to-run noise (CV) assumed before any is measured; the analysis assumes the same")
    outlier_prior: Annotated[Fraction, Field(ge=0)] = Field(
        0.05, description="chance that a lone run was slowed by interference (up to 3x)")
    draws: StrictInt = Field(2000, ge=100, description="posterior draws per decision")
    model: Literal["cells", "smooth"] = Field(
        "smooth", description="smooth: one model shared across the grid; cells: each cell on its own")


class LocalOptions(ConfigModel):
    """The ``local:`` mapping of a sweep spec (``backend: local``)."""

    parent_weight_tasks: Number | None = Field(
        None, gt=0, description="CPU weight of the sweep's parent cgroup, in tasks' worth (null: the machine's cores)")


#: The backends a sweep runs on, by name (the spec's ``backend``), each with the model of its block (the spec key of
#: the same name).  The one place that names them: the spec's choices derive from it, and
#: :data:`throttlelab.experiment.registry.FACTORIES` gives each block's model the factory of its backend.
BACKENDS: dict[str, type[ConfigModel]] = {"local": LocalOptions, "kubernetes": KubernetesOptions,
                                          "simulated": SimulatedOptions}


Positive = Annotated[Number, Field(gt=0)]


class FfmpegOptions(ConfigModel):
    """Options of ``workload: {kind: ffmpeg, ...}``: a synthetic clip encoded with libx264 (unset: the backend's default)."""

    duration: Positive | None = Field(None, description="seconds of testsrc2 video (local default 2, kubernetes 10)")
    rate: Positive | None = Field(None, description="frames per second of the clip (default 30)")
    size: Annotated[str, Field(pattern=r"^\d+x\d+$")] | None = Field(
        None, description="frame size WIDTHxHEIGHT (local default 640x360, kubernetes 1280x720)")
    preset: str | None = Field(None, description="x264 preset (default veryfast)")
    frames: StrictInt | None = Field(None, ge=1, description="local: encode this many frames instead of duration x rate")
    ffmpeg: str | None = Field(None, description="local: the ffmpeg binary (default: on PATH, else imageio-ffmpeg's)")


class BurnerOptions(ConfigModel):
    """Options of ``workload: {kind: burner, ...}``: busy loops, one per thread."""

    cpu_seconds: Positive | None = Field(None, description="local: CPU seconds of work per run (default 1.0)")
    iterations: StrictInt | None = Field(None, ge=1, description="kubernetes: sh loop iterations per thread "
                                                                 "(default 2,000,000)")


class GoOptions(ConfigModel):
    """Options of ``workload: {kind: go, ...}``: the Go spinner (GOMAXPROCS = threads)."""

    work: StrictInt | None = Field(None, ge=1, description="work units per run (default 300)")


class ServiceOptions(ConfigModel):
    """Options of ``workload: {kind: service, ...}``: the Go HTTP service under a load from this machine."""

    work: Share | None = Field(None, description="work units per request (default 30)")
    vus: Share | None = Field(None, description="closed loop: virtual users (default 16; 0: open loop only)")
    rate: Share | None = Field(None, description="open loop: requests/s (default 100; 0: closed loop only)")
    poisson: StrictBool | None = Field(None, description="open loop: random (Poisson) arrivals at that mean rate, "
                                       "as independent users make them (default false: evenly spaced, as k6's "
                                       "constant-arrival-rate)")
    warmup_s: Share | None = Field(None, description="warm-up before the measured window (s, default 1)")
    window_s: Positive | None = Field(None, description="measured window (s, default 5)")
    request_timeout_s: Positive | None = Field(None, description="a request not answered by then failed (s, default 2)")
    ready_timeout_s: Share | None = Field(None, description="wait this long for the service to listen (s, default 10)")


class CommandOptions(ConfigModel):
    """``workload: {kind: command, command: ...}`` takes no other option."""


#: Workload kind -> the model of its options (the keys besides ``kind`` and ``command``).
WORKLOAD_OPTIONS = {"ffmpeg": FfmpegOptions, "burner": BurnerOptions, "go": GoOptions, "service": ServiceOptions,
                    "command": CommandOptions}
