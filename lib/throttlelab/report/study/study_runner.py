"""Run a study: execute each notebook, publish its HTML report, rebuild the index.

Layout written for a study ``S`` and run ``R`` under ``reports/``::

    reports/index.html          every study's runs, status and headline findings
    reports/S/R/notebook.ipynb  the executed notebook (also when it failed)
    reports/S/R/report.html     self-contained HTML, code hidden
    reports/S/R/results.json    machine-readable results written by the notebook
    reports/S/R/run.json        status, error, timings, parameters, provenance
    reports/S/R/*.csv|parquet   the notebook's tables
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from throttlelab import input_log
from throttlelab.report.html import html_export, static_charts
from throttlelab.report.study import provenance, requirements
from throttlelab.report.study.execute import execute_notebook
from throttlelab.report.notebook import read_answer
from throttlelab.report.study.study_file import NotebookRun, Study


@dataclass(frozen=True)
class RunOutcome:
    name: str
    status: str  # ok, failed, skipped
    seconds: float
    kernel_start_seconds: float | None
    error: str | None
    folder: Path


@dataclass(frozen=True)
class StudyOutcome:
    study: str
    outcomes: tuple[RunOutcome, ...]
    seconds: float
    index: Path
    failed: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.failed

    @property
    def kernel_start_share(self) -> float | None:
        """Share of the notebooks' execution time spent starting kernels."""
        ran = [o for o in self.outcomes if o.kernel_start_seconds is not None]
        total = sum(o.seconds for o in ran)
        return sum(o.kernel_start_seconds for o in ran) / total if ran and total > 0 else None


def resolve_parameters(params: dict[str, Any], root: Path) -> dict[str, Any]:
    """Relative paths become absolute paths under the project ``root``.

    A string value is taken for a path when it exists under ``root``, or when
    it has a folder part whose first folder exists there (``data/raw/x`` made
    by an earlier run of the same study).  Notebooks run from their own folder,
    so a study's paths must not stay relative.
    """
    out = {}
    for k, v in params.items():
        if isinstance(v, str) and v and not Path(v).is_absolute():
            p = Path(v)
            if (root / p).exists() or (len(p.parts) > 1 and (root / p.parts[0]).is_dir()):
                v = str((root / p).resolve())
        out[k] = v
    return out


def input_paths(params: dict[str, Any]) -> list[Path]:
    """Parameter values naming an existing file (a folder given as a parameter may be an output: not listed)."""
    return [Path(v) for v in params.values() if isinstance(v, str) and v and Path(v).is_file()]


def inputs_read(folder: Path, params: dict[str, Any], root: Path) -> dict[str, str]:
    """Checksums of what the run read: files named by its parameters and what its notebook's readers recorded."""
    recorded = input_log.read(folder) or []
    paths: list[Path | str] = [*input_paths(params), *recorded]
    return provenance.input_checksums(list(dict.fromkeys(str(p) for p in paths)), root)


def run_one(run: NotebookRun, study: Study, folder: Path, prov: dict[str, Any], log: TextIO | None = None,
            position: int = 0, verbose: bool = False) -> RunOutcome:
    """Execute one run into ``folder`` (emptied first) and write its report."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    params = resolve_parameters(run.parameters, study.root)
    ok, reason = requirements.check(run.requires, params)
    run_prov = {
        "study": study.name, "study_title": study.title, "study_file": str(study.path), "run": run.name,
        "position": position, "section": run.section,
        "notebook": str(run.notebook.relative_to(study.root)) if run.notebook.is_relative_to(study.root) else str(run.notebook),
        "parameters": params, **prov,
        "inputs": inputs_read(folder, params, study.root),
    }
    if not ok:
        _write_run_json(folder, run, "skipped", 0.0, None, reason, run_prov)
        return RunOutcome(run.name, "skipped", 0.0, None, reason, folder)
    ex = execute_notebook(run.notebook, folder / "notebook.ipynb", {**params, "output_dir": str(folder)},
                          cwd=run.notebook.parent, verbose=verbose)
    status = "ok" if ex.ok else "failed"
    run_prov["inputs"] = inputs_read(folder, params, study.root)  # what the notebook read, now that it has run
    answer = read_answer(folder)
    header = html_export.header_html(run.title, status, ex.error, run_prov, answer)
    try:
        html_export.export_html(ex.output_notebook, folder / "report.html", header=header)
    except Exception as exc:  # a report must exist even when conversion fails
        status, error = "failed", f"HTML export failed: {type(exc).__name__}: {exc}"
        (folder / "report.html").write_text(
            f"<!DOCTYPE html><meta charset=utf-8>{html_export.header_html(run.title, status, error, run_prov, answer)}")
        ex = replace(ex, ok=False, error=error)
    _write_run_json(folder, run, status, ex.seconds, ex.kernel_start_seconds, ex.error, run_prov)
    return RunOutcome(run.name, status, ex.seconds, ex.kernel_start_seconds, ex.error, folder)


def run_study(study: Study, reports_dir: Path, *, jobs: int = 1, log: TextIO | None = None,
              verbose: bool = False, progress: bool | None = None) -> StudyOutcome:
    """Run every notebook of ``study``; failures are reported, the others go on.

    Parameters
    ----------
    jobs
        Notebooks executed at once (each in its own kernel).  Runs that need
        the local cgroup backend always run alone, after the others, so that
        their timings are not disturbed by the study itself.
    log
        Where progress goes (default: the current ``sys.stderr``): a progress bar over the notebooks (elapsed, time
        left) and one line per finished notebook with its answer.
    verbose
        Also a line when each notebook starts, every headline, and the
        kernels' own log messages.
    progress
        Show the progress bar (default: when ``log`` is a terminal).
    """
    from throttlelab.report.html.index import write_index

    log = log if log is not None else sys.stderr  # looked up now: stderr may have been replaced since import

    t0 = time.perf_counter()
    prov = provenance.collect(study.root)
    n = len(study.runs)
    order = {r.name: i for i, r in enumerate(study.runs, 1)}
    alone = {"local_cgroup", "node_cluster"}  # measuring runs: not disturbed by the study itself
    shared = [r for r in study.runs if not alone & set(r.requires)]
    exclusive = [r for r in study.runs if alone & set(r.requires)]
    results: dict[str, RunOutcome] = {}
    bar = _ProgressBar(n, study.name, log, enabled=_isatty(log) if progress is None else progress)

    def start(run: NotebookRun) -> None:
        if verbose:
            bar.write(f"[{order[run.name]}/{n}] {study.name}/{run.name} ({run.notebook.name}) ...")

    def done(out: RunOutcome) -> None:
        results[out.name] = out
        downloadable_notebook(out.folder / "notebook.ipynb")
        bar.write(finished_line(out, order[out.name], n, study.name, verbose=verbose))
        bar.update()

    try:
        if jobs > 1 and len(shared) > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed

            with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
                futures = {}
                for run in shared:
                    start(run)
                    futures[pool.submit(run_one, run, study, reports_dir / study.name / run.name, prov, None,
                                        order[run.name], verbose)] = run
                for fut in as_completed(futures):
                    done(fut.result())
        else:
            for run in shared:
                start(run)
                done(run_one(run, study, reports_dir / study.name / run.name, prov, log, order[run.name], verbose))
        for run in exclusive:
            start(run)
            done(run_one(run, study, reports_dir / study.name / run.name, prov, log, order[run.name], verbose))
    finally:
        bar.close()
    outcomes = tuple(results[r.name] for r in study.runs)
    index = write_index(reports_dir)
    failed = tuple(o.name for o in outcomes if o.status == "failed")
    return StudyOutcome(study.name, outcomes, time.perf_counter() - t0, index, failed)


def downloadable_notebook(executed: Path) -> None:
    """Give the executed notebook a PNG beside each chart and drop the script HTML (the report is written).

    Runs in the study's own process: vl_convert's runtime threads do not survive a fork.
    """
    if executed.exists():
        static_charts.add_static_images(executed)
        static_charts.for_download(executed)


def finished_line(out: RunOutcome, position: int, n: int, study: str, *, verbose: bool = False) -> str:
    """One line for a finished notebook: status, time and its answer (or why it has none).

    >>> o = RunOutcome("cpu", "ok", 12.34, None, None, Path("/nonexistent"))
    >>> finished_line(o, 2, 6, "published")
    '[2/6] ok      published/cpu  12 s  (no answer recorded)'
    """
    head = f"[{position}/{n}] {out.status:<7} {study}/{out.name}  {out.seconds:.0f} s  "
    if out.status != "ok":
        return head + html_export.one_line(out.error)
    doc = read_answer(out.folder)
    lines = [doc["answer"] or (doc["headlines"][0] if doc["headlines"] else "(no answer recorded)")]
    if verbose:
        lines += [f"    - {h}" for h in doc["headlines"]]
    return head + "\n".join(lines)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class _ProgressBar:
    """A tqdm bar over the notebooks, refreshed every second so elapsed and time left keep moving."""

    def __init__(self, total: int, name: str, log: TextIO, *, enabled: bool) -> None:
        import threading

        self.log, self.bar, self._stop = log, None, threading.Event()
        if enabled:
            import shutil

            from tqdm import tqdm

            width = shutil.get_terminal_size((100, 24)).columns or 100
            self.bar = tqdm(total=total, desc=name, unit="notebook", file=log, ncols=min(width, 120), leave=True,
                            bar_format="{desc}: {n_fmt}/{total_fmt} notebooks |{bar}| {elapsed} elapsed, ~{remaining} left")
            threading.Thread(target=self._tick, daemon=True).start()

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            self.bar.refresh()

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.log)
        else:
            print(text, file=self.log, flush=True)

    def update(self) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        self._stop.set()
        if self.bar is not None:
            self.bar.close()


def _write_run_json(folder: Path, run: NotebookRun, status: str, seconds: float,
                    kernel_s: float | None, error: str | None, prov: dict[str, Any]) -> None:
    answer = read_answer(folder)
    doc = {
        "name": run.name, "title": run.title, "study_title": prov.get("study_title"),
        "position": prov.get("position", 0), "section": prov.get("section", "runs"),
        "status": status, "error": error,
        "seconds": round(seconds, 3), "kernel_start_seconds": kernel_s,
        "answer": answer["answer"], "rests_on": answer["rests_on"],
        "headlines": answer["headlines"], "report": "report.html" if status != "skipped" else None,
        "provenance": prov,
    }
    (folder / "run.json").write_text(json.dumps(doc, indent=2, default=str) + "\n")
