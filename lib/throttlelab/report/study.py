"""Study files: which notebooks to run, with which papermill parameters.

A study is YAML::

    name: default                # folder under reports/
    title: throttlelab default study
    runs:
      - name: ffmpeg-cpu-limits  # folder under reports/<study>/
        notebook: notebooks/03_cpu_limits.ipynb
        title: CPU limits of the published ffmpeg sweep
        parameters: {runs_path: ""}
        requires: [local_cgroup]  # optional; unmet -> run skipped with the reason
    include: [published.yaml]     # optional; runs of other studies (relative paths), first

The keys are those of :class:`StudyFile` (unknown keys are errors naming the file and line).


Relative paths (the notebook, and parameters whose value is a relative path
that exists) are resolved against the project root: the nearest folder above
the study file that holds ``pyproject.toml`` (else the study file's folder).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field

from throttlelab.config_file import ConfigModel, SimpleName, config_error, read_yaml, validate
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


class StudyFile(ConfigModel):
    """A study file: which notebooks to run, with which parameters (``studies/*.yaml``)."""

    name: SimpleName | None = Field(None, description="folder under reports/ (default: file name)")
    title: str | None = Field(None, description="title of the study")
    description: str = Field("", description="one paragraph shown in the index")
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
        requires = [raw.requires] if isinstance(raw.requires, str) else list(raw.requires)
        runs.append(NotebookRun(raw.name, nb_path, raw.title or raw.name, dict(raw.parameters), tuple(requires)))
    return Study(name, model.title or name, model.description, path, root, tuple(runs))


def _name(value: Any, path: Path, key: str) -> str:
    if not isinstance(value, str) or not _NAME.match(value):
        raise SpecError(f"{path}: {key} must be a simple name (letters, digits, '-', '_', '.'), got {value!r}")
    return value
