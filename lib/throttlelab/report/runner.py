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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from throttlelab.report import html_export, provenance, requirements
from throttlelab.report.execute import execute_notebook
from throttlelab.report.study import NotebookRun, Study


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
        ks = [o.kernel_start_seconds for o in self.outcomes if o.kernel_start_seconds is not None]
        return sum(ks) / self.seconds if ks and self.seconds > 0 else None


def resolve_parameters(params: dict[str, Any], root: Path) -> dict[str, Any]:
    """Relative path values that exist under ``root`` become absolute paths."""
    out = {}
    for k, v in params.items():
        if isinstance(v, str) and v and not Path(v).is_absolute() and (root / v).exists():
            v = str((root / v).resolve())
        out[k] = v
    return out


def input_paths(params: dict[str, Any]) -> list[Path]:
    return [Path(v) for v in params.values() if isinstance(v, str) and v and Path(v).exists()]


def run_one(run: NotebookRun, study: Study, folder: Path, prov: dict[str, Any], log: TextIO) -> RunOutcome:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    params = resolve_parameters(run.parameters, study.root)
    ok, reason = requirements.check(run.requires)
    run_prov = {
        "study": study.name, "study_file": str(study.path), "run": run.name,
        "notebook": str(run.notebook.relative_to(study.root)) if run.notebook.is_relative_to(study.root) else str(run.notebook),
        "parameters": params, **prov,
        "inputs": provenance.input_checksums(input_paths(params) + default_inputs(study.root), study.root),
    }
    if not ok:
        _write_run_json(folder, run, "skipped", 0.0, None, reason, run_prov)
        return RunOutcome(run.name, "skipped", 0.0, None, reason, folder)
    ex = execute_notebook(run.notebook, folder / "notebook.ipynb", {**params, "output_dir": str(folder)},
                          cwd=run.notebook.parent)
    status = "ok" if ex.ok else "failed"
    header = html_export.header_html(run.title, status, ex.error, run_prov)
    try:
        html_export.export_html(ex.output_notebook, folder / "report.html", header=header)
    except Exception as exc:  # a report must exist even when conversion fails
        status, error = "failed", f"HTML export failed: {type(exc).__name__}: {exc}"
        (folder / "report.html").write_text(f"<!DOCTYPE html><meta charset=utf-8>{html_export.header_html(run.title, status, error, run_prov)}")
        ex = type(ex)(False, ex.seconds, ex.kernel_start_seconds, error, ex.output_notebook)
    _write_run_json(folder, run, status, ex.seconds, ex.kernel_start_seconds, ex.error, run_prov)
    return RunOutcome(run.name, status, ex.seconds, ex.kernel_start_seconds, ex.error, folder)


def default_inputs(root: Path) -> list[Path]:
    published = root / "data" / "published"
    return sorted(published.glob("*.csv")) if published.is_dir() else []


def run_study(study: Study, reports_dir: Path, *, log: TextIO = sys.stderr) -> StudyOutcome:
    """Run every notebook of ``study``; failures are reported, the others go on."""
    from throttlelab.report.index import write_index

    t0 = time.perf_counter()
    prov = provenance.collect(study.root)
    outcomes = []
    n = len(study.runs)
    for i, run in enumerate(study.runs, 1):
        print(f"[{i}/{n}] {study.name}/{run.name} ({run.notebook.name}) ...", file=log, flush=True)
        out = run_one(run, study, reports_dir / study.name / run.name, prov, log)
        detail = f" - {out.error}" if out.error else ""
        print(f"[{i}/{n}] {study.name}/{run.name}: {out.status} in {out.seconds:.1f} s{detail}", file=log, flush=True)
        outcomes.append(out)
    index = write_index(reports_dir)
    failed = tuple(o.name for o in outcomes if o.status == "failed")
    return StudyOutcome(study.name, tuple(outcomes), time.perf_counter() - t0, index, failed)


def _write_run_json(folder: Path, run: NotebookRun, status: str, seconds: float,
                    kernel_s: float | None, error: str | None, prov: dict[str, Any]) -> None:
    headlines_path = folder / "headlines.json"
    headlines = json.loads(headlines_path.read_text()) if headlines_path.exists() else []
    doc = {
        "name": run.name, "title": run.title, "status": status, "error": error,
        "seconds": round(seconds, 3), "kernel_start_seconds": kernel_s,
        "headlines": headlines, "report": "report.html" if status != "skipped" else None,
        "provenance": prov,
    }
    (folder / "run.json").write_text(json.dumps(doc, indent=2, default=str) + "\n")
