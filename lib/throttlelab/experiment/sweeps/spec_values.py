"""Parsers of a sweep spec's values: CPU cores, limits, thread counts, contention, workload.

Each ``parse_*`` function reads one key's YAML value into the form
:class:`~throttlelab.experiment.sweeps.spec.SweepSpec` holds.  Problems are reported
through ``fail(key, message)``, which returns the
:class:`~throttlelab.errors.SpecError` to raise (it names the file and the
key, e.g. ``limits[2]``); :func:`parse_cores` alone raises ``ValueError``, so it
also serves outside specs.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from throttlelab.errors import SpecError
from throttlelab.experiment.sweeps.adaptive import AdaptiveSettings
from throttlelab.experiment.sweeps.plan import Contention, Workload
from throttlelab.experiment.sweeps.spec_file import AdaptiveOptions

WORKLOADS = ("ffmpeg", "burner", "go", "service", "command")

Fail = Callable[[str, str], SpecError]
"""``fail(key, message)``: the error to raise for a bad value of ``key``."""


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


def parse_int(value: Any, key: str, lo: int | None, fail: Fail) -> int:
    """An integer ``>= lo`` (no bound when ``lo`` is ``None``); booleans are not integers."""
    if not is_int(value) or (lo is not None and value < lo):
        raise fail(key, f"must be an integer{'' if lo is None else f' >= {lo}'}, got {value!r}")
    return value


def parse_number(value: Any, key: str, lo: float, fail: Fail) -> float:
    """A finite number ``>= lo``, as a float."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < lo:
        raise fail(key, f"must be a number >= {lo}, got {value!r}")
    return float(value)


def parse_limits(value: Any, fail: Fail) -> tuple[float | None, ...]:
    """CPU limits from a list (or one value) of cores, or a ``{from, to, step}`` range; duplicates dropped."""
    if isinstance(value, Mapping):  # {from: 0.25, to: 2, step: 0.25}
        try:
            lo, hi, step = (float(value[k]) for k in ("from", "to", "step"))
        except (KeyError, TypeError, ValueError):
            raise fail("limits", "a range needs numeric 'from', 'to' and 'step'") from None
        if lo <= 0 or step <= 0 or hi < lo:
            raise fail("limits", "a range needs 0 < from <= to and step > 0")
        n = int(math.floor((hi - lo) / step + 1e-9)) + 1
        return tuple(round(lo + i * step, 6) for i in range(n))
    items = _as_list(value)
    if not items:
        raise fail("limits", "needs at least one limit")
    out = []
    for i, v in enumerate(items):
        try:
            out.append(parse_cores(v))
        except ValueError as exc:
            raise fail(f"limits[{i}]", str(exc)) from None
    return tuple(dict.fromkeys(out))


def parse_threads(value: Any, fail: Fail) -> tuple[str, ...]:
    """Thread counts (``'auto'`` or positive integers) as text; duplicates dropped."""
    items = _as_list(value)
    if not items:
        raise fail("threads", "needs at least one thread count")
    out = []
    for i, v in enumerate(items):
        if v == "auto":
            out.append("auto")
        elif is_int(v) and v >= 1:
            out.append(str(v))
        elif isinstance(v, str) and v.isdigit() and int(v) >= 1:
            out.append(str(int(v)))
        else:
            raise fail(f"threads[{i}]", f"must be 'auto' or a positive integer, got {v!r}")
    return tuple(dict.fromkeys(out))


def parse_contention(value: Any, fail: Fail) -> tuple[Contention, ...]:
    """Noisy-neighbour levels from shares or ``{share, workers}`` mappings; duplicates dropped.

    A share without ``workers`` gets one worker per CPU of this machine.
    """
    out = []
    for i, v in enumerate(_as_list(value)):
        key = f"contention[{i}]"
        if isinstance(v, Mapping):
            share, workers = v.get("share", 0), v.get("workers")
        else:
            share, workers = v, None
        if not isinstance(share, (int, float)) or isinstance(share, bool) or not 0 <= share <= 1:
            raise fail(key, f"share must be a number between 0 and 1, got {share!r}")
        if workers is None:
            workers = (os.cpu_count() or 1) if share > 0 else 0
        if not is_int(workers) or workers < 0:
            raise fail(key, f"workers must be a non-negative integer, got {workers!r}")
        out.append(Contention(float(share), workers) if share > 0 and workers > 0 else Contention())
    if not out:
        raise fail("contention", "needs at least one level (use [0] for none)")
    return tuple(dict.fromkeys(out))


def parse_workload(value: Any, fail: Fail) -> Workload:
    """A workload from a kind name or a mapping with ``kind`` (and ``command``, options)."""
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


def parse_adaptive(value: AdaptiveOptions) -> AdaptiveSettings:
    """The validated ``adaptive:`` mapping (:class:`~throttlelab.experiment.sweeps.spec_file.AdaptiveOptions`)."""
    counts = {"budget", "max_replicates", "min_replicates", "draws", "model"}
    return AdaptiveSettings(**{k: v if k in counts or v is None else float(v)
                               for k, v in value.model_dump(exclude_unset=True).items()})


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer (``True``/``False`` are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
