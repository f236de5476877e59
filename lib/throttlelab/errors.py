"""Errors for bad input: always name the file and line, never a traceback.

The CLI catches :class:`ThrottlelabError` and prints ``throttlelab: error: <message>``
with exit status 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import re
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


#: Longest first line of an error, not counting the file's path.
MAX_ERROR_LINE = 200
_LISTS = re.compile(r"(?P<head>.*?)(?: \((?P<hint>did you mean [^?]*\?) (?P<k1>allowed): (?P<l1>.*)\)$"
                    r"| \((?P<k2>allowed|choose from):? (?P<l2>.*)\)$|; (?P<k3>its parameters): (?P<l3>.*)$)")


def error_lines(message: str, *, limit: int = MAX_ERROR_LINE) -> str:
    """``message`` with a first line of at most ``limit`` characters (not counting a leading path).

    A list at the end of a long first line (allowed keys, a notebook's parameters, argparse's choices) goes on the
    next line; a line still too long is cut at its last ``"; "`` or ``": "`` before the limit.

    >>> print(error_lines("x.yaml:1: key 'f': unknown key (allowed: " + ", ".join(["abcdefgh"] * 30) + ")"))
    ... # doctest: +ELLIPSIS
    x.yaml:1: key 'f': unknown key; allowed:
      abcdefgh, abcdefgh, ...
    >>> error_lines("short")
    'short'
    """
    first, _, rest = message.partition("\n")
    if _width(first) <= limit:
        return message
    m = _LISTS.fullmatch(first)
    if m:
        kind = m["k1"] or m["k2"] or m["k3"]
        listing = m["l1"] or m["l2"] or m["l3"]
        head = m["head"] + (f" ({m['hint']})" if m["hint"] else "")
        first, more = f"{head}; {kind}:", f"  {listing}"
        rest = more + ("\n" + rest if rest else "")
    while _width(first) > limit:
        cut = max(first.rfind("; ", 0, limit + _path_len(first)), first.rfind(": ", 0, limit + _path_len(first)))
        if cut <= _path_len(first):
            break
        first, tail = first[:cut + 1], first[cut + 2:]
        rest = f"  {tail}" + ("\n" + rest if rest else "")
    return first + ("\n" + rest if rest else "")


def _path_len(line: str) -> int:
    """Length of a leading ``path:`` or ``path:line:`` (a token with a '/' or a '.'), after an optional prefix."""
    m = re.match(r"(?:[\w ]+: error: )?(?P<path>[^\s:]*[/.][^\s:]*)(?::\d+)?:", line)
    return len(m["path"]) if m else 0


def _width(line: str) -> int:
    return len(line) - _path_len(line)
