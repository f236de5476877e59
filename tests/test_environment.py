"""pyproject.toml is the single source of dependencies; environment.yml is its conda face."""

import re
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def test_environment_yml_installs_pyproject():
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    deps = env["dependencies"]
    assert "python=3.11" in deps
    assert "pip" in deps
    pip = next(d["pip"] for d in deps if isinstance(d, dict) and "pip" in d)
    assert pip == ["-e .[dev]"], "environment.yml must install the package itself, not repeat dependencies"
    names = {re.split(r"[<>=!~ \[]", d)[0] for d in deps if isinstance(d, str)}
    assert names <= {"python", "pip"}, f"dependencies belong in pyproject.toml, not environment.yml: {names}"


def test_pyproject_pins_majors():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    reqs = project["dependencies"] + project["optional-dependencies"]["dev"]
    for req in reqs:
        assert ">=" in req and "<" in req, f"{req}: pin the major version (>=X,<Y)"
    named = {re.split(r"[<>=!~ \[]", r)[0].lower() for r in project["dependencies"]}
    for pkg in ("jupyterlab", "papermill", "polars", "altair", "scipy", "kubernetes"):
        assert pkg in named, pkg


def test_ci_runs_readme_test_command():
    readme = (REPO / "README.md").read_text()
    assert "make test" in readme and "make report" in readme
    assert "make test" in (REPO / ".ci" / "run").read_text()
