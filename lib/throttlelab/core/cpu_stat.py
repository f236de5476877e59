"""A cgroup's ``cpu.stat``: its ``key value`` lines read, and its keys (v1 or v2) turned into the canonical counters.

:func:`parse_cpu_stat` reads the text (strictly, naming the file and line of a bad
line; or leniently, skipping such lines, for a live cgroup read while it runs);
:func:`counter` gives one canonical counter of a parsed ``cpu.stat`` in its unit
(seconds or periods) whichever cgroup version wrote it, through the catalogue
(:data:`throttlelab.core.metrics.CPU_COUNTERS`).  :data:`V2_KEYS`, :data:`V1_KEYS`
and :data:`SHARED_KEYS` are the ``cpu.stat`` keys kept, :data:`IGNORED_KEYS` those
known and not kept (the monitor log's reader builds its key table from them);
:func:`stat_keys` the keys of some counters.

Examples
--------
>>> stat = parse_cpu_stat("usage_usec 2500000\\nnr_periods 40\\nnr_throttled 30\\nthrottled_usec 1500000\\n")
>>> stat
{'usage_usec': 2500000, 'nr_periods': 40, 'nr_throttled': 30, 'throttled_usec': 1500000}
>>> counter(stat, "throttled_seconds"), counter(stat, "nr_throttled")
(1.5, 30)
>>> counter({"throttled_time": 2_000_000_000}, "throttled_seconds")  # cgroup v1: ns
2.0
"""

from __future__ import annotations

from collections.abc import Mapping
from os import PathLike

from throttlelab.core.metrics import COUNTER, CPU_COUNTERS
from throttlelab.errors import InputError

#: cgroup v1's usage is not a ``cpu.stat`` key: it is this file (ns).
V1_USAGE_FILE = COUNTER["usage_seconds"].v1_key
#: ``cpu.stat`` keys of both versions, cgroup v2 only and cgroup v1 only (in the catalogue's order).
SHARED_KEYS = tuple(c.v2_key for c in CPU_COUNTERS if c.v2_key == c.v1_key)
V2_KEYS = tuple(c.v2_key for c in CPU_COUNTERS if c.v2_key != c.v1_key)
V1_KEYS = tuple(c.v1_key for c in CPU_COUNTERS if c.v1_key and c.v1_key != c.v2_key and c.v1_key != V1_USAGE_FILE)
#: Every kept ``cpu.stat`` key: the columns of the monitor reader's (block x key) table, in this order.
STAT_KEYS = SHARED_KEYS + V2_KEYS + V1_KEYS
#: Known ``cpu.stat`` keys that are read but not kept (newer kernels, schedstats).
IGNORED_KEYS = ("core_sched.force_idle_usec", "wait_sum", "nr_burst")


def stat_keys(*names: str) -> tuple[str, ...]:
    """The ``cpu.stat`` keys (v2, then v1) of the canonical counters ``names``, each once, in their order.

    >>> stat_keys("usage_seconds", "nr_periods", "throttled_seconds")
    ('usage_usec', 'nr_periods', 'throttled_usec', 'throttled_time')
    """
    out: list[str] = []
    for name in names:
        c = COUNTER[name]
        for k in (c.v2_key, c.v1_key):
            if k and k != V1_USAGE_FILE and k not in out:
                out.append(k)
    return tuple(out)


def parse_cpu_stat(text: str, path: str | PathLike[str] = "cpu.stat", *, strict: bool = True) -> dict[str, int]:
    """``cpu.stat`` text -> ``{key: value}``.

    Parameters
    ----------
    text
        The file's text: ``key value`` lines; blank lines are skipped.
    path
        Named in the error.
    strict
        A line that is not a key and a non-negative integer raises; with ``False`` it is skipped (and a
        negative integer is kept).

    Raises
    ------
    InputError
        ``<path>:<line>: bad cpu.stat line ('<the line>')`` (``strict`` only).

    Examples
    --------
    >>> parse_cpu_stat("nr_periods 4\\nnr_throttled x\\n", "/sys/fs/cgroup/a/cpu.stat")
    Traceback (most recent call last):
    ...
    throttlelab.errors.InputError: /sys/fs/cgroup/a/cpu.stat:2: bad cpu.stat line ('nr_throttled x')
    >>> parse_cpu_stat("nr_periods 4\\nnr_throttled x\\nnr_bursts -1\\n", strict=False)
    {'nr_periods': 4, 'nr_bursts': -1}
    """
    out: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) == 2 and (parts[1].isdigit() if strict else parts[1].lstrip("-").isdigit()):
            out[parts[0]] = int(parts[1])
        elif strict:
            raise InputError(path, n, "bad cpu.stat line", repr(line[:80]))
    return out


def counter(stat: Mapping[str, int], name: str, default: float | int = 0) -> float | int:
    """Canonical counter ``name`` of a parsed ``cpu.stat`` (either version) in its unit; ``default`` when absent.

    The cgroup v1 key wins where a file has both (it never does).  The usage of a
    v1 cgroup is not in ``cpu.stat`` (it is ``cpuacct.usage``): ``default``.
    """
    c = COUNTER[name]
    for key, scale in ((c.v1_key, c.v1_scale), (c.v2_key, c.v2_scale)):
        if key in stat:
            return stat[key] if c.integer else stat[key] / scale
    return default
