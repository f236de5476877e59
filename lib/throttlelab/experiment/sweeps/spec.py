"""Sweep specs: what a sweep runs, read from YAML (or a mapping) and validated.

A spec is a small YAML file (see ``studies/local_sweep.yaml``)::

    name: ffmpeg_local            # experiment name: data goes to <data_root>/<name>/
    backend: local                # local | kubernetes
    local: {}                     # backend-specific mapping, passed through uninterpreted
    workload:
      kind: ffmpeg                # ffmpeg | burner | go | command
      duration: 2                 # workload options (see throttlelab.experiment.local_cgroup.workloads)
    limits: [0.25, 500m, 1, 2, unlimited]
    threads: [1, 2, 4, auto]
    replicates: 3
    warmup: 1                     # warm-up runs: recorded, marked, not analysed
    cooldown_s: 1                 # pause between runs
    order: random                 # random (blocked by replicate) | sequential
    seed: 0
    timeout_s: 120                # per run
    period_us: 100000
    burst_us: null
    sampling_interval_s: 1.0      # monitor sampler interval, >= 0.1
    contention:                   # noisy-neighbour levels (share of the machine's CPUs)
      - {share: 0, workers: 0}
      - {share: 0.5, workers: 2}
    data_root: data/raw
    design: grid                  # grid (every cell x replicates) | adaptive
    adaptive:                     # with design: adaptive (all optional)
      confidence: 0.95            # stop when all decisions are right together with this probability ...
      budget: null                # ... or after this many runs (default: 80% of the grid's runs)
      knee_tolerance_pct: 10      # knee: smallest limit within this % of the best
      dead_zone_threshold_pct: 10 # dead zone: this % slower than a smaller limit
      resolution_pct: 10          # differences below this are ties

With ``design: adaptive`` the runs are chosen one at a time where a decision
is still uncertain (:mod:`~throttlelab.experiment.sweeps.adaptive.adaptive`).

:func:`load_spec` reads and validates a file against
:class:`~throttlelab.experiment.sweeps.spec_file.SweepSpecFile` (every problem is a
:class:`~throttlelab.errors.SpecError` naming the file, the line and the key; the values'
parsers are in :mod:`~throttlelab.experiment.sweeps.spec_values`);
:meth:`SweepSpec.plan` expands the grid into
:class:`~throttlelab.experiment.sweeps.plan.RunPlan` objects with deterministic run
ids (:mod:`~throttlelab.experiment.sweeps.plan`), so re-running a spec resumes where
it stopped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from throttlelab.config_file import KeyLines, config_error, read_yaml, validate
from throttlelab.errors import SpecError
from throttlelab.experiment.sweeps.adaptive import AdaptiveSettings
from throttlelab.experiment.sweeps.plan import Contention, RunPlan, Workload, plan_runs
from throttlelab.experiment.sweeps.spec_file import WORKLOAD_OPTIONS, SweepSpecFile
from throttlelab.experiment.sweeps.spec_values import (
    parse_adaptive,
    parse_contention,
    parse_limits,
    parse_threads,
    parse_workload,
)


@dataclass(frozen=True)
class SweepSpec:
    """A CPU-limit x thread-count x contention sweep (see the module docstring).

    Build one with :func:`load_spec` (YAML file) or :func:`spec_from_mapping`.
    """

    name: str
    backend: str = "local"
    backend_options: dict[str, Any] = field(default_factory=dict)
    workload: Workload = field(default_factory=lambda: Workload("burner"))
    limits: tuple[float | None, ...] = (None,)
    threads: tuple[str, ...] = ("auto",)
    replicates: int = 1
    warmup: int = 0
    cooldown_s: float = 0.0
    order: str = "random"
    seed: int = 0
    timeout_s: float = 600.0
    period_us: int = 100_000
    burst_us: int | None = None
    sampling_interval_s: float = 1.0
    contention: tuple[Contention, ...] = (Contention(),)
    data_root: Path = Path("data/raw")
    design: str = "grid"
    adaptive: AdaptiveSettings = field(default_factory=AdaptiveSettings)
    source: Path | None = field(default=None, compare=False)
    source_lines: dict | None = field(default=None, compare=False, repr=False)

    @property
    def experiment_dir(self) -> Path:
        """``<data_root>/<name>``: where the run store keeps this experiment."""
        return Path(self.data_root) / self.name

    def replace(self, **changes: Any) -> SweepSpec:
        """A copy with some fields changed (e.g. ``data_root``)."""
        return dataclasses.replace(self, **changes)

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
        :func:`~throttlelab.experiment.sweeps.plan.plan_runs`.
        """
        return plan_runs(self)

    def to_mapping(self) -> dict[str, Any]:
        """The spec as a YAML-ready mapping (``spec_from_mapping`` reads it back)."""
        out: dict[str, Any] = {
            "name": self.name,
            "backend": self.backend,
            self.backend: dict(self.backend_options),
            "workload": {"kind": self.workload.kind, **({"command": self.workload.command} if self.workload.command else {}),
                         **self.workload.options},
            "limits": ["unlimited" if v is None else v for v in self.limits],
            "threads": [t if t == "auto" else int(t) for t in self.threads],
            "replicates": self.replicates,
            "warmup": self.warmup,
            "cooldown_s": self.cooldown_s,
            "order": self.order,
            "seed": self.seed,
            "timeout_s": self.timeout_s,
            "period_us": self.period_us,
            "burst_us": self.burst_us,
            "sampling_interval_s": self.sampling_interval_s,
            "contention": [{"share": c.share, "workers": c.workers} for c in self.contention],
            "data_root": str(self.data_root),
        }
        if self.design != "grid":
            out["design"] = self.design
            out["adaptive"] = dataclasses.asdict(self.adaptive)
        return out


def load_spec(path: str | Path, *, data_root: str | Path | None = None) -> SweepSpec:
    """Read a sweep spec from YAML.

    Parameters
    ----------
    path
        The YAML file.
    data_root
        Overrides the spec's ``data_root``.  A relative ``data_root`` in the file
        is resolved against the project root (the nearest folder above the file
        holding ``pyproject.toml``), else against the file's folder.

    Raises
    ------
    SpecError
        Naming the file, the line and the offending key.
    """
    path = Path(path)
    doc, lines = read_yaml(path)
    spec = spec_from_mapping(doc, source=path, lines=lines)
    if data_root is not None:
        return spec.replace(data_root=Path(data_root))
    if not spec.data_root.is_absolute():
        base = _project_root(path.resolve().parent) or path.resolve().parent
        spec = spec.replace(data_root=base / spec.data_root)
    return spec


def spec_from_mapping(doc: Any, *, source: str | Path | None = None, lines: KeyLines | None = None) -> SweepSpec:
    """Build and validate a :class:`SweepSpec` from a parsed mapping.

    The keys and their types are those of
    :class:`~throttlelab.experiment.sweeps.spec_file.SweepSpecFile`; values with
    a grammar of their own (limits, threads, contention, workload) are read by
    :mod:`~throttlelab.experiment.sweeps.spec_values`.  Relative ``data_root``
    values are left relative (to the caller's working folder).
    """
    def fail(key: str, msg: str) -> SpecError:
        path = tuple(int(p) if p.isdigit() else p for p in re.split(r"[.\[\]]+", key) if p)
        return config_error(source, lines, path, msg)

    model = validate(SweepSpecFile, doc, source=source, lines=lines)
    name = model.name or model.experiment
    if name is None:
        raise fail("name", "required: an experiment name of letters, digits, '_', '-' or '.'")
    opts = getattr(model, model.backend) or {}
    if opts:  # validated by the backend's options model: keep what was written
        opts = opts.model_dump(exclude_unset=True, by_alias=True)
    kw: dict[str, Any] = {"name": name, "backend": model.backend, "backend_options": dict(opts),
                          "source": Path(source) if source is not None else None, "source_lines": lines}
    kw["workload"] = parse_workload(model.workload, fail)
    validate(WORKLOAD_OPTIONS[kw["workload"].kind], kw["workload"].options, source=source, lines=lines,
             prefix=("workload",))
    if "limits" in doc:
        kw["limits"] = parse_limits(model.limits, fail)
    if "threads" in doc:
        kw["threads"] = parse_threads(model.threads, fail)
    if "contention" in doc:
        kw["contention"] = parse_contention(model.contention, fail)
    for key in ("replicates", "warmup", "seed", "period_us", "burst_us", "order", "design"):
        kw[key] = getattr(model, key)
    for key in ("cooldown_s", "timeout_s", "sampling_interval_s"):
        kw[key] = float(getattr(model, key))
    if model.adaptive is not None:
        kw["adaptive"] = parse_adaptive(model.adaptive)
    kw["data_root"] = Path(model.data_root)
    spec = SweepSpec(**kw)
    cells = len(spec.limits) * len(spec.threads) * len(spec.contention)
    if spec.design == "adaptive" and spec.adaptive.budget is not None and spec.adaptive.budget < cells:
        raise fail("adaptive.budget", f"must be at least the number of cells ({cells}): the initial design "
                                      "runs every cell once")
    return spec


def spec_from(value: str | Path | Mapping[str, Any] | SweepSpec, **overrides: Any) -> SweepSpec:
    """A spec from a YAML path, a mapping (e.g. a notebook's inline fields) or a spec.

    ``overrides`` are spec keys as in YAML (``limits=[0.5, 1]``); ``None`` values
    are ignored, so notebook parameters can default to "keep the file's value".
    """
    overrides = {k: v for k, v in overrides.items() if v is not None}
    if isinstance(value, SweepSpec):
        base = value.to_mapping()
        src = value.source
    elif isinstance(value, Mapping):
        base, src = dict(value), None
    else:
        spec = load_spec(value)
        base, src = spec.to_mapping(), spec.source
    if not overrides and isinstance(value, SweepSpec):
        return value
    return spec_from_mapping({**base, **overrides}, source=src)


def _project_root(start: Path) -> Path | None:
    for p in (start, *start.parents):
        if (p / "pyproject.toml").exists():
            return p
    return None
