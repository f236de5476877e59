"""The one reader of cgroup files: a file's text, and a cgroup folder's CPU files (cpu.stat, the limit, the usage).

cgroupfs semantics: a file that does not exist is one the controller or the
cgroup version lacks (:func:`read_cgroup_file` gives its ``default``); any other
error raises the ``OSError`` reading raised.  :func:`read_cpu_files` reads a
folder's ``cpu.stat`` (parsed by :func:`throttlelab.core.cpu_stat.parse_cpu_stat`),
its limit (``cpu.max`` in v2, ``cpu.cfs_quota_us`` and ``cpu.cfs_period_us`` in
v1) and its usage (``cpuacct.usage``, v1, ns: in the folder itself or in a
separate cpuacct folder, as some machines mount ``cpuacct`` apart).  The monitor
sampler's cgroups, a pod's container cgroup and ``throttlelab ingest`` of a
cgroup folder all read through it.

Examples
--------
>>> from pathlib import Path
>>> d = Path("cg"); d.mkdir()
>>> _ = (d / "cpu.stat").write_text("usage_usec 2500000\\nnr_periods 40\\nnr_throttled 3\\n")
>>> _ = (d / "cpu.max").write_text("50000 100000\\n")
>>> read_cpu_files(d)
CpuFiles(cpu_stat={'usage_usec': 2500000, 'nr_periods': 40, 'nr_throttled': 3}, cpu_max='50000 100000', quota_period=None, usage_ns=None)
>>> read_cgroup_file(d / "cpu.weight", "") == ""
True
"""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from throttlelab.core.cpu_stat import V1_USAGE_FILE, parse_cpu_stat
from throttlelab.errors import InputError

#: cgroup v1's limit: the quota (us per period, -1: none) and the period (us).
V1_LIMIT_FILES = ("cpu.cfs_quota_us", "cpu.cfs_period_us")


def read_cgroup_file(path: str | PathLike[str], default: str | None = None) -> str | None:
    """The text of a cgroup (or ``/proc``) file; ``default`` when it does not exist."""
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return default


@dataclass(frozen=True)
class CpuFiles:
    """A cgroup folder's CPU files as read (``None``: the file is not there).

    Attributes
    ----------
    cpu_stat
        ``cpu.stat`` parsed (``{key: value}``, as the kernel prints it: v1 times in ns, v2 in us).
    cpu_max
        ``cpu.max`` (v2), stripped: ``"<quota> <period>"`` or ``"max <period>"``.
    quota_period
        ``cpu.cfs_quota_us`` and ``cpu.cfs_period_us`` (v1) as read, newline included (``None`` unless both are there).
    usage_ns
        ``cpuacct.usage`` (v1): cumulative CPU time in ns.
    """

    cpu_stat: dict[str, int] | None
    cpu_max: str | None
    quota_period: tuple[str, str] | None
    usage_ns: int | None


def read_cpu_files(directory: str | PathLike[str], cpuacct_dir: str | PathLike[str] | None = None, *,
                   strict: bool = True) -> CpuFiles:
    """The CPU files of the cgroup folder ``directory`` (and of ``cpuacct_dir``, v1's separate cpuacct folder).

    ``strict`` reads ``cpu.stat`` as :func:`~throttlelab.core.cpu_stat.parse_cpu_stat` does (``False``: a line
    that is not a key and an integer is skipped, as in a live cgroup read while it runs).  A ``cpuacct.usage``
    that is not an integer raises :class:`~throttlelab.errors.InputError`; an unreadable file, ``OSError``.
    """
    d = Path(directory)
    stat_text = read_cgroup_file(d / "cpu.stat")
    stat = None if stat_text is None else parse_cpu_stat(stat_text, d / "cpu.stat", strict=strict)
    cpu_max = read_cgroup_file(d / "cpu.max")
    quota, period = (read_cgroup_file(d / name) for name in V1_LIMIT_FILES) if cpu_max is None else (None, None)
    usage = None
    for folder in (d, Path(cpuacct_dir) if cpuacct_dir else None):
        text = None if folder is None or usage is not None else read_cgroup_file(folder / V1_USAGE_FILE)
        if text is not None:
            try:
                usage = int(text.strip())
            except ValueError:
                raise InputError(folder / V1_USAGE_FILE, 1, "bad cpuacct.usage", repr(text[:40])) from None
    return CpuFiles(stat, None if cpu_max is None else cpu_max.strip(),
                    (quota, period) if quota is not None and period is not None else None, usage)
