"""Result objects in the style of ``scipy.stats``.

Analysis functions return frozen dataclasses with named fields and a
``confidence_interval()`` method; :func:`to_jsonable` turns them (and numpy or
polars values inside them) into plain JSON for ``results.json``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from typing import Any, NamedTuple


class ConfidenceInterval(NamedTuple):
    """A two-sided confidence interval (like ``scipy.stats``' ``ConfidenceInterval``)."""

    low: float
    high: float


def to_jsonable(obj: Any) -> Any:
    """Convert ``obj`` to JSON-compatible Python values.

    Dataclasses become dicts (without their ``_private`` fields), NamedTuples dicts, numpy scalars and arrays Python
    numbers and lists, polars frames lists of row dicts; NaN and infinities become
    ``None`` (JSON has no NaN).
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        # Fields named with a leading underscore are internal (kept for computation, not results).
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj) if not f.name.startswith("_")}
    if isinstance(obj, tuple) and hasattr(obj, "_asdict"):
        return {k: to_jsonable(v) for k, v in obj._asdict().items()}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, (dt.datetime, dt.date)):
        return obj.isoformat()
    mod = type(obj).__module__
    if mod.startswith("numpy"):
        if hasattr(obj, "tolist"):
            return to_jsonable(obj.tolist())
    if mod.startswith("polars"):
        if hasattr(obj, "to_dicts"):
            return to_jsonable(obj.to_dicts())
        if hasattr(obj, "to_list"):
            return to_jsonable(obj.to_list())
    if hasattr(obj, "__fspath__"):
        return str(obj)
    raise TypeError(f"cannot convert {type(obj).__name__} to JSON")
