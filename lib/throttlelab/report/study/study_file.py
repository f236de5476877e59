"""Study files: which notebooks to run, with which papermill parameters.

A study is YAML::

    name: default                # folder under reports/
    title: throttlelab default study
    section: runs                # index section of its runs: cluster, runs (default) or examples
    runs:
      - name: ffmpeg-cpu-limits  # folder under reports/<study>/
        notebook: notebooks/03_cpu_limits.ipynb
        title: CPU limits of the published ffmpeg sweep
        parameters: {runs_path: ""}
        requires: [local_cgroup]  # optional; unmet -> run skipped with the reason
        section: examples         # optional; else the study's
    include: [published.yaml]     # optional; runs of other studies (relative paths), first

The keys are those of :class:`StudyFile` (unknown keys are errors naming the file and line).


Relative paths (the notebook, and parameters whose value is a relative path
that exists) are resolved against the project root: the nearest folder above
the study file that holds ``pyproject.toml`` (else the study file's folder).

Anything not understood is an error naming the file and line: a key that is
not one of the above, and a parameter that the notebook does not define (the
message lists the notebook's parameters, read with ``papermill.inspect_notebook``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from throttlelab.config_file import ConfigModel, SimpleName, config_error, read_yaml, validate, where
from throttlelab.errors import SpecError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class NotebookRun:
    """One notebook execution of a study."""

    name: str
    notebook: Path
    title: str
    parameters: dict[str, Any] = field(default_factory=dict)
    requires: tuple[str, ...] = ()
    section: str = "runs"


Section = Literal["cluster", "runs", "examples"]


@dataclass(frozen=True)
class Study:
    """A parsed study file."""

    name: str
    title: str
    description: str
    path: Path
    root: Path
    runs: tuple[NotebookRun, ...]

    def select(self, names: list[str] | None) -> "Study":
        """The study restricted to runs named in ``names`` (all when None)."""
        if not names:
            return self
        unknown = sorted(set(names) - {r.name for r in self.runs})
        if unknown:
            raise SpecError(f"{self.path}: no run named {', '.join(unknown)}")
        runs = tuple(r for r in self.runs if r.name in names)
        return Study(self.name, self.title, self.description, self.path, self.root, runs)


def project_root(start: Path) -> Path:
    for p in [start, *start.parents]:
        if (p / "pyproject.toml").exists():
            return p
    return start


class StudyRunEntry(ConfigModel):
    """One entry of a study's ``runs:`` list: a notebook and its papermill parameters."""

    name: SimpleName = Field(description="run name: folder under reports/<study>/")
    notebook: str = Field(description="notebook path, relative to the project root")
    title: str | None = Field(None, description="title shown in the index (default: the name)")
    parameters: dict[str, Any] = Field(default_factory=dict,
                                       description="papermill parameters; each must be a parameter of the notebook")
    requires: list[str] | str = Field(default_factory=list,
                                      description="what the run needs (local_cgroup, ffmpeg, cluster ...); unmet: skipped")
    section: Section | None = Field(None, description="index section of this run (default: the study's section)")


class StudyFile(ConfigModel):
    """A study file: which notebooks to run, with which parameters (``studies/*.yaml``)."""

    name: SimpleName | None = Field(None, description="folder under reports/ (default: file name)")
    title: str | None = Field(None, description="title of the study")
    description: str = Field("", description="one paragraph shown in the index")
    section: Section = Field("runs", description="index section of the study's runs: cluster (right-sizing from a live "
                                                "Prometheus), runs (sweeps on this machine or your nodes) or examples "
                                                "(published write-ups, bundled samples); included studies keep theirs")
    include: list[str] = Field(default_factory=list, description="other study files whose runs come first")
    runs: list[StudyRunEntry] = Field(default_factory=list, description="notebook runs")


def load_study(path: str | Path, *, _depth: int = 0) -> Study:
    """Parse and check a study file.

    Raises
    ------
    SpecError
        Naming the file, the line and the offending key when the study cannot be used.
    """
    path = Path(path)
    if not path.is_file():
        raise SpecError(f"{path}: study file not found")
    doc, lines = read_yaml(path)
    model = validate(StudyFile, doc, source=path, lines=lines)
    root = project_root(path.resolve().parent)
    name = model.name or _name(path.stem, path, "name")
    included: list[NotebookRun] = []
    for i, inc in enumerate(model.include):
        inc_path = (path.parent / inc).resolve()
        if inc_path == path.resolve() or _depth > 5:
            raise config_error(path, lines, ("include", i), f"{inc!r} is circular")
        included.extend(load_study(inc_path, _depth=_depth + 1).runs)
    if not (model.runs or included):
        raise config_error(path, lines, ("runs",), "must be a non-empty list")
    runs, seen = list(included), {r.name for r in included}
    for i, raw in enumerate(model.runs):
        if raw.name in seen:
            raise config_error(path, lines, ("runs", i, "name"), f"{raw.name!r} is used twice")
        seen.add(raw.name)
        nb_path = (root / raw.notebook).resolve()
        if not nb_path.is_file():
            raise config_error(path, lines, ("runs", i, "notebook"), f"{raw.notebook!r} not found under {root}")
        if "output_dir" in raw.parameters:
            raise config_error(path, lines, ("runs", i, "parameters", "output_dir"), "is set by the runner")
        for pname in raw.parameters:
            check_parameter(nb_path, pname, f"{where(path, lines, ('runs', i, 'parameters', pname))}: "
                                            f"key 'runs[{i}].parameters.{pname}'")
        requires = [raw.requires] if isinstance(raw.requires, str) else list(raw.requires)
        runs.append(NotebookRun(raw.name, nb_path, raw.title or raw.name, dict(raw.parameters), tuple(requires),
                                raw.section or model.section))
    return Study(name, model.title or name, model.description, path, root, tuple(runs))


def with_parameters(study: Study, parameters: dict[str, Any]) -> Study:
    """``study`` with ``parameters`` (from the command line) set in every run.

    Raises
    ------
    SpecError
        When a run's notebook does not define one of them (the message lists its parameters).
    """
    if not parameters:
        return study
    if "output_dir" in parameters:
        raise SpecError("command line: -p output_dir is set by the runner (use --reports)")
    runs = []
    for r in study.runs:
        for name in parameters:
            check_parameter(r.notebook, name, f"command line: -p {name} (run {r.name})")
        runs.append(replace(r, parameters={**r.parameters, **parameters}))
    return Study(study.name, study.title, study.description, study.path, study.root, tuple(runs))


def notebook_parameters(notebook: Path) -> dict[str, dict[str, Any]]:
    """The parameters a notebook defines (its cell tagged ``parameters``), by name."""
    import papermill as pm

    return dict(pm.inspect_notebook(str(notebook)))


def check_parameter(notebook: Path, name: str, where: str) -> None:
    """Raise :class:`SpecError` at ``where`` unless ``notebook`` defines parameter ``name``.

    The message lists the notebook's parameters (with their defaults) and the closest match.
    """
    import difflib

    known = notebook_parameters(notebook)
    if name in known:
        return
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    listing = ", ".join(f"{k}={v.get('default')}" for k, v in known.items() if k != "output_dir") or "none"
    raise SpecError(f"{where}: {notebook.name} has no parameter {name!r}{hint}; its parameters: {listing}")


def _name(value: Any, path: Path, key: str) -> str:
    if not isinstance(value, str) or not _NAME.match(value):
        raise SpecError(f"{path}: {key} must be a simple name (letters, digits, '-', '_', '.'), got {value!r}")
    return value
