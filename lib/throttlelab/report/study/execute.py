"""Execute one notebook with papermill, keeping the executed notebook on failure."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Kernel used for every run: ``python3`` resolves to the ipykernel of the
#: interpreter running throttlelab (the project's venv), not a global one.
KERNEL_NAME = "python3"
#: Kernel log level: ipykernel warns on every start that its loopback TCP is unencrypted.
QUIET_KERNEL = ["--IPKernelApp.log_level=CRITICAL"]  # ERROR still prints "KeyboardInterrupt caught" at shutdown
#: Kernel starts tried per notebook.  jupyter_client picks free ports, then the kernel binds them:
#: another process can take one in between, and the kernel dies before running anything
#: ("Address already in use"; nteract/papermill#511, posit-dev/positron#5799).  No cell has run
#: then, so starting again is safe.
KERNEL_START_ATTEMPTS = 3
#: What papermill raises when the kernel died during start-up.
KERNEL_START_FAILURE = "Kernel died before replying to kernel_info"


@dataclass(frozen=True)
class Execution:
    """Outcome of executing a notebook."""

    ok: bool
    seconds: float
    kernel_start_seconds: float | None
    error: str | None
    output_notebook: Path
    kernel_starts: int = 1


def execute_notebook(notebook: Path, output: Path, parameters: dict[str, Any], *, cwd: Path,
                     timeout_s: float | None = None, verbose: bool = False) -> Execution:
    """Run ``notebook`` with ``parameters`` into ``output``.

    Never raises for a failing notebook: the error (exception name and value)
    is returned and the executed notebook, with the traceback in the failing
    cell, is written to ``output`` all the same.  A kernel that dies while
    starting is started again, up to ``KERNEL_START_ATTEMPTS`` times
    (``Execution.kernel_starts``).  The kernel logs errors only, unless ``verbose``.
    """
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    t0 = time.perf_counter()
    for attempt in range(1, KERNEL_START_ATTEMPTS + 1):
        error = None
        try:
            pm.execute_notebook(
                str(notebook), str(output), parameters=parameters, cwd=str(cwd),
                kernel_name=KERNEL_NAME, progress_bar=False, log_output=False,
                execution_timeout=timeout_s, extra_arguments=[] if verbose else QUIET_KERNEL,
            )
        except PapermillExecutionError as exc:
            error = f"{exc.ename}: {exc.evalue}"
        except Exception as exc:  # kernel died, timeout, bad notebook: report, go on
            error = f"{type(exc).__name__}: {exc}"
            if KERNEL_START_FAILURE in str(exc) and attempt < KERNEL_START_ATTEMPTS:
                continue
        break
    seconds = time.perf_counter() - t0
    return Execution(error is None, seconds, kernel_start_seconds(output), error, output, attempt)


def kernel_start_seconds(executed: Path) -> float | None:
    """Time from papermill's start to the first cell's start (kernel start-up)."""
    import nbformat

    try:
        nb = nbformat.read(str(executed), as_version=4)
        start = _ts(nb.metadata["papermill"]["start_time"])
        firsts = [_ts(c.metadata["papermill"]["start_time"]) for c in nb.cells
                  if c.metadata.get("papermill", {}).get("start_time")]
        return (min(firsts) - start).total_seconds() if firsts and start else None
    except (OSError, KeyError, ValueError, TypeError):
        return None


def _ts(value: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(value) if value else None
