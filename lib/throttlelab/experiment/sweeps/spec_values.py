"""Parsers of a sweep spec's values: limits, thread counts, contention, workload, adaptive settings.

Each ``parse_*`` function reads one key's YAML value into the form
:class:`~throttlelab.experiment.sweeps.spec.SweepSpec` holds; they are the model's validators.  A bad
value raises :class:`~throttlelab.config_file.ValueAt` naming the key below the spec (e.g. ``limits[2]``),
which :func:`~throttlelab.config_file.validate` turns into one line naming the file and the line.
CPU cores are read by :func:`throttlelab.core.quantities.parse_cores`.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from throttlelab.config_file import ValueAt, first_problem
from throttlelab.core.quantities import parse_cores
from throttlelab.experiment.sweeps.plan import Contention, Workload
from throttlelab.experiment.sweeps.spec_file import WORKLOAD_OPTIONS, AdaptiveSettings

WORKLOADS = ("ffmpeg", "burner", "go", "service", "command")


def fail(key: str, message: str) -> ValueAt:
    """The error for a bad value at ``key`` of the spec (``limits[2]``, ``workload.kind``)."""
    return ValueAt(tuple(int(p) if p.isdigit() else p for p in re.split(r"[.\[\]]+", key) if p), message, absolute=True)


def parse_limits(value: Any) -> tuple[float | None, ...]:
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


def parse_threads(value: Any) -> tuple[str, ...]:
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


def parse_contention(value: Any) -> tuple[Contention, ...]:
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


def parse_workload(value: Any) -> Workload:
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
    try:  # the kind's own options (WORKLOAD_OPTIONS)
        WORKLOAD_OPTIONS[kind].model_validate(options)
    except ValidationError as exc:
        loc, message = first_problem(WORKLOAD_OPTIONS[kind], exc)
        raise ValueAt(("workload", *loc), message, absolute=True) from None
    return Workload(kind=kind, command=command, options=options)


def parse_adaptive(value: AdaptiveSettings | None) -> AdaptiveSettings:
    """The validated ``adaptive:`` mapping; none: the defaults."""
    return AdaptiveSettings() if value is None else value


def as_float(value: float) -> float:
    """A number of the file (int or float) as the float the sweep uses."""
    return float(value)


def as_path(value: str) -> Path:
    """``data_root`` as a path."""
    return Path(value)


def name_given(value: str | None, info) -> str | None:
    """``experiment`` (the older spelling of ``name``): one of the two is required."""
    if value is None and info.data.get("name") is None:
        raise ValueAt(("name",), "required: an experiment name of letters, digits, '_', '-' or '.'", absolute=True)
    return value


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer (``True``/``False`` are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
