"""Finding where this machine lets us make CPU cgroups: v1 or v2, which folders.

Layouts
-------
cgroup v1
    A ``cpu`` hierarchy (``cpu.cfs_quota_us``, ``cpu.cfs_period_us``,
    ``cpu.cfs_burst_us``, ``cpu.stat``) and a ``cpuacct`` hierarchy
    (``cpuacct.usage``), either co-mounted (``cpu,cpuacct``) or separate.  With
    separate hierarchies a process must be written into both ``cgroup.procs``.
cgroup v2
    One hierarchy; ``cpu.max`` (``"<quota> <period>"`` or ``"max <period>"``),
    ``cpu.max.burst`` and ``cpu.stat`` (``usage_usec`` ...).  Usable where the
    ``cpu`` controller is available in a subtree we may write (root, or a
    subtree delegated to the user).

:func:`detect_layout` reads ``/proc/mounts`` and ``/proc/self/cgroup`` and
returns a :class:`CgroupLayout`, or raises
:class:`~throttlelab.errors.EnvironmentProblem` saying what is missing.  Set
``THROTTLELAB_CGROUP_ROOT`` to a delegated v2 folder (or a v1 cpu hierarchy
folder) to choose the base explicitly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from throttlelab.errors import EnvironmentProblem
from throttlelab.ingest.cgroup import read_cgroup_file

PARENT = "throttlelab"
WHAT_IS_NEEDED = ("a writable CPU cgroup: run as root (cgroup v1 'cpu' hierarchy or cgroup v2 with the cpu "
          "controller), or delegate a cgroup v2 subtree with the cpu controller to your user and set "
          "THROTTLELAB_CGROUP_ROOT to it")


@dataclass(frozen=True)
class CgroupLayout:
    """Where CPU cgroups can be made.

    Attributes
    ----------
    version
        1 or 2.
    base
        Folder in the cpu hierarchy (v1) or the unified hierarchy (v2) under
        which ``throttlelab/`` is created.
    cpuacct_base
        v1 only: the matching folder of the ``cpuacct`` hierarchy (equal to
        ``base`` when co-mounted); ``None`` for v2.
    simulated
        A fixture folder laid out like cgroupfs (tests): removal deletes files.
    """

    version: int
    base: Path
    cpuacct_base: Path | None = None
    simulated: bool = False

    @property
    def parent(self) -> Path:
        """``<base>/throttlelab``."""
        return self.base / PARENT

    @property
    def parents(self) -> list[Path]:
        """``throttlelab/`` in each hierarchy (two in v1 with separate cpu and cpuacct)."""
        return list(dict.fromkeys([self.parent, (self.cpuacct_base or self.base) / PARENT]))

    @property
    def has_burst(self) -> bool:
        """Whether the kernel offers CFS burst here."""
        name = "cpu.cfs_burst_us" if self.version == 1 else "cpu.max.burst"
        return (self.base / name).exists() or (self.parent / name).exists()


def detect_layout(*, mounts: str | Path = "/proc/mounts", self_cgroup: str | Path = "/proc/self/cgroup",
                  root: str | Path | None = None, simulated: bool = False) -> CgroupLayout:
    """Find a writable CPU cgroup layout.

    Parameters
    ----------
    mounts, self_cgroup
        The files to read (fixtures in tests).
    root
        Force the base folder (default ``$THROTTLELAB_CGROUP_ROOT``); its version
        is told by its files (``cgroup.controllers`` means v2).
    simulated
        The layout is a fixture folder, not a cgroupfs.

    Raises
    ------
    EnvironmentProblem
        Saying what is missing and what is needed.
    """
    root = root or os.environ.get("THROTTLELAB_CGROUP_ROOT")
    if root:
        return _check(_layout_at(Path(root), simulated=simulated))
    mount_list = _read_mounts(Path(mounts))
    own = _own_paths(Path(self_cgroup))
    cpu = next((m for m in mount_list if m[1] == "cgroup" and "cpu" in m[2]), None)
    if cpu is not None:
        acct = next((m for m in mount_list if m[1] == "cgroup" and "cpuacct" in m[2]), None)
        if acct is None:
            raise EnvironmentProblem(f"cgroup v1 'cpu' is mounted at {cpu[0]} but 'cpuacct' is not; need {WHAT_IS_NEEDED}")
        base = cpu[0] / own.get("cpu", "/").lstrip("/")
        acct_base = acct[0] / own.get("cpuacct", "/").lstrip("/")
        # A process in a non-root v1 group may not own its parent: fall back to the root.
        if not os.access(base, os.W_OK):
            base, acct_base = cpu[0], acct[0]
        return _check(CgroupLayout(1, base, acct_base, simulated))
    v2 = next((m for m in mount_list if m[1] == "cgroup2"), None)
    if v2 is None:
        raise EnvironmentProblem(f"no cgroup filesystem with a cpu controller is mounted; need {WHAT_IS_NEEDED}")
    base = v2[0] / own.get("", "/").lstrip("/")
    # Our own v2 cgroup holds processes (us), so it cannot pass controllers down
    # ("no internal processes"): use its parent, the usual delegated folder.
    if base != v2[0] and read_cgroup_file(base / "cgroup.procs", "").split():
        base = base.parent
    return _check(_layout_at(base, simulated=simulated))


def _layout_at(base: Path, *, simulated: bool) -> CgroupLayout:
    if (base / "cgroup.controllers").exists():
        return CgroupLayout(2, base, None, simulated)
    if (base / "cpu.cfs_quota_us").exists():
        acct = base if (base / "cpuacct.usage").exists() else Path(str(base).replace("/cpu", "/cpuacct", 1))
        return CgroupLayout(1, base, acct, simulated)
    raise EnvironmentProblem(f"{base} is not a cgroup folder with a cpu controller; need {WHAT_IS_NEEDED}")


def _check(layout: CgroupLayout) -> CgroupLayout:
    if layout.version == 2:
        controllers = read_cgroup_file(layout.base / "cgroup.controllers", "").split()
        if "cpu" not in controllers:
            raise EnvironmentProblem(
                f"cgroup v2 at {layout.base} has no cpu controller (controllers: {' '.join(controllers) or 'none'}); "
                f"need {WHAT_IS_NEEDED}")
    for d in filter(None, (layout.base, layout.cpuacct_base)):
        if not os.access(d, os.W_OK):
            raise EnvironmentProblem(f"cgroup folder {d} is not writable by uid {os.getuid()}; need {WHAT_IS_NEEDED}")
    return layout


def _read_mounts(path: Path) -> list[tuple[Path, str, set[str]]]:
    out = []
    for line in read_cgroup_file(path, "").splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] in ("cgroup", "cgroup2"):
            out.append((Path(parts[1]), parts[2], set(parts[3].split(","))))
    return out


def _own_paths(path: Path) -> dict[str, str]:
    """controller -> own cgroup path from /proc/self/cgroup ('' for the v2 line)."""
    out: dict[str, str] = {}
    for line in read_cgroup_file(path, "").splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for c in parts[1].split(",") if parts[1] else [""]:
                out[c] = parts[2]
    return out
