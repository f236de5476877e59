"""Tests of throttlelab.report.study.provenance: git commit, cgroup version, input checksums."""

from __future__ import annotations

import hashlib
import subprocess

from throttlelab.report.study.provenance import cgroup_version, collect, git_commit, input_checksums, sha256


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"})


def test_git_commit_clean_dirty_and_none(tmp_path):
    assert git_commit(tmp_path) is None
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("1")
    git(tmp_path, "add", "a.txt")
    git(tmp_path, "commit", "-qm", "x")
    sha = git_commit(tmp_path)
    assert len(sha) == 40 and int(sha, 16) >= 0
    (tmp_path / "a.txt").write_text("2")
    assert git_commit(tmp_path) == sha + "-dirty"
    (tmp_path / "untracked.txt").write_text("new")  # untracked files do not make it dirty
    git(tmp_path, "checkout", "-q", "a.txt")
    assert git_commit(tmp_path) == sha


def test_cgroup_version_from_the_folder_layout(tmp_path):
    assert cgroup_version(tmp_path) == "none"
    (tmp_path / "cpu,cpuacct").mkdir()
    assert cgroup_version(tmp_path) == "v1"
    (tmp_path / "unified").mkdir()
    assert cgroup_version(tmp_path) == "hybrid (v1 cpu, v2 unified)"
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "cgroup.controllers").write_text("cpuset io memory pids\n")
    assert cgroup_version(v2) == "v2 (no cpu controller)"
    (v2 / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    assert cgroup_version(v2) == "v2"


def test_input_checksums_relative_to_root_and_of_folders(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.csv").write_bytes(b"a,b\n1,2\n")
    (tmp_path / "data" / "sub").mkdir()
    (tmp_path / "data" / "sub" / "b.csv").write_bytes(b"x\n")
    out = input_checksums([tmp_path / "data"], tmp_path)
    assert out == {"data/a.csv": hashlib.sha256(b"a,b\n1,2\n").hexdigest(),
                   "data/sub/b.csv": hashlib.sha256(b"x\n").hexdigest()}
    assert sha256(tmp_path / "data" / "sub" / "b.csv") == out["data/sub/b.csv"]


def test_collect_names_packages_and_machine(tmp_path):
    out = collect(tmp_path)
    assert out["git_commit"] is None
    assert out["packages"]["polars"] and out["packages"]["python"].count(".") == 2
    assert out["machine"]["cpus"] >= 1 and out["machine"]["kernel"]


def test_a_live_server_is_listed_by_its_url_and_missing_files_not_at_all(tmp_path):
    from throttlelab.report.study.provenance import LIVE, input_checksums

    (tmp_path / "a.csv").write_text("x\n")
    sums = input_checksums(["http://127.0.0.1:9090", str(tmp_path / "a.csv"), tmp_path / "gone.csv"], tmp_path)
    assert sums == {"http://127.0.0.1:9090": LIVE, "a.csv": sha256(tmp_path / "a.csv")}
