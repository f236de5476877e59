"""Errors for bad input: always name the file and line, never a traceback.

The CLI catches :class:`ThrottlelabError` and prints ``throttlelab: error: <message>``
with exit status 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from os import PathLike


class ThrottlelabError(Exception):
    """An error the user can fix (bad input, missing tool, bad spec)."""


class InputError(ThrottlelabError):
    """Bad input at a known place.

    Parameters
    ----------
    path
        File the problem is in.
    line
        1-based line number, or ``None`` when the problem concerns the whole file.
    reason
        Short, stable reason (used as a key when counting skipped lines).
    detail
        Optional human-readable detail (an excerpt, the expected form), in parentheses after the reason; one that
        starts with a newline (a list, such as the formats tried) goes on the lines after it.
    """

    def __init__(self, path: str | PathLike[str], line: int | None, reason: str, detail: str = ""):
        self.path = str(path)
        self.line = line
        self.reason = reason
        self.detail = detail
        super().__init__(self.message)

    @property
    def message(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        if self.detail.startswith("\n"):  # a list: on the lines after the one-line message
            return f"{where}: {self.reason}{self.detail}"
        return f"{where}: {self.reason}" + (f" ({self.detail})" if self.detail else "")


class SpecError(ThrottlelabError):
    """A study or sweep spec that cannot be used (names the file and the key)."""


class EnvironmentProblem(ThrottlelabError):
    """The machine lacks something (a writable cgroup, a tool, a cluster)."""
