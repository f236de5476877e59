"""Latency sweep definitions: one point (:class:`LatencyPoint`) and a grid of them (:class:`LatencySweep`).

A sweep (from a YAML/JSON mapping, :meth:`LatencySweep.from_mapping`) is the
product of loads x contention shares x service configurations x replicates;
:mod:`.latency_runner` runs its points.
"""

from __future__ import annotations

import itertools
import typing
from dataclasses import dataclass, fields, replace
from typing import Any

from pydantic import Field, create_model

from throttlelab.config_file import ConfigModel, KeyLines, config_error, validate
from throttlelab.errors import SpecError
from throttlelab.experiment.local_cgroup.loadgen import ClosedLoop, OpenLoop
from throttlelab.experiment.latency.service import PipelineConfig

ENDPOINTS = ("cpu", "pipeline")
MODES = ("open", "closed")


@dataclass(frozen=True)
class LatencyPoint:
    """One latency run.  ``load`` is requests/s (open loop) or virtual users (closed loop)."""

    experiment: str
    endpoint: str = "cpu"
    mode: str = "open"
    load: float = 5.0
    contention: float = 0.0
    neighbour_workers: int = 2
    max_workers: int = 8
    semaphore: int | None = None
    seconds: float = 3.0
    warmup_seconds: float = 0.5
    settle_seconds: float = 0.3
    replicate: int = 0
    cpu_limit_cores: float | None = None
    cpu_elements: int = 3_000_000
    heavy_elements: int = PipelineConfig.heavy_elements
    light_elements: int = PipelineConfig.light_elements
    score_elements: int = PipelineConfig.score_elements
    timeout_seconds: float = 30.0
    max_requests: int = 10_000

    def __post_init__(self) -> None:
        if self.endpoint not in ENDPOINTS:
            raise SpecError(f"endpoint must be one of {', '.join(ENDPOINTS)}, got {self.endpoint!r}")
        if self.mode not in MODES:
            raise SpecError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if not 0 <= self.contention < 1:
            raise SpecError(f"contention must be a share in [0, 1), got {self.contention}")
        if self.load <= 0 or self.seconds <= 0:
            raise SpecError("load and seconds must be > 0")

    @property
    def config(self) -> str:
        """``workers=8,semaphore=none`` (same labels as the published semaphore data)."""
        return f"workers={self.max_workers},semaphore={self.semaphore or 'none'}"

    @property
    def run_id(self) -> str:
        sem = self.semaphore or 0
        return (f"{self.endpoint}-{self.mode}{self.load:g}-c{round(self.contention * 100):02d}"
                f"n{self.neighbour_workers}-w{self.max_workers}-s{sem}-r{self.replicate}")

    @property
    def path(self) -> str:
        return f"/cpu?n={self.cpu_elements}" if self.endpoint == "cpu" else "/pipeline"

    def pattern(self, seconds: float | None = None) -> OpenLoop | ClosedLoop:
        s = self.seconds if seconds is None else seconds
        if self.mode == "open":
            return OpenLoop(rate=self.load, duration_seconds=s, max_requests=self.max_requests)
        return ClosedLoop(vus=int(self.load), duration_seconds=s, max_requests=self.max_requests)

    def pipeline_config(self) -> PipelineConfig:
        return PipelineConfig(self.max_workers, self.semaphore, self.heavy_elements, self.light_elements,
                              self.score_elements)


@dataclass(frozen=True)
class LatencySweep:
    """A grid of latency points (see :meth:`from_mapping` for the keys)."""

    base: LatencyPoint
    loads: tuple[float, ...]
    contention: tuple[float, ...] = (0.0,)
    configs: tuple[dict, ...] = ({},)
    replicates: int = 1

    @classmethod
    def from_mapping(cls, doc: dict[str, Any], *, source: str = "sweep", lines: KeyLines | None = None) -> LatencySweep:
        """Build from a mapping validated by :data:`LatencySweepFile`: any :class:`LatencyPoint`
        field as a fixed value, plus ``loads`` (list), ``contention`` (list of shares 0-1),
        ``configs`` (list of mappings of point fields, e.g. ``{max_workers: 8, semaphore: 4}``),
        ``replicates``."""
        model = validate(LatencySweepFile, doc, source=source, lines=lines)
        given = model.model_dump(exclude_unset=True)
        loads = given.pop("loads", None)
        if loads is None and "load" in given:
            loads = [given.pop("load")]
        given.pop("load", None)
        contention = given.pop("contention", [0.0])
        configs = [c.model_dump(exclude_unset=True) for c in model.configs] or [{}]
        given.pop("configs", None)
        replicates = given.pop("replicates", 1)
        if not loads:
            raise config_error(source, lines, ("loads",), "must list at least one load")
        base = LatencyPoint(**given)
        as_list = (lambda v: list(v) if isinstance(v, (list, tuple)) else [v])
        return cls(base, tuple(float(v) for v in as_list(loads)), tuple(float(v) for v in as_list(contention)),
                   tuple(configs), replicates)

    def points(self) -> list[LatencyPoint]:
        """Every point; replicates outermost so a partial sweep covers the whole grid once."""
        return [replace(self.base, load=ld, contention=c, replicate=r, **cfg)
                for r, cfg, ld, c in itertools.product(range(self.replicates), self.configs, self.loads, self.contention)]



def _point_fields(*, required: bool) -> dict[str, Any]:
    hints = typing.get_type_hints(LatencyPoint)
    out: dict[str, Any] = {}
    for f in fields(LatencyPoint):
        if f.name == "replicate":
            continue
        default = ... if (required and f.name == "experiment") else (f.default if required else None)
        out[f.name] = (hints[f.name] if required else hints[f.name] | None, Field(default))
    return out


LatencyConfig = create_model("LatencyConfig", __base__=ConfigModel, __doc__="One service configuration of a latency "
                             "sweep: point fields that differ between configurations.", **_point_fields(required=False))
LatencySweepFile = create_model(
    "LatencySweepFile", __base__=ConfigModel,
    __doc__="A latency sweep (the `live_sweep` parameter of notebooks 05 and 06): point fields plus the grid.",
    loads=(list[float] | float | None, Field(None, description="requests/s (open loop) or virtual users (closed)")),
    configs=(list[LatencyConfig], Field(default_factory=list, description="service configurations to compare")),
    replicates=(int, Field(1, ge=1, description="runs per point")),
    **{**_point_fields(required=True),
       "contention": (list[float] | float, Field(0.0, description="noisy-neighbour shares, 0-1"))})
"""The keys of a latency sweep: every :class:`LatencyPoint` field, plus ``loads``, ``configs``, ``replicates``."""
