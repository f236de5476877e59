"""Tests of throttlelab.report.study.execute: papermill runs a parameterised notebook; failures are returned, not raised."""

from __future__ import annotations

import socket

import nbformat
from jupyter_client.connect import LocalPortCache

from throttlelab.report.study.execute import KERNEL_START_ATTEMPTS, execute_notebook, kernel_start_seconds


def notebook(path, body):
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("n = 1")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(body)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))
    return path


def test_parameters_reach_the_notebook(tmp_path):
    src = notebook(tmp_path / "nb.ipynb", "open('out.txt', 'w').write(str(n * 2))")
    ex = execute_notebook(src, tmp_path / "done.ipynb", {"n": 21}, cwd=tmp_path, timeout_s=120)
    assert ex.ok and ex.error is None
    assert (tmp_path / "out.txt").read_text() == "42"
    assert 0 < ex.kernel_start_seconds < ex.seconds
    assert kernel_start_seconds(tmp_path / "done.ipynb") == ex.kernel_start_seconds


def test_a_failing_notebook_is_kept_with_its_error(tmp_path):
    src = notebook(tmp_path / "nb.ipynb", "raise ValueError(f'bad n={n}')")
    ex = execute_notebook(src, tmp_path / "done.ipynb", {"n": 3}, cwd=tmp_path, timeout_s=120)
    assert not ex.ok and ex.error == "ValueError: bad n=3"
    done = nbformat.read(str(tmp_path / "done.ipynb"), as_version=4)
    assert any(o.get("ename") == "ValueError" for c in done.cells for o in c.get("outputs", []))


def test_a_missing_notebook_is_an_error_not_an_exception(tmp_path):
    ex = execute_notebook(tmp_path / "nope.ipynb", tmp_path / "done.ipynb", {}, cwd=tmp_path)
    assert not ex.ok and "nope.ipynb" in ex.error
    assert ex.kernel_start_seconds is None


def test_a_kernel_that_loses_the_port_race_is_started_again(tmp_path, monkeypatch):
    # another process took a port between jupyter_client choosing it and the kernel binding it:
    # the first kernel is given a port this test holds, so it really dies ("Address already in use")
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    find = LocalPortCache.find_available_port
    starts = []

    def first_start_gets_a_taken_port(self, ip):
        starts.append(ip)
        return held.getsockname()[1] if len(starts) == 1 else find(self, ip)

    monkeypatch.setattr(LocalPortCache, "find_available_port", first_start_gets_a_taken_port)
    src = notebook(tmp_path / "nb.ipynb", "open('out.txt', 'w').write(str(n))")
    try:
        ex = execute_notebook(src, tmp_path / "done.ipynb", {"n": 7}, cwd=tmp_path, timeout_s=120)
    finally:
        held.close()
    assert ex.ok, ex.error
    assert ex.kernel_starts == 2
    assert (tmp_path / "out.txt").read_text() == "7"


def test_a_failing_cell_is_not_run_again(tmp_path):
    src = notebook(tmp_path / "nb.ipynb", "open('runs.txt', 'a').write('x'); raise ValueError('once')")
    ex = execute_notebook(src, tmp_path / "done.ipynb", {}, cwd=tmp_path, timeout_s=120)
    assert not ex.ok and ex.kernel_starts == 1 < KERNEL_START_ATTEMPTS
    assert (tmp_path / "runs.txt").read_text() == "x"
