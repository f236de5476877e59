"""Tests of throttlelab.cli: subcommands, version, and user errors as one line with exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from throttlelab import __version__, cli
from throttlelab.cli import main


def test_version_and_help(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == __version__
    assert cli.main([]) == 2
    out = capsys.readouterr().out
    for name in cli.COMMANDS:
        assert name in out


def test_user_errors_are_one_line_without_traceback(tmp_path, capsys):
    assert cli.main(["run", str(tmp_path / "missing.yaml")]) == 2
    err = capsys.readouterr().err
    assert err == f"throttlelab: error: {tmp_path / 'missing.yaml'}: study file not found\n"


def test_a_subcommand_whose_module_is_missing_says_so(monkeypatch, capsys):
    def gone():
        import throttlelab.no_such_module_cli  # noqa: F401

    monkeypatch.setitem(cli.COMMANDS, "gone", (gone, "not built"))
    assert cli.main(["gone"]) == 2
    assert "'gone' is not available in this build (throttlelab.no_such_module_cli missing)" in capsys.readouterr().err


def test_a_missing_dependency_of_a_subcommand_is_not_hidden(monkeypatch):
    def broken():
        import no_such_dependency_of_throttlelab  # noqa: F401

    monkeypatch.setitem(cli.COMMANDS, "broken", (broken, "needs a missing library"))
    with pytest.raises(ModuleNotFoundError):
        cli.build_parser()


def test_help_imports_neither_polars_nor_numpy():
    code = "import sys; from throttlelab import cli; cli.build_parser().format_help(); " \
           "print(sorted(m for m in ('polars', 'numpy', 'scipy', 'pandas') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


def test_the_console_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "throttlelab.cli", "--version"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == __version__


def test_every_subcommand_help_gives_examples(capsys):
    """``--help`` of each command ends with runnable examples, laid out as written (no re-wrapping)."""
    from throttlelab.cli import COMMANDS, EXAMPLES

    assert set(EXAMPLES) == set(COMMANDS)
    for name in COMMANDS:
        with pytest.raises(SystemExit):
            main([name, "--help"])
        out = capsys.readouterr().out
        assert "examples:\n" in out, name
        lines = out.split("examples:\n", 1)[1].splitlines()
        assert lines[0].startswith(f"  throttlelab {name}") and all(len(x) <= 100 for x in lines), (name, lines)


def test_ingest_sets_the_allocator_before_polars_loads_and_a_users_setting_wins():
    """polars reads its allocator's settings once, on import: ``ingest`` sets them first; not another command,
    not over the user's, not once polars is loaded (there they could no longer apply)."""
    code = ("import os, sys; from throttlelab import cli; cli._allocator(sys.argv[1]); "
            "import polars; print(os.environ.get('_RJEM_MALLOC_CONF'))")
    env = {k: v for k, v in os.environ.items() if k != "_RJEM_MALLOC_CONF"}

    def conf(command: str, **extra: str) -> str:
        out = subprocess.run([sys.executable, "-c", code, command], env={**env, **extra}, capture_output=True,
                             text=True, check=True).stdout.strip()
        return out.split(",")

    ours = cli.INGEST_ALLOCATOR.split(",")
    assert conf("ingest")[-len(ours):] == ours  # after polars' own defaults: they win
    assert conf("ingest", _RJEM_MALLOC_CONF="narenas:1")[-1] == "narenas:1"
    assert not set(ours) & set(conf("run"))
    import polars  # noqa: F401 (loaded here whichever tests ran before)

    before = os.environ.get("_RJEM_MALLOC_CONF")
    cli._allocator("ingest")  # polars is loaded in this process: nothing to set
    assert os.environ.get("_RJEM_MALLOC_CONF") == before
