"""Tests of throttlelab.errors: messages name the file and line."""

from __future__ import annotations

from pathlib import Path

from throttlelab.errors import EnvironmentProblem, InputError, SpecError, ThrottlelabError


def test_input_error_message_names_file_line_reason_and_detail():
    err = InputError(Path("logs/a.log"), 12, "bad number", "'x12'")
    assert str(err) == "logs/a.log:12: bad number ('x12')"
    assert (err.path, err.line, err.reason) == ("logs/a.log", 12, "bad number")


def test_input_error_without_line_or_detail():
    assert str(InputError("a.json", None, "empty file")) == "a.json: empty file"


def test_every_user_error_is_a_throttlelab_error():
    for cls in (InputError, SpecError, EnvironmentProblem):
        assert issubclass(cls, ThrottlelabError)
    assert not issubclass(ThrottlelabError, (ValueError, OSError))
