"""Tests of throttlelab.experiment.local_cgroup.cgroup_process: join before exec, exit codes, rusage, kill."""

from __future__ import annotations

import sys

import pytest

from throttlelab.errors import EnvironmentProblem
from throttlelab.experiment.local_cgroup.cgroup_orphans import owner_name
from throttlelab.experiment.local_cgroup.cgroup_process import CgroupProcess
from throttlelab.experiment.local_cgroup.cgroups import Cgroup


@pytest.mark.cgroup
def test_real_cgroup_child_joins_before_exec_and_is_removed(cgroup_layout):
    cg = Cgroup(cgroup_layout, f"{owner_name()}/t-join").create()
    try:
        cg.set_limit(20_000, 100_000)
        # the child prints the cgroups it is in, as its first instructions
        code = "print(open('/proc/self/cgroup').read())"
        out = cg.dir.parent / "out.txt" if cgroup_layout.simulated else None
        import tempfile

        with tempfile.NamedTemporaryFile("r", suffix=".txt") as fh:
            proc = CgroupProcess([sys.executable, "-c", code], cgroup=cg, output=fh.name).start()
            assert proc.wait(30)
            text = open(fh.name).read()
        assert f"/throttlelab/{cg.relpath}" in text
        if cgroup_layout.version == 1 and cgroup_layout.cpuacct_base != cgroup_layout.base:
            lines = [ln for ln in text.splitlines() if ":cpu:" in ln or ":cpuacct:" in ln]
            assert len(lines) == 2 and all(ln.endswith(cg.relpath) for ln in lines)
        assert out is None
    finally:
        cg.remove()
    assert not any(d.exists() for d in cg.dirs)


def test_exit_code_output_and_cpu_time_without_a_cgroup(tmp_path):
    out = tmp_path / "out.txt"
    code = "import sys\nx = 0\nfor i in range(3_000_000): x += i\nprint('done', x)\nsys.exit(3)"
    proc = CgroupProcess([sys.executable, "-c", code], output=out).start()
    assert proc.wait(60)
    r = proc.result
    assert r.exit_code == 3
    assert out.read_text() == f"done {sum(range(3_000_000))}\n"
    assert r.user_seconds + r.system_seconds > 0.01  # the loop burns measurable CPU
    assert r.wall_seconds >= r.user_seconds * 0.5


def test_kill_gives_minus_sigkill():
    proc = CgroupProcess(["sleep", "30"]).start()
    assert not proc.wait(0.1)
    proc.kill()
    assert proc.wait(10)
    assert proc.result.exit_code == -9


def test_a_missing_command_is_an_environment_problem():
    with pytest.raises(EnvironmentProblem, match="cannot start /nonexistent/tool"):
        CgroupProcess(["/nonexistent/tool"]).start()
