"""Sweep specs: what to run, parsed from YAML, expanded into a plan of runs.

A spec is a small YAML file (see ``studies/local_sweep.yaml``)::

    name: ffmpeg_local            # experiment name: data goes to <data_root>/<name>/
    backend: local                # local | kubernetes
    local: {}                     # backend-specific mapping, passed through uninterpreted
    workload:
      kind: ffmpeg                # ffmpeg | burner | go | command
      duration: 2                 # workload options (see throttlelab.experiment.workloads)
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

:func:`load_spec` reads and validates a file (every problem is a
:class:`~throttlelab.errors.SpecError` naming the file and the key);
:meth:`SweepSpec.plan` expands the grid into :class:`RunPlan` objects with
deterministic run ids, so re-running a spec resumes where it stopped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from throttlelab.errors import SpecError

BACKENDS = ("local", "kubernetes")
WORKLOADS = ("ffmpeg", "burner", "go", "command")
MIN_SAMPLING_INTERVAL_S = 0.1

_KNOWN_KEYS = {
    "name", "experiment", "backend", "workload", "limits", "threads", "replicates", "warmup",
    "cooldown_s", "order", "seed", "timeout_s", "period_us", "burst_us", "sampling_interval_s",
    "contention", "data_root", "description", *BACKENDS,
}


@dataclass(frozen=True)
class Contention:
    """A noisy-neighbour level.

    Attributes
    ----------
    share
        CPU share of the whole machine (0-1) the neighbour may use: its cgroup
        quota is ``share * cpu_count * period``.  0 means no neighbour.
    workers
        Number of busy worker threads the neighbour runs.
    """

    share: float = 0.0
    workers: int = 0

    @property
    def active(self) -> bool:
        """True when there is a neighbour at all."""
        return self.share > 0 and self.workers > 0

    @property
    def label(self) -> str:
        """Short text form, e.g. ``'0.5x2'`` or ``'none'``."""
        return f"{_num(self.share)}x{self.workers}" if self.active else "none"


@dataclass(frozen=True)
class Workload:
    """What each run executes.

    Attributes
    ----------
    kind
        ``ffmpeg``, ``burner``, ``go`` or ``command``.
    command
        For ``command``: a shell-free command line with ``{threads}`` (the
        thread count as text, ``auto`` included) and ``{nproc}`` placeholders.
    options
        Workload options (e.g. ``duration``, ``frames``, ``size``, ``preset`` for
        ffmpeg; ``cpu_seconds`` for the burner; ``work`` for go).  Interpreted by
        :mod:`throttlelab.experiment.workloads`; not hashable, do not hash a Workload.
    """

    kind: str
    command: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def option(self, name: str, default: Any = None) -> Any:
        """One option's value, or ``default``."""
        return self.options.get(name, default)


@dataclass(frozen=True)
class RunPlan:
    """One planned run: a grid point x replicate (or a warm-up run).

    Attributes
    ----------
    experiment
        Experiment name (folder under the data root).
    run_id
        Deterministic id: the same spec always gives the same ids, so a re-run
        resumes.  Safe as a file name and a cgroup / Kubernetes name component
        (lowercase letters, digits, ``-`` and ``.``).
    order
        0-based position in the execution order.
    limit_cores
        CPU limit in cores; ``None`` = unlimited.
    threads
        ``'auto'`` or an integer as text.
    contention
        Noisy-neighbour level for this run.
    replicate
        0-based replicate number (for warm-ups: the warm-up number).
    warmup
        True for warm-up runs (recorded and marked, not analysed).
    period_us, burst_us
        CFS period and burst (``None``: the kernel default, no burst).
    workload
        The workload (shared by all runs of a spec).
    timeout_s
        Per-run timeout in seconds.
    sampling_interval_s
        Monitor sampler interval in seconds.
    backend_options
        The spec's backend-specific mapping, uninterpreted.
    """

    experiment: str
    run_id: str
    order: int
    limit_cores: float | None
    threads: str
    contention: Contention
    replicate: int
    warmup: bool
    period_us: int
    burst_us: int | None
    workload: Workload
    timeout_s: float
    sampling_interval_s: float
    backend_options: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def quota_us(self) -> int | None:
        """CFS quota in microseconds (``limit_cores * period_us``); ``None`` = unlimited."""
        if self.limit_cores is None:
            return None
        return max(1000, round(self.limit_cores * self.period_us))

    @property
    def thread_count(self) -> int | None:
        """Thread count as an int; ``None`` for ``auto``."""
        return None if self.threads == "auto" else int(self.threads)


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
    source: Path | None = field(default=None, compare=False)

    @property
    def experiment_dir(self) -> Path:
        """``<data_root>/<name>``: where the run store keeps this experiment."""
        return Path(self.data_root) / self.name

    def replace(self, **changes: Any) -> SweepSpec:
        """A copy with some fields changed (e.g. ``data_root``)."""
        return dataclasses.replace(self, **changes)

    def config_hash(self) -> str:
        """Six hex digits identifying what defines a measurement (workload, period, burst).

        Part of every run id: changing the workload options under the same
        experiment name gives new run ids instead of silently mixing results.
        """
        key = {"w": dataclasses.asdict(self.workload), "p": self.period_us, "b": self.burst_us,
               "backend": self.backend}
        return hashlib.sha1(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:6]

    def plan(self) -> list[RunPlan]:
        """Expand the grid into runs, in execution order.

        Warm-up runs come first (the first ``warmup`` grid points of the first
        replicate's order, marked ``warmup=True``).  With ``order: random`` each
        replicate is one block in which the grid points are shuffled with
        ``random.Random(seed)`` (blocked randomisation: drift of the machine over
        time spreads evenly over the grid); ``sequential`` keeps grid order.
        The result is deterministic for a given spec.
        """
        grid = [(lim, thr, con) for con in self.contention for lim in self.limits for thr in self.threads]
        rng = random.Random(self.seed)
        blocks = []
        for _ in range(self.replicates):
            block = list(grid)
            if self.order == "random":
                rng.shuffle(block)
            blocks.append(block)
        h = self.config_hash()
        runs: list[tuple[Any, ...]] = []
        first = blocks[0] if blocks else grid
        for i in range(self.warmup):
            lim, thr, con = first[i % len(first)]
            runs.append((lim, thr, con, i, True))
        for rep, block in enumerate(blocks):
            runs.extend((lim, thr, con, rep, False) for lim, thr, con in block)
        return [
            RunPlan(
                experiment=self.name,
                run_id=make_run_id(lim, thr, con, rep, warm, h),
                order=i,
                limit_cores=lim,
                threads=thr,
                contention=con,
                replicate=rep,
                warmup=warm,
                period_us=self.period_us,
                burst_us=self.burst_us,
                workload=self.workload,
                timeout_s=self.timeout_s,
                sampling_interval_s=self.sampling_interval_s,
                backend_options=self.backend_options,
            )
            for i, (lim, thr, con, rep, warm) in enumerate(runs)
        ]

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
        return out


def make_run_id(limit: float | None, threads: str, contention: Contention, replicate: int,
                warmup: bool, config_hash: str) -> str:
    """Deterministic, file- and DNS-label-friendly run id.

    Example: ``l500m-t2-c0-r0-3fa9c1`` (0.5 cores, 2 threads, no neighbour,
    replicate 0); ``c50w2`` is a neighbour at 50 % of the machine with 2 workers;
    ``lunl`` is unlimited; warm-ups have ``w<n>`` instead of ``r<n>``.
    """
    lim = "unl" if limit is None else f"{round(limit * 1000)}m"
    con = f"{round(contention.share * 100)}w{contention.workers}" if contention.active else "0"
    return f"l{lim}-t{threads}-c{con}-{'w' if warmup else 'r'}{replicate}-{config_hash}"


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
        Naming the file and the offending key.
    """
    import yaml

    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise SpecError(f"{path}: cannot read sweep spec ({exc.strerror or exc})") from None
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise SpecError(f"{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    spec = spec_from_mapping(doc, source=path)
    if data_root is not None:
        return spec.replace(data_root=Path(data_root))
    if not spec.data_root.is_absolute():
        base = _project_root(path.resolve().parent) or path.resolve().parent
        spec = spec.replace(data_root=base / spec.data_root)
    return spec


def spec_from_mapping(doc: Any, *, source: str | Path | None = None) -> SweepSpec:
    """Build and validate a :class:`SweepSpec` from a parsed mapping.

    Relative ``data_root`` values are left relative (to the caller's working folder).
    """
    where = str(source) if source is not None else "<spec>"

    def fail(key: str, msg: str) -> SpecError:
        return SpecError(f"{where}: key '{key}': {msg}")

    if not isinstance(doc, Mapping):
        raise SpecError(f"{where}: a sweep spec must be a mapping of keys, got {type(doc).__name__}")
    unknown = sorted(set(doc) - _KNOWN_KEYS)
    if unknown:
        raise fail(unknown[0], f"unknown key (known: {', '.join(sorted(_KNOWN_KEYS))})")
    name = doc.get("name", doc.get("experiment"))
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise fail("name", "required: an experiment name of letters, digits, '_', '-' or '.'")
    backend = doc.get("backend", "local")
    if backend not in BACKENDS:
        raise fail("backend", f"must be one of {', '.join(BACKENDS)}, got {backend!r}")
    opts = doc.get(backend) or {}
    if not isinstance(opts, Mapping):
        raise fail(backend, "must be a mapping of backend options")

    kw: dict[str, Any] = {"name": name, "backend": backend, "backend_options": dict(opts),
                          "source": Path(source) if source is not None else None}
    kw["workload"] = _workload(doc.get("workload", "burner"), fail)
    if "limits" in doc:
        kw["limits"] = _limits(doc["limits"], fail)
    if "threads" in doc:
        kw["threads"] = _threads(doc["threads"], fail)
    for key, lo in (("replicates", 1), ("warmup", 0), ("seed", None), ("period_us", 1000)):
        if key in doc:
            v = doc[key]
            if not isinstance(v, int) or isinstance(v, bool) or (lo is not None and v < lo):
                raise fail(key, f"must be an integer{'' if lo is None else f' >= {lo}'}, got {v!r}")
            kw[key] = v
    if kw.get("period_us", 100_000) > 1_000_000:
        raise fail("period_us", "must be at most 1000000 (1 s), the kernel's limit")
    if doc.get("burst_us") is not None:
        v = doc["burst_us"]
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise fail("burst_us", f"must be a non-negative integer or null, got {v!r}")
        kw["burst_us"] = v
    for key, lo in (("cooldown_s", 0.0), ("timeout_s", 0.001), ("sampling_interval_s", MIN_SAMPLING_INTERVAL_S)):
        if key in doc:
            v = doc[key]
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v < lo:
                raise fail(key, f"must be a number >= {lo}, got {v!r}")
            kw[key] = float(v)
    if "order" in doc:
        if doc["order"] not in ("random", "sequential"):
            raise fail("order", f"must be 'random' or 'sequential', got {doc['order']!r}")
        kw["order"] = doc["order"]
    if "contention" in doc:
        kw["contention"] = _contention(doc["contention"], fail)
    if "data_root" in doc:
        if not isinstance(doc["data_root"], (str, Path)):
            raise fail("data_root", "must be a folder path")
        kw["data_root"] = Path(doc["data_root"])
    return SweepSpec(**kw)


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


def parse_cores(value: Any) -> float | None:
    """Cores from ``0.5``, ``'1500m'``, ``'2'`` or ``'unlimited'`` (-> ``None``).

    Raises
    ------
    ValueError
        For anything else, or a non-positive value.
    """
    if value is None or (isinstance(value, str) and value.strip().lower() in ("unlimited", "none", "max")):
        return None
    if isinstance(value, bool):
        raise ValueError(f"cannot read {value!r} as CPU cores")
    if isinstance(value, (int, float)):
        cores = float(value)
    elif isinstance(value, str) and re.fullmatch(r"\s*\d+(\.\d+)?m?\s*", value):
        v = value.strip()
        cores = float(v[:-1]) / 1000 if v.endswith("m") else float(v)
    else:
        raise ValueError(f"cannot read {value!r} as CPU cores (use 0.5, '1500m' or 'unlimited')")
    if not math.isfinite(cores) or cores <= 0:
        raise ValueError(f"CPU limit must be positive, got {value!r}")
    return cores


def _limits(value: Any, fail) -> tuple[float | None, ...]:
    if isinstance(value, Mapping):  # {from: 0.25, to: 2, step: 0.25}
        try:
            lo, hi, step = (float(value[k]) for k in ("from", "to", "step"))
        except (KeyError, TypeError, ValueError):
            raise fail("limits", "a range needs numeric 'from', 'to' and 'step'") from None
        if lo <= 0 or step <= 0 or hi < lo:
            raise fail("limits", "a range needs 0 < from <= to and step > 0")
        n = int(math.floor((hi - lo) / step + 1e-9)) + 1
        return tuple(round(lo + i * step, 6) for i in range(n))
    items = value if isinstance(value, list) else [value]
    if not items:
        raise fail("limits", "needs at least one limit")
    out = []
    for i, v in enumerate(items):
        try:
            out.append(parse_cores(v))
        except ValueError as exc:
            raise fail(f"limits[{i}]", str(exc)) from None
    return tuple(dict.fromkeys(out))


def _threads(value: Any, fail) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    if not items:
        raise fail("threads", "needs at least one thread count")
    out = []
    for i, v in enumerate(items):
        if v == "auto":
            out.append("auto")
        elif isinstance(v, int) and not isinstance(v, bool) and v >= 1:
            out.append(str(v))
        elif isinstance(v, str) and v.isdigit() and int(v) >= 1:
            out.append(str(int(v)))
        else:
            raise fail(f"threads[{i}]", f"must be 'auto' or a positive integer, got {v!r}")
    return tuple(dict.fromkeys(out))


def _contention(value: Any, fail) -> tuple[Contention, ...]:
    items = value if isinstance(value, list) else [value]
    out = []
    for i, v in enumerate(items):
        key = f"contention[{i}]"
        if isinstance(v, Mapping):
            share, workers = v.get("share", 0), v.get("workers")
        else:
            share, workers = v, None
        if not isinstance(share, (int, float)) or isinstance(share, bool) or not 0 <= share <= 1:
            raise fail(key, f"share must be a number between 0 and 1, got {share!r}")
        if workers is None:
            import os

            workers = (os.cpu_count() or 1) if share > 0 else 0
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 0:
            raise fail(key, f"workers must be a non-negative integer, got {workers!r}")
        out.append(Contention(float(share), workers) if share > 0 and workers > 0 else Contention())
    if not out:
        raise fail("contention", "needs at least one level (use [0] for none)")
    return tuple(dict.fromkeys(out))


def _workload(value: Any, fail) -> Workload:
    if isinstance(value, str):
        value = {"kind": value}
    if not isinstance(value, Mapping):
        raise fail("workload", "must be a kind name or a mapping with 'kind'")
    kind = value.get("kind")
    if kind not in WORKLOADS:
        raise fail("workload.kind", f"must be one of {', '.join(WORKLOADS)}, got {kind!r}")
    command = value.get("command")
    if kind == "command":
        if not isinstance(command, str) or not command.strip():
            raise fail("workload.command", "a 'command' workload needs a command line (with {threads})")
        try:
            command.format(threads="1", nproc="1")
        except (KeyError, IndexError, ValueError) as exc:
            raise fail("workload.command", f"only {{threads}} and {{nproc}} may be substituted ({exc})") from None
    elif command is not None:
        raise fail("workload.command", f"only the 'command' workload takes a command, not {kind!r}")
    options = {k: v for k, v in value.items() if k not in ("kind", "command")}
    return Workload(kind=kind, command=command, options=options)


def _num(x: float) -> str:
    return f"{x:g}"


def _project_root(start: Path) -> Path | None:
    for p in (start, *start.parents):
        if (p / "pyproject.toml").exists():
            return p
    return None
