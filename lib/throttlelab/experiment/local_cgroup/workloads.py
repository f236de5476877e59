"""Workload command lines: ffmpeg transcode, native CPU burner, Go spinner, user command.

Each workload kind turns a thread count (``'auto'`` or an integer as text)
into an argv and extra environment (:func:`build_command`).  Options come from
the spec's ``workload`` mapping:

``ffmpeg``
    Transcode of the synthetic lavfi ``testsrc2`` source with libx264 to the
    null muxer.  Options: ``duration`` (s of video, default 2), ``size``
    (``640x360``), ``rate`` (30), ``preset`` (``veryfast``), ``frames`` (stop
    after N frames), ``ffmpeg`` (the executable; default ``ffmpeg`` on PATH, else
    imageio-ffmpeg's bundled one).  ``threads: auto`` omits ``-threads`` (ffmpeg
    then sizes its pool from the host's CPU count, as in the write-up).
``burner``
    Fixed CPU work (``cpu_seconds``, total, default 1.0) split over N native
    threads, compiled with ``cc`` on first use into the cache folder; without a
    compiler, N busy Python processes.  ``auto`` = the number of CPUs.
``go``
    A Go program that prints GOMAXPROCS and burns ``work`` units (1e6
    iterations each, default 300) over N goroutines with ``GOMAXPROCS=N``;
    ``auto`` leaves GOMAXPROCS to the runtime (container-aware since Go 1.25).
    Built on first use where ``go`` is installed.
``service``
    A Go HTTP service doing ``work`` units (1e5 iterations each, default 30)
    of CPU work per request, with ``GOMAXPROCS=N`` (``auto``: the runtime's
    choice), driven by the load generator (:mod:`throttlelab.experiment.local_cgroup.service_load`:
    options ``vus``, ``rate``, ``warmup_s``, ``window_s``, ``request_timeout_s``).
    Built on first use where ``go`` is installed.
``command``
    Any command line; ``{threads}`` becomes the thread count text and
    ``{nproc}`` the CPU count.  Split like a shell would (no shell is run).

Builds are cached in ``$THROTTLELAB_CACHE`` (default ``~/.cache/throttlelab``),
outside the repository, keyed by a hash of the source.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from throttlelab.errors import EnvironmentProblem, SpecError
from throttlelab.experiment.sweeps.plan import Workload

GO_CANDIDATES = ("go", "/usr/local/go/bin/go")


@dataclass(frozen=True)
class WorkloadCommand:
    """What to execute for one run.

    Attributes
    ----------
    argv
        The command.
    env
        Extra environment variables (added to the inherited environment).
    """

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)


def cache_dir() -> Path:
    """Folder for compiled helpers (``$THROTTLELAB_CACHE`` or ``~/.cache/throttlelab``)."""
    root = os.environ.get("THROTTLELAB_CACHE") or Path.home() / ".cache" / "throttlelab"
    path = Path(root) / "bin"
    path.mkdir(parents=True, exist_ok=True)
    return path


def build_command(workload: Workload, threads: str) -> WorkloadCommand:
    """The argv and environment of ``workload`` at ``threads`` (``'auto'`` or ``'4'``).

    Raises
    ------
    SpecError
        For a bad workload option.
    EnvironmentProblem
        If the workload's program cannot be found or built.
    """
    nproc = os.cpu_count() or 1
    kind = workload.kind
    if kind == "ffmpeg":
        return WorkloadCommand(ffmpeg_argv(workload, threads))
    if kind == "burner":
        cpu = _number(workload, "cpu_seconds", 1.0)
        return WorkloadCommand(burner_argv(threads, cpu))
    if kind == "go":
        work = int(_number(workload, "work", 300))
        argv = [str(go_spinner()), "-work", str(work), "-goroutines", "0" if threads == "auto" else threads]
        return WorkloadCommand(argv, {} if threads == "auto" else {"GOMAXPROCS": threads})
    if kind == "service":
        work = int(_number(workload, "work", 30))
        argv = [str(go_service()), "-addr", "127.0.0.1:0", "-work", str(work)]
        return WorkloadCommand(argv, {} if threads == "auto" else {"GOMAXPROCS": threads})
    if kind == "command":
        return WorkloadCommand(shlex.split(workload.command.format(threads=threads, nproc=nproc)))
    raise SpecError(f"unknown workload kind {kind!r}")


def work_items(workload: Workload) -> float | None:
    """Items of work one run does, for ``items_per_second``: ffmpeg frames, Go spinner units; else ``None``.

    Examples
    --------
    >>> work_items(Workload("ffmpeg", options={"duration": 2, "rate": 30}))
    60.0
    >>> work_items(Workload("burner")) is None
    True
    """
    if workload.kind == "ffmpeg":
        if workload.option("frames") is not None:
            return _number(workload, "frames", 0)
        return _number(workload, "duration", 2) * _number(workload, "rate", 30)
    if workload.kind == "go":
        return _number(workload, "work", 300)
    return None


def ffmpeg_exe(preferred: str | None = None) -> str:
    """An ffmpeg executable: ``preferred``, ffmpeg on PATH, or imageio-ffmpeg's bundled binary."""
    for cand in filter(None, (preferred, "ffmpeg")):
        found = shutil.which(cand)
        if found:
            return found
    try:
        import imageio_ffmpeg

        return imageio_ffmpeg.get_ffmpeg_exe()
    except Exception as exc:  # noqa: BLE001 - any failure means: no ffmpeg
        raise EnvironmentProblem(f"no ffmpeg found: install it (apt-get install ffmpeg) or imageio-ffmpeg ({exc})") from None


def ffmpeg_argv(workload: Workload, threads: str) -> list[str]:
    """The ffmpeg transcode command for ``threads``."""
    size = str(workload.option("size", "640x360"))
    rate = _number(workload, "rate", 30)
    duration = _number(workload, "duration", 2)
    src = f"testsrc2=size={size}:rate={rate:g}:duration={duration:g}"
    argv = [ffmpeg_exe(workload.option("ffmpeg")), "-hide_banner", "-nostdin", "-loglevel", "error",
            "-f", "lavfi", "-i", src, "-c:v", "libx264", "-preset", str(workload.option("preset", "veryfast"))]
    if workload.option("frames") is not None:
        argv += ["-frames:v", str(int(_number(workload, "frames", 0)))]
    if threads != "auto":
        argv += ["-threads", threads]
    return argv + ["-f", "null", "-"]


def burner_argv(threads: str, cpu_seconds: float) -> list[str]:
    """A burner of ``cpu_seconds`` total CPU over ``threads`` threads (<= 0: forever)."""
    exe = native_burner()
    if exe is not None:
        return [str(exe), threads, f"{cpu_seconds:g}"]
    n = (os.cpu_count() or 1) if threads == "auto" else int(threads)
    return [sys.executable, "-c", _PY_BURNER, str(n), f"{cpu_seconds:g}"]


def native_burner() -> Path | None:
    """The compiled C burner (built with ``cc`` on first use); ``None`` without a compiler."""
    src = resources.files("throttlelab.experiment") / "assets" / "burner.c"
    code = src.read_bytes()
    exe = cache_dir() / f"burner-{hashlib.sha1(code).hexdigest()[:10]}"
    if exe.exists():
        return exe
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        return None
    tmp_src = exe.with_suffix(f".{os.getpid()}.c")
    tmp_src.write_bytes(code)
    tmp = exe.with_suffix(f".{os.getpid()}.tmp")
    try:
        subprocess.run([cc, "-O2", "-pthread", "-o", str(tmp), str(tmp_src)], check=True,
                       capture_output=True, timeout=120)
        os.replace(tmp, exe)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError):
        return None
    finally:
        for p in (tmp_src, tmp):
            p.unlink(missing_ok=True)
    return exe


def go_exe() -> str | None:
    """The ``go`` tool, if installed."""
    for cand in GO_CANDIDATES:
        found = shutil.which(cand)
        if found:
            return found
    return None


def go_spinner() -> Path:
    """The compiled Go spinner (built on first use).

    Raises
    ------
    EnvironmentProblem
        If Go is not installed or the build fails.
    """
    return go_program("spin", "go")


def go_service() -> Path:
    """The compiled Go HTTP service (``assets/service/main.go``, built on first use)."""
    return go_program("service", "service")


def go_program(name: str, kind: str) -> Path:
    """Build ``assets/<name>/main.go`` into the cache (keyed by its hash) and return the binary.

    Raises
    ------
    EnvironmentProblem
        If Go is not installed or the build fails.
    """
    src = resources.files("throttlelab.experiment") / "assets" / name / "main.go"
    code = src.read_bytes()
    exe = cache_dir() / f"{name}-{hashlib.sha1(code).hexdigest()[:10]}"
    if exe.exists():
        return exe
    go = go_exe()
    if go is None:
        raise EnvironmentProblem(f"the '{kind}' workload needs the Go toolchain (https://go.dev/dl/) on PATH")
    build = exe.parent / f"{name}-build-{os.getpid()}"
    build.mkdir(exist_ok=True)
    (build / "main.go").write_bytes(code)
    (build / "go.mod").write_text(f"module throttlelab/{name}\n\ngo 1.21\n")
    tmp = exe.with_suffix(f".{os.getpid()}.tmp")
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"}
    try:
        proc = subprocess.run([go, "build", "-o", str(tmp), "."], cwd=build, env=env,
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise EnvironmentProblem(f"building the Go {name} failed: {proc.stderr.strip()[-500:]}")
        os.replace(tmp, exe)
    finally:
        shutil.rmtree(build, ignore_errors=True)
        tmp.unlink(missing_ok=True)
    return exe


def _number(workload: Workload, name: str, default: float) -> float:
    value = workload.option(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(f"workload option '{name}' must be a number, got {value!r}")
    return float(value)


# N busy processes, each burning its share of CPU time (fallback without a C compiler).
_PY_BURNER = """
import os, sys, time
n, total = int(sys.argv[1]), float(sys.argv[2])
per = total / n if total > 0 else float('inf')
kids, child = [], False
for _ in range(n - 1):
    pid = os.fork()
    if pid == 0:
        child = True
        break
    kids.append(pid)
x = 1
while time.process_time() < per:
    for _ in range(10000):
        x = (x * 6364136223846793005 + 1) & 0xFFFFFFFFFFFFFFFF
if not child:
    for k in kids:
        os.waitpid(k, 0)
    print(f"burner(py) threads={n} cpu_seconds={total:g}")
else:
    os._exit(0)
"""
