"""scripts/install_git_filter.sh (run by ``make setup``): after it, a commit stores notebooks without outputs."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "install_git_filter.sh"
GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, capture_output=True, text=True, check=True).stdout


def _install(repo: Path) -> str:
    proc = subprocess.run(["bash", str(SCRIPT), sys.executable], cwd=repo, env=GIT_ENV,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _notebook_with_outputs() -> str:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print('hello')", execution_count=3)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hello\n")]
    nb.cells = [cell]
    return nbformat.writes(nb)


@pytest.fixture
def repo(tmp_path) -> Path:
    """A fresh clone-like repository with the project's .gitattributes, the filter not yet installed."""
    _git(tmp_path, "init", "-q")
    shutil.copy(REPO / ".gitattributes", tmp_path / ".gitattributes")
    (tmp_path / "nb").mkdir()
    return tmp_path


def test_a_commit_stores_the_notebook_without_outputs(repo):
    out = _install(repo)
    assert "installed in" in out and out.rstrip().endswith(" s"), out
    assert _git(repo, "config", "--get", "filter.nbstripout.clean").strip() == f'"{sys.executable}" -m nbstripout'
    assert _git(repo, "check-attr", "filter", "--", "nb/x.ipynb").strip().endswith("filter: nbstripout")
    (repo / "nb" / "x.ipynb").write_text(_notebook_with_outputs())
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "notebook")
    stored = json.loads(_git(repo, "show", "HEAD:nb/x.ipynb"))
    assert stored["cells"][0]["outputs"] == [] and stored["cells"][0]["execution_count"] is None
    assert "".join(stored["cells"][0]["source"]) == "print('hello')"
    kept = json.loads((repo / "nb" / "x.ipynb").read_text())  # the user's copy keeps its outputs
    assert "".join(kept["cells"][0]["outputs"][0]["text"]) == "hello\n"
    assert _git(repo, "status", "--porcelain") == ""  # outputs in the copy are not a change


def test_installing_again_changes_nothing(repo):
    _install(repo)
    config, attributes = repo / ".git" / "config", repo / ".gitattributes"
    before = config.read_text(), attributes.read_text()
    out = _install(repo)
    assert "already" in out and "(0 s)" in out, out
    assert (config.read_text(), attributes.read_text()) == before


def test_the_committed_notebooks_pass_the_filter_unchanged():
    """Installing the filter does not turn every committed notebook into a change."""
    paths = sorted(str(p) for p in (REPO / "notebooks").glob("*.ipynb"))
    assert paths
    proc = subprocess.run([sys.executable, "-m", "nbstripout", "--verify", *paths], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, f"notebooks the filter would change (run make notebooks): {proc.stdout}{proc.stderr}"


def test_make_setup_runs_it():
    if shutil.which("make") is None:
        pytest.skip("make not installed")
    out = subprocess.run(["make", "-n", "-C", str(REPO), "setup"], capture_output=True, text=True, timeout=60).stdout
    assert "scripts/install_git_filter.sh" in out, out
