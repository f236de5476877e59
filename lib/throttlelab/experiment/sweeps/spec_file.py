"""The keys of a sweep spec file, as a pydantic model (the single source of what a spec may say)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictFloat, StrictInt

from throttlelab.config_file import ConfigModel, SimpleName

Number = StrictInt | StrictFloat
Cores = Number | str | None


class SweepSpecFile(ConfigModel):
    """A sweep spec (``studies/sweeps/*.yaml``): what a CPU-limit x thread-count sweep runs."""

    name: SimpleName | None = Field(None, description="experiment name: data go to <data_root>/<name>/ (required)")
    experiment: SimpleName | None = Field(None, description="older spelling of `name`")
    description: str = Field("", description="free text")
    backend: Literal["local", "kubernetes", "simulated"] = Field(
        "local", description="where runs execute (simulated: drawn from a ground-truth curve with realistic noise)")
    local: dict[str, Any] | None = Field(None, description="local backend options (parent_weight_tasks)")
    kubernetes: dict[str, Any] | None = Field(None, description="Kubernetes backend options (see `KubernetesOptions`)")
    simulated: dict[str, Any] | None = Field(None, description="simulated backend: the true curve and its noise")
    design: Literal["grid", "adaptive"] = Field(
        "grid", description="grid: every cell x replicates; adaptive: runs chosen where decisions are uncertain")
    adaptive: dict[str, Any] | None = Field(
        None, description="adaptive design settings (confidence, budget, knee_tolerance_pct, ...)")
    workload: str | dict[str, Any] = Field(
        "burner", description="ffmpeg / burner / go / command, or a mapping with `kind`, `command` and options")
    limits: list[Cores] | Cores | dict[str, Number] = Field(
        None, description="CPU limits: 0.5, '1500m', 'unlimited', or {from, to, step}")
    threads: list[StrictInt | str] | StrictInt | str = Field("auto", description="thread counts: integers or 'auto'")
    replicates: StrictInt = Field(1, ge=1, description="measured runs per cell")
    warmup: StrictInt = Field(0, ge=0, description="warm-up runs (recorded, not analysed)")
    cooldown_s: Number = Field(0.0, ge=0, description="pause between runs (s)")
    order: Literal["random", "sequential"] = Field("random", description="run order (random: blocked by replicate)")
    seed: StrictInt = Field(0, description="seed of the random order")
    timeout_s: Number = Field(600.0, gt=0, description="per-run timeout (s)")
    period_us: StrictInt = Field(100_000, ge=1000, le=1_000_000, description="CFS period (us)")
    burst_us: StrictInt | None = Field(None, ge=0, description="CFS burst (us); null: none")
    sampling_interval_s: Number = Field(1.0, ge=0.1, description="monitor sampler interval (s)")
    contention: list[Number | dict[str, Any]] | Number = Field(
        0, description="noisy-neighbour levels: shares 0-1, or {share, workers}")
    data_root: str = Field("data/raw", description="where run stores live (relative: to the project root)")
