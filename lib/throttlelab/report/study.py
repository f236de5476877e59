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


Relative paths (the notebook, and parameters whose value is a relative path
that exists) are resolved against the project root: the nearest folder above
the study file that holds ``pyproject.toml`` (else the study file's folder).

Anything not understood is an error naming the file and line: a key that is
not one of the above, and a parameter that the notebook does not define (the
message lists the notebook's parameters, read with ``papermill.inspect_notebook``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from throttlelab.errors import SpecError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
STUDY_KEYS = ("name", "title", "description", "include", "runs")
RUN_KEYS = ("name", "notebook", "title", "parameters", "requires")


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


def load_study(path: str | Path, *, _depth: int = 0) -> Study:
    """Parse and check a study file.

    Raises
    ------
    SpecError
        Naming the file and the offending key when the study cannot be used.
    """
    import yaml

    path = Path(path)
    if not path.is_file():
        raise SpecError(f"{path}: study file not found")
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise SpecError(f"{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(doc, dict):
        raise SpecError(f"{path}: a study is a mapping with 'name' and 'runs'")
    lines = key_lines(path.read_text(encoding="utf-8"))
    _known_keys(doc, STUDY_KEYS, path, lines, ())
    root = project_root(path.resolve().parent)
    name = _name(doc.get("name", path.stem), path, "name")
    included: list[NotebookRun] = []
    for inc in doc.get("include") or []:
        if not isinstance(inc, str):
            raise SpecError(f"{path}: include must list study files")
        inc_path = (path.parent / inc).resolve()
        if inc_path == path.resolve() or _depth > 5:
            raise SpecError(f"{path}: include {inc!r} is circular")
        included.extend(load_study(inc_path, _depth=_depth + 1).runs)
    raw_runs = doc.get("runs") or []
    if not isinstance(raw_runs, list) or not (raw_runs or included):
        raise SpecError(f"{path}: 'runs' must be a non-empty list")
    runs, seen = list(included), {r.name for r in included}
    for i, raw in enumerate(raw_runs):
        key = f"runs[{i}]"
        if not isinstance(raw, dict):
            raise SpecError(f"{path}: {key} must be a mapping")
        _known_keys(raw, RUN_KEYS, path, lines, ("runs", i))
        rname = _name(raw.get("name"), path, f"{key}.name")
        if rname in seen:
            raise SpecError(f"{path}: {key}.name {rname!r} is used twice")
        seen.add(rname)
        nb = raw.get("notebook")
        if not isinstance(nb, str):
            raise SpecError(f"{path}: {key}.notebook must be a path")
        nb_path = (root / nb).resolve()
        if not nb_path.is_file():
            raise SpecError(f"{path}: {key}.notebook {nb!r} not found under {root}")
        params = raw.get("parameters") or {}
        if not isinstance(params, dict):
            raise SpecError(f"{path}: {key}.parameters must be a mapping")
        if "output_dir" in params:
            raise SpecError(f"{path}: {key}.parameters.output_dir is set by the runner")
        for pname in params:
            check_parameter(nb_path, pname, f"{_where(path, lines, ('runs', i, 'parameters', pname))}: "
                                            f"{key}.parameters.{pname}")
        requires = raw.get("requires") or []
        if isinstance(requires, str):
            requires = [requires]
        runs.append(NotebookRun(rname, nb_path, str(raw.get("title") or rname), dict(params), tuple(requires)))
    return Study(name, str(doc.get("title") or name), str(doc.get("description") or ""), path, root, tuple(runs))


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
        runs.append(NotebookRun(r.name, r.notebook, r.title, {**r.parameters, **parameters}, r.requires))
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


def key_lines(text: str) -> dict[tuple, int]:
    """1-based line of every mapping key in a YAML document, by its path (``("runs", 0, "name")``)."""
    import yaml

    out: dict[tuple, int] = {}

    def walk(node: Any, at: tuple) -> None:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                key = (*at, k.value)
                out[key] = k.start_mark.line + 1
                walk(v, key)
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                out[(*at, i)] = v.start_mark.line + 1
                walk(v, (*at, i))

    try:
        walk(yaml.compose(text), ())
    except yaml.YAMLError:
        pass
    return out


def _where(path: Path, lines: dict[tuple, int], key: tuple) -> str:
    for n in range(len(key), -1, -1):
        if key[:n] in lines:
            return f"{path}:{lines[key[:n]]}"
    return str(path)


def _known_keys(raw: dict, allowed: tuple[str, ...], path: Path, lines: dict[tuple, int], at: tuple) -> None:
    import difflib

    for k in raw:
        if k not in allowed:
            close = difflib.get_close_matches(str(k), allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            owner = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(at)) \
                or "the study"
            raise SpecError(f"{_where(path, lines, (*at, k))}: unknown key {k!r} in {owner}{hint}; "
                            f"expected one of: {', '.join(allowed)}")


def _name(value: Any, path: Path, key: str) -> str:
    if not isinstance(value, str) or not _NAME.match(value):
        raise SpecError(f"{path}: {key} must be a simple name (letters, digits, '-', '_', '.'), got {value!r}")
    return value
