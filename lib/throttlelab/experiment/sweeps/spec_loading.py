"""Reading a sweep spec: from YAML, a mapping or another spec with overrides, with errors naming file, line and key.

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

Every problem is a :class:`~throttlelab.errors.SpecError` naming the file, the line and the key, also
for a spec with overrides (:func:`spec_from`): keys from the file keep their lines, overridden ones
say so.  The keys and what each becomes are :class:`~throttlelab.experiment.sweeps.spec.SweepSpec`'s
fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from throttlelab.config_file import KeyLines, read_yaml, validate
from throttlelab.experiment.sweeps.spec import SweepSpec


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
    """Build and validate a :class:`SweepSpec` from a parsed mapping (``source`` and ``lines`` name the file and
    the line of each key in errors).  Relative ``data_root`` values are left relative (to the caller's working
    folder).
    """
    spec = validate(SweepSpec, doc, source=source, lines=lines)
    spec._source = Path(source) if source is not None else None
    spec._lines = lines
    return spec


def spec_from(value: str | Path | Mapping[str, Any] | SweepSpec, **overrides: Any) -> SweepSpec:
    """A spec from a YAML path, a mapping (e.g. a notebook's inline fields) or a spec.

    ``overrides`` are spec keys as in YAML (``limits=[0.5, 1]``); ``None`` values
    are ignored, so notebook parameters can default to "keep the file's value".
    A problem in a key from the file still names its line; one in an overridden
    key names the file as ``<file> (overridden)``.
    """
    overrides = {k: v for k, v in overrides.items() if v is not None}
    spec = load_spec(value) if isinstance(value, (str, Path)) else value
    if not isinstance(spec, SweepSpec):
        return spec_from_mapping({**spec, **overrides})
    if not overrides:
        return spec
    lines = {k: v for k, v in (spec.source_lines or {}).items() if k[0] not in overrides}
    if spec.source is not None:
        lines.update({(k,): f"{spec.source} (overridden)" for k in overrides})
    return spec_from_mapping({**spec.to_mapping(), **overrides}, source=spec.source, lines=lines)


def _project_root(start: Path) -> Path | None:
    for p in (start, *start.parents):
        if (p / "pyproject.toml").exists():
            return p
    return None
