"""The sweep spec: one pydantic model whose fields are a spec file's keys, holding their values as the sweep uses them.

:class:`SweepSpec` is the one type of a spec.  Its fields' types are what the file may say (the
reference in ``docs/configuration.md`` is generated from them); its validators read each value into
the form the sweep uses (``limits`` a tuple of cores, ``workload`` a
:class:`~throttlelab.experiment.sweeps.plan.Workload`, ...; the parsers are in
:mod:`~throttlelab.experiment.sweeps.spec_values`, the nested blocks in
:mod:`~throttlelab.experiment.sweeps.spec_file`).  Specs are read by
:mod:`~throttlelab.experiment.sweeps.spec_loading` (YAML, mappings, overrides).  :meth:`SweepSpec.plan`
expands the grid into :class:`~throttlelab.experiment.sweeps.plan.RunPlan` objects with deterministic
run ids, so re-running a spec resumes where it stopped; with ``design: adaptive`` the runs are chosen
one at a time where a decision is still uncertain (:mod:`~throttlelab.experiment.sweeps.adaptive.adaptive`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, PrivateAttr, StrictInt, model_validator

from throttlelab.config_file import ConfigModel, KeyLines, SimpleName, ValueAt
from throttlelab.experiment.sweeps.kubernetes_options import KubernetesOptions
from throttlelab.experiment.sweeps.plan import Contention, RunPlan, Workload, make_run_id, run_order
from throttlelab.experiment.sweeps.spec_file import BACKENDS, AdaptiveSettings, LocalOptions, Number, SimulatedOptions
from throttlelab.experiment.sweeps.spec_values import (as_float, as_path, name_given, parse_adaptive, parse_contention,
                                                       parse_limits, parse_threads, parse_workload)

Cores = Number | str | None
#: What defines a spec's meaning (its equality); the file's other keys (``experiment``, ``description``) do not.
VALUES = ("name", "backend", "backend_options", "workload", "limits", "threads", "replicates", "warmup", "cooldown_s",
          "order", "seed", "timeout_s", "period_us", "burst_us", "sampling_interval_s", "contention", "data_root",
          "design", "adaptive")


class SweepSpec(ConfigModel):
    """A sweep spec (``studies/sweeps/*.yaml``): what a CPU-limit x thread-count sweep runs.

    Build one with :func:`~throttlelab.experiment.sweeps.spec_loading.load_spec` (YAML file),
    :func:`~throttlelab.experiment.sweeps.spec_loading.spec_from_mapping` or
    :func:`~throttlelab.experiment.sweeps.spec_loading.spec_from`.  Each field is a key of the file; after
    validation it holds the value in the form the sweep uses: ``name`` a text, ``workload`` a
    :class:`~throttlelab.experiment.sweeps.plan.Workload`, ``limits`` a tuple of cores (``None``: unlimited),
    ``threads`` a tuple of texts, ``contention`` a tuple of :class:`~throttlelab.experiment.sweeps.plan.Contention`,
    ``adaptive`` the :class:`~throttlelab.experiment.sweeps.spec_file.AdaptiveSettings` (the defaults without the
    key), times floats, ``data_root`` a path.  :attr:`backend_options` is the chosen backend's block as written.
    """

    name: SimpleName | None = Field(None, description="experiment name: data go to <data_root>/<name>/ (required)")
    experiment: Annotated[SimpleName | None, AfterValidator(name_given)] = Field(
        None, validate_default=True, description="older spelling of `name`")
    description: str = Field("", description="free text")
    backend: Literal[tuple(BACKENDS)] = Field(  # type: ignore[valid-type]
        "local", description="where runs execute (simulated: drawn from a ground-truth curve with realistic noise)")
    local: LocalOptions | None = Field(None, description="local backend options")
    kubernetes: KubernetesOptions | None = Field(None, description="Kubernetes backend options")
    simulated: SimulatedOptions | None = Field(None, description="simulated backend: the true curve and its noise")
    design: Literal["grid", "adaptive"] = Field(
        "grid", description="grid: every cell x replicates; adaptive: runs chosen where decisions are uncertain")
    adaptive: Annotated[AdaptiveSettings | None, AfterValidator(parse_adaptive)] = Field(
        None, validate_default=True, description="adaptive design settings")
    workload: Annotated[str | dict[str, Any], AfterValidator(parse_workload)] = Field(
        "burner", validate_default=True,
        description="ffmpeg / burner / go / service / command, or a mapping with `kind`, `command` and that "
                    "kind's options (`FfmpegOptions`, `BurnerOptions`, `GoOptions`, `ServiceOptions`)")
    limits: Annotated[list[Cores] | Cores | dict[str, Number], AfterValidator(parse_limits)] = Field(
        None, validate_default=True, description="CPU limits: 0.5, '1500m', 'unlimited', or {from, to, step}")
    threads: Annotated[list[StrictInt | str] | StrictInt | str, AfterValidator(parse_threads)] = Field(
        "auto", validate_default=True, description="thread counts: integers or 'auto'")
    replicates: StrictInt = Field(1, ge=1, description="measured runs per cell")
    warmup: StrictInt = Field(0, ge=0, description="warm-up runs (recorded, not analysed)")
    cooldown_s: Annotated[Number, AfterValidator(as_float)] = Field(0.0, ge=0, description="pause between runs (s)")
    order: Literal["random", "sequential"] = Field("random", description="run order (random: blocked by replicate)")
    seed: StrictInt = Field(0, description="seed of the random order")
    timeout_s: Annotated[Number, AfterValidator(as_float)] = Field(600.0, gt=0, description="per-run timeout (s)")
    period_us: StrictInt = Field(100_000, ge=1000, le=1_000_000, description="CFS period (us)")
    burst_us: StrictInt | None = Field(None, ge=0, description="CFS burst (us); null: none")
    sampling_interval_s: Annotated[Number, AfterValidator(as_float)] = Field(
        1.0, ge=0.1, description="monitor sampler interval (s)")
    contention: Annotated[list[Number | dict[str, Any]] | Number, AfterValidator(parse_contention)] = Field(
        0, validate_default=True, description="noisy-neighbour levels: shares 0-1, or {share, workers}")
    data_root: Annotated[str, AfterValidator(as_path)] = Field(
        "data/raw", validate_default=True, description="where run stores live (relative: to the project root)")

    _source: Path | None = PrivateAttr(None)
    _lines: KeyLines | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _whole(self) -> SweepSpec:
        if self.name is None:  # written as ``experiment:``
            self.__dict__["name"] = self.experiment
        cells = len(self.limits) * len(self.threads) * len(self.contention)
        if self.design == "adaptive" and self.adaptive.budget is not None and self.adaptive.budget < cells:
            raise ValueAt(("adaptive", "budget"), f"must be at least the number of cells ({cells}): the initial "
                                                  "design runs every cell once", absolute=True)
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SweepSpec):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in VALUES)

    __hash__ = None  # type: ignore[assignment]  # (its workload options and backend block are mappings)

    @property
    def source(self) -> Path | None:
        """The file the spec was read from (``None``: built from a mapping)."""
        return self._source

    @property
    def source_lines(self) -> KeyLines | None:
        """The line of each key in :attr:`source` (or where an overridden value came from)."""
        return self._lines

    @property
    def backend_options(self) -> dict[str, Any]:
        """The chosen backend's block (``local:``, ``kubernetes:`` or ``simulated:``) with the keys written."""
        opts = getattr(self, self.backend)
        return dict(opts.model_dump(exclude_unset=True, by_alias=True)) if opts else {}

    @property
    def experiment_dir(self) -> Path:
        """``<data_root>/<name>``: where the run store keeps this experiment."""
        return Path(self.data_root) / self.name

    def replace(self, **changes: Any) -> SweepSpec:
        """A copy with some values changed, given in their parsed form (e.g. ``data_root=Path(...)``); keeps the
        source and its lines."""
        unknown = set(changes) - set(type(self).model_fields)
        if unknown:
            raise TypeError(f"SweepSpec has no field(s) {', '.join(sorted(unknown))}")
        return self.model_copy(update=changes)

    def config_hash(self) -> str:
        """Six hex digits identifying what defines a measurement (workload, period, burst; the
        ground truth and noise of the ``simulated`` backend).

        Part of every run id: changing the workload options (or the simulated
        truth) under the same experiment name gives new run ids instead of
        silently mixing results; simulated runs draw their noise from the run
        id, so two truths never share their draws either.
        """
        key = {"w": dataclasses.asdict(self.workload), "p": self.period_us, "b": self.burst_us,
               "backend": self.backend}
        if self.backend == "simulated" and self.backend_options:
            key["truth"] = self.backend_options
        return hashlib.sha1(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:6]

    def plan(self) -> list[RunPlan]:
        """Expand the grid into runs, in execution order.

        Warm-ups first, then one (shuffled, with ``order: random``) block per
        replicate; deterministic for a given spec.  See
        :func:`~throttlelab.experiment.sweeps.plan.run_order`.
        """
        grid = [(lim, thr, con) for con in self.contention for lim in self.limits for thr in self.threads]
        runs = run_order(grid, replicates=self.replicates, warmup=self.warmup, order=self.order, seed=self.seed)
        h = self.config_hash()
        return [self.run_plan(lim, thr, con, rep, warmup=warm, order=i, config_hash=h)
                for i, (lim, thr, con, rep, warm) in enumerate(runs)]

    def run_plan(self, limit: float | None, threads: str, contention: Contention, replicate: int, *,
                 warmup: bool = False, order: int = 0, config_hash: str | None = None) -> RunPlan:
        """One run of this spec: the grid's runs and those the adaptive design chooses are made alike
        (``config_hash``: :meth:`config_hash`, when the caller has it)."""
        h = config_hash or self.config_hash()
        return RunPlan(experiment=self.name, run_id=make_run_id(limit, threads, contention, replicate, warmup, h),
                       order=order, limit_cores=limit, threads=threads, contention=contention, replicate=replicate,
                       warmup=warmup, period_us=self.period_us, burst_us=self.burst_us, workload=self.workload,
                       timeout_s=self.timeout_s, sampling_interval_s=self.sampling_interval_s,
                       backend_options=self.backend_options)

    def to_mapping(self) -> dict[str, Any]:
        """The spec as a YAML-ready mapping (``spec_from_mapping`` reads it back; a run store keeps it as ``spec.yaml``)."""
        out: dict[str, Any] = {
            "name": self.name,
            "backend": self.backend,
            self.backend: dict(self.backend_options),
            "workload": {"kind": self.workload.kind, **({"command": self.workload.command} if self.workload.command else {}),
                         **self.workload.options},
            "limits": ["unlimited" if v is None else v for v in self.limits],
            "threads": [t if t == "auto" else int(t) for t in self.threads],
            **{k: getattr(self, k) for k in ("replicates", "warmup", "cooldown_s", "order", "seed", "timeout_s",
                                             "period_us", "burst_us", "sampling_interval_s")},
            "contention": [{"share": c.share, "workers": c.workers} for c in self.contention],
            "data_root": str(self.data_root),
        }
        if self.design != "grid":
            out["design"] = self.design
            out["adaptive"] = self.adaptive.model_dump()
        return out
