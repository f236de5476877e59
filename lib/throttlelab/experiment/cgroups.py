"""CPU cgroups on this machine: detect v1 or v2, create, limit, join, read, remove.

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

Naming
------
Everything lives under ``<base>/throttlelab/o<pid>-<starttime>/``, one owner
folder per process (so concurrent sweeps never touch each other's groups);
the owner folder holds one cgroup per run and the noisy neighbour.  An owner
folder whose process is gone is an *orphan*: :func:`remove_orphans` kills what
still runs in it and removes it.

Set ``THROTTLELAB_CGROUP_ROOT`` to a delegated v2 folder (or a v1 cpu
hierarchy folder) to choose the base explicitly.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from throttlelab.errors import EnvironmentProblem

PARENT = "throttlelab"
_OWNER = re.compile(r"^o(?P<pid>\d+)-(?P<start>\d+)$")
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


@dataclass(frozen=True)
class Counters:
    """One reading of a cgroup's CPU counters.

    Attributes
    ----------
    cpu_stat
        ``cpu.stat`` as the kernel prints it (v1: times in ns; v2: in us).
    usage_ns
        Cumulative CPU usage in ns (v1 ``cpuacct.usage``, v2 ``usage_usec * 1000``).
    cpu_max
        ``"<quota> <period>"`` (v1: ``cfs_quota_us cfs_period_us``, quota -1 = none).
    """

    cpu_stat: dict[str, int] = field(default_factory=dict)
    usage_ns: int = 0
    cpu_max: str = ""

    @property
    def nr_periods(self) -> int:
        return self.cpu_stat.get("nr_periods", 0)

    @property
    def nr_throttled(self) -> int:
        return self.cpu_stat.get("nr_throttled", 0)

    @property
    def throttled_seconds(self) -> float:
        if "throttled_time" in self.cpu_stat:
            return self.cpu_stat["throttled_time"] / 1e9
        return self.cpu_stat.get("throttled_usec", 0) / 1e6

    @property
    def cpu_seconds(self) -> float:
        return self.usage_ns / 1e9


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
    if base != v2[0] and _read(base / "cgroup.procs").split():
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
        controllers = _read(layout.base / "cgroup.controllers").split()
        if "cpu" not in controllers:
            raise EnvironmentProblem(
                f"cgroup v2 at {layout.base} has no cpu controller (controllers: {' '.join(controllers) or 'none'}); "
                f"need {WHAT_IS_NEEDED}")
    for d in filter(None, (layout.base, layout.cpuacct_base)):
        if not os.access(d, os.W_OK):
            raise EnvironmentProblem(f"cgroup folder {d} is not writable by uid {os.getuid()}; need {WHAT_IS_NEEDED}")
    return layout


def owner_name(pid: int | None = None) -> str:
    """``o<pid>-<starttime>`` of a process (default: this one)."""
    pid = os.getpid() if pid is None else pid
    return f"o{pid}-{_start_time(pid)}"


class Cgroup:
    """One CPU cgroup: its folder in the cpu hierarchy (and the cpuacct one in v1).

    Parameters
    ----------
    layout
        From :func:`detect_layout`.
    relpath
        Path below ``<base>/throttlelab``, e.g. ``"o123-456/l500m-t2-c0-r0-abc123"``.
    """

    def __init__(self, layout: CgroupLayout, relpath: str):
        self.layout = layout
        self.relpath = relpath
        self.dir = layout.parent / relpath
        self.acct_dir = layout.cpuacct_base / PARENT / relpath if layout.version == 1 else self.dir

    def __repr__(self) -> str:
        return f"Cgroup({str(self.dir)!r})"

    @property
    def dirs(self) -> list[Path]:
        """Its folders (two in v1 with separate hierarchies)."""
        return list(dict.fromkeys([self.dir, self.acct_dir]))

    def create(self) -> Cgroup:
        """Make the folders (and, in v2, enable the cpu controller on the way down).

        Raises
        ------
        EnvironmentProblem
            If the layout's base folders do not exist (nothing is created outside them).
        """
        for base in filter(None, (self.layout.base, self.layout.cpuacct_base)):
            if not base.is_dir():
                raise EnvironmentProblem(f"cgroup folder {base} does not exist; need {WHAT_IS_NEEDED}")
        if self.layout.version == 2:
            _enable_cpu_v2(self.layout.base, self.dir)
        for d in self.dirs:
            d.mkdir(parents=True, exist_ok=True)
        return self

    def set_limit(self, quota_us: int | None, period_us: int = 100_000, burst_us: int | None = None) -> None:
        """Write the CFS quota and period (``None`` = unlimited) and the burst (ignored when unlimited).

        The kernel refuses a burst larger than the quota (``OSError`` EINVAL).
        """
        if self.layout.version == 1:
            _write(self.dir / "cpu.cfs_period_us", str(period_us))
            _write(self.dir / "cpu.cfs_quota_us", str(-1 if quota_us is None else quota_us))
            burst_file = self.dir / "cpu.cfs_burst_us"
        else:
            _write(self.dir / "cpu.max", f"{'max' if quota_us is None else quota_us} {period_us}")
            burst_file = self.dir / "cpu.max.burst"
        if burst_us and quota_us is not None:  # a burst only means something under a quota
            if not (burst_file.exists() or self.layout.simulated):
                raise EnvironmentProblem(f"this kernel has no CFS burst ({burst_file.name} missing); remove burst_us")
            _write(burst_file, str(burst_us))

    def set_weight(self, tasks: float) -> None:
        """Give the cgroup the CPU weight of ``tasks`` nice-0 tasks (v1 ``cpu.shares``, v2 ``cpu.weight``).

        Against processes outside it, a cgroup competes as one scheduling entity
        with its weight: by default that of a single task, whatever number of
        threads it holds.
        """
        if self.layout.version == 1:
            _write(self.dir / "cpu.shares", str(max(2, min(262144, round(1024 * tasks)))))
        else:
            _write(self.dir / "cpu.weight", str(max(1, min(10000, round(100 * tasks)))))

    def open_procs(self) -> list[int]:
        """Open each ``cgroup.procs`` for writing; a child writes its pid to them before exec.

        The caller closes the descriptors (see :func:`join_fds`).
        """
        return [os.open(d / "cgroup.procs", os.O_WRONLY | (os.O_CREAT if self.layout.simulated else 0), 0o644)
                for d in self.dirs]

    def add(self, pid: int) -> None:
        """Move a running process into the cgroup (all its hierarchies)."""
        for d in self.dirs:
            _write(d / "cgroup.procs", str(pid))

    def pids(self) -> list[int]:
        """Process ids in the cgroup (any hierarchy)."""
        out: set[int] = set()
        for d in self.dirs:
            for name in ("cgroup.procs", "tasks"):
                with contextlib.suppress(OSError):
                    out.update(int(x) for x in _read(d / name).split())
        return sorted(out)

    def read(self) -> Counters:
        """Read ``cpu.stat``, usage and the limit now."""
        stat = _read_kv(self.dir / "cpu.stat")
        if self.layout.version == 1:
            usage = int(_read(self.acct_dir / "cpuacct.usage") or 0)
            cpu_max = f"{_read(self.dir / 'cpu.cfs_quota_us').strip()} {_read(self.dir / 'cpu.cfs_period_us').strip()}"
        else:
            usage = stat.get("usage_usec", 0) * 1000
            cpu_max = _read(self.dir / "cpu.max").strip()
        return Counters(stat, usage, cpu_max)

    def kill(self, sig: int = signal.SIGKILL, *, wait_s: float = 5.0) -> None:
        """Send ``sig`` to every process in the cgroup; with SIGKILL wait until it is empty."""
        deadline = time.monotonic() + wait_s
        while True:
            pids = self.pids()
            if not pids or self.layout.simulated:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            if sig != signal.SIGKILL or time.monotonic() > deadline:
                return
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what runs inside and remove the folders (children first).  Idempotent."""
        for d in self.dirs:
            if d.exists():
                remove_tree(d, self.layout.simulated)


def _enable_cpu_v2(base: Path, target: Path) -> None:
    """Write ``+cpu`` to ``subtree_control`` of every folder from ``base`` down to ``target``'s parent."""
    rel = target.relative_to(base).parts
    for i in range(len(rel)):
        d = base.joinpath(*rel[:i])
        d.mkdir(exist_ok=True)
        ctl = d / "cgroup.subtree_control"
        if "cpu" in _read(ctl).split():
            continue
        try:
            _write(ctl, "+cpu")
        except OSError as exc:
            raise EnvironmentProblem(
                f"cannot enable the cpu controller in {ctl} ({os.strerror(exc.errno or 0)}); in cgroup v2 a folder "
                f"with processes in it cannot pass controllers down: move them to a leaf, or point "
                f"THROTTLELAB_CGROUP_ROOT to an empty delegated folder") from None


def remove_tree(d: Path, simulated: bool) -> None:
    """Remove a cgroup folder and its children, SIGKILLing what runs inside first."""
    for child in sorted((p for p in d.iterdir() if p.is_dir()), key=lambda p: -len(p.parts)):
        remove_tree(child, simulated)
    if simulated:
        shutil.rmtree(d, ignore_errors=True)
        return
    pids = []
    for name in ("cgroup.procs",):
        with contextlib.suppress(OSError):
            pids = [int(x) for x in _read(d / name).split()]
    deadline = time.monotonic() + 5
    while True:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        try:
            os.rmdir(d)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                raise
        time.sleep(0.01)
        with contextlib.suppress(OSError):
            pids = [int(x) for x in _read(d / "cgroup.procs").split()]


def find_orphans(layout: CgroupLayout) -> list[Path]:
    """Owner folders under ``throttlelab/`` whose process is gone (in any hierarchy)."""
    out = []
    for parent in layout.parents:
        if not parent.is_dir():
            continue
        for d in sorted(parent.iterdir()):
            m = _OWNER.match(d.name)
            if d.is_dir() and m and not _owner_alive(int(m["pid"]), int(m["start"])):
                out.append(d)
    return out


def remove_orphans(layout: CgroupLayout) -> list[str]:
    """Kill the processes of orphaned owner folders and remove them; return their names."""
    removed = []
    for d in find_orphans(layout):
        remove_tree(d, layout.simulated)
        removed.append(str(d))
    return removed


# -- small helpers -------------------------------------------------------------
def _read(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""


def _read_kv(path: Path) -> dict[str, int]:
    out = {}
    for line in _read(path).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            out[parts[0]] = int(parts[1])
    return out


def _write(path: Path, text: str) -> None:
    # cgroupfs files always exist; creating is only for fixture folders.
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC | (0 if path.exists() else os.O_CREAT), 0o644)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _read_mounts(path: Path) -> list[tuple[Path, str, set[str]]]:
    out = []
    for line in _read(path).splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] in ("cgroup", "cgroup2"):
            out.append((Path(parts[1]), parts[2], set(parts[3].split(","))))
    return out


def _own_paths(path: Path) -> dict[str, str]:
    """controller -> own cgroup path from /proc/self/cgroup ('' for the v2 line)."""
    out: dict[str, str] = {}
    for line in _read(path).splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for c in parts[1].split(",") if parts[1] else [""]:
                out[c] = parts[2]
    return out


def _start_time(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[19])


def _owner_alive(pid: int, start: int) -> bool:
    return _start_time(pid) == start and start != 0
