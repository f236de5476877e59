"""``time`` output -> a small ``timings`` frame (one row per measured command).

Forms, possibly several and mixed with the command's own output in one file:

* the bash keyword: ``real\\t0m1.234s``, ``user\\t0m0.456s``, ``sys\\t0m0.078s``
  (also ``1,234`` decimal commas and the POSIX ``time -p`` form ``real 1.23``);
* zsh's ``time`` line (default ``TIMEFMT``): ``sleep 1  0.00s user 0.00s system
  0% cpu 1.003 total`` (total as ``s``, ``m:ss.ttt`` or ``h:mm:ss.ttt``);
* GNU ``time`` default output: ``0.00user 0.00system 0:00.20elapsed 0%CPU
  (0avgtext+0avgdata 1684maxresident)k`` and ``0inputs+0outputs
  (0major+162minor)pagefaults 0swaps``;
* BSD/macOS ``/usr/bin/time``: ``        2.75 real         0.56 user         0.02 sys``
  (its ``-l`` resource lines are not kept: counted as not time output);
* GNU ``time -v``: ``Command being timed: "..."``, ``User time (seconds): 0.45``,
  ``Elapsed (wall clock) time (h:mm:ss or m:ss): 0:01.23``, ``Maximum resident
  set size (kbytes): 1920``, ``Exit status: 0``...

GNU ``time`` prints ``Command exited with non-zero status N`` or ``Command
terminated by signal N`` *before* the measurement it concerns; both are kept
(``exit_status``, ``signal``) and ``status`` says whether the run is good:
``ok`` (exit status 0), ``failed`` (non-zero), ``killed`` (a signal; GNU ``time
-v`` then still says ``Exit status: 0``), null where the form does not report
it (bash, zsh, GNU default output without a status line is ``ok``).

Lines that belong to no form are the command's output: counted as skipped
("not time output") so nothing is lost silently.
"""

from __future__ import annotations

import re

import polars as pl

from throttlelab.errors import InputError
from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.input_files import read_input
from throttlelab.ingest.skip_counter import SkipCounter, usable_lines
from throttlelab.ingest.result import IngestResult

SCHEMA = {
    "source": pl.String,
    "measurement": pl.Int64,
    "line": pl.Int64,
    "form": pl.String,
    "command": pl.String,
    "real_seconds": pl.Float64,
    "user_seconds": pl.Float64,
    "system_seconds": pl.Float64,
    "cpu_percent": pl.Float64,
    "max_rss_bytes": pl.Int64,
    "voluntary_switches": pl.Int64,
    "involuntary_switches": pl.Int64,
    "exit_status": pl.Int64,
    "signal": pl.Int64,
    "status": pl.String,
}

_BASH = re.compile(r"^(real|user|sys)\s+(?:(\d+)m)?(\d+(?:[.,]\d+)?)s?\s*$")
_GNU_ELAPSED = re.compile(r"^(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$")
_ZSH = re.compile(r"^(?P<cmd>.*?)\s+(?P<u>\d+(?:\.\d+)?)s? user (?P<s>\d+(?:\.\d+)?)s? system "
                  r"(?P<p>\d+(?:\.\d+)?|\?)% cpu (?P<t>(?:\d+:){0,2}\d+(?:\.\d+)?)s? total$")
_GNU_DEFAULT = re.compile(r"^(?P<u>\d+\.\d+)user (?P<s>\d+\.\d+)system (?P<e>(?:\d+:)?\d+:\d+(?:\.\d+)?)elapsed "
                          r"(?P<p>\d+|\?)%CPU \((?P<x>\d+)avgtext\+(?P<d>\d+)avgdata (?P<m>\d+)maxresident\)k$")
_BSD = re.compile(r"^(?P<r>\d+\.\d+) real\s+(?P<u>\d+\.\d+) user\s+(?P<s>\d+\.\d+) sys$")
_GNU_DEFAULT_2 = re.compile(r"^\d+inputs\+\d+outputs \(\d+major\+\d+minor\)pagefaults \d+swaps$")
_GNU_STATUS = re.compile(r"^Command (?:exited with non-zero status (?P<x>\d+)|terminated by signal (?P<sig>\d+))$")
_GNU = {
    "Command being timed": ("command", str),
    "User time (seconds)": ("user_seconds", float),
    "System time (seconds)": ("system_seconds", float),
    "Percent of CPU this job got": ("cpu_percent", lambda v: float(v.rstrip("%"))),
    "Maximum resident set size (kbytes)": ("max_rss_bytes", lambda v: int(v) * 1024),
    "Voluntary context switches": ("voluntary_switches", int),
    "Involuntary context switches": ("involuntary_switches", int),
    "Exit status": ("exit_status", int),
}
#: GNU time -v lines that are understood but not kept.
_GNU_OTHER = (
    "Average shared text size", "Average unshared data size", "Average stack size",
    "Average total size", "Average resident set size", "Major (requiring I/O) page faults",
    "Minor (reclaiming a frame) page faults", "Swaps", "File system inputs", "File system outputs",
    "Socket messages sent", "Socket messages received", "Signals delivered", "Page size (bytes)",
)


def _elapsed(text: str) -> float:
    m = _GNU_ELAPSED.match(text)
    if not m:
        raise ValueError(text)
    h, mnt, s = m.groups()
    return int(h or 0) * 3600 + int(mnt) * 60 + float(s)


def _hms(text: str) -> float:
    """``1.003``, ``1:01.055`` or ``1:00:00.120`` -> seconds (zsh's ``%*E``)."""
    parts = text.split(":")
    return sum(float(p) * 60**k for k, p in enumerate(reversed(parts)))


def _percent(text: str) -> float | None:
    return None if text == "?" else float(text)


def _status(row: dict) -> str | None:
    if row.get("signal") is not None:
        return "killed"
    x = row.get("exit_status")
    if x is None:
        return None
    return "ok" if x == 0 else "failed"


def read_time_output(path, *, strict: bool = False) -> IngestResult:
    """Read ``time`` output (see the module docstring) into ``table="timings"``."""
    source = str(path)
    lines = lines_mod.split_lines(read_input(path), source)
    skips = SkipCounter(source)
    rows: list[dict] = []
    cur: dict | None = None
    pending: tuple[int, str, dict] | None = None  # a GNU status line waiting for its measurement

    def new(form: str, n: int) -> dict:
        nonlocal pending
        row = {"form": form, "line": n}
        if pending is not None and form in ("gnu", "gnu-v"):
            row.update(pending[2])
        elif pending is not None:
            skips.add(pending[0], "GNU time status line without a GNU time measurement after it", pending[1])
        pending = None
        rows.append(row)
        return row

    for n, text in usable_lines(lines, skips):
        if not text.strip():
            continue
        s = text.strip()
        m = _BASH.match(s)
        if m:
            key, minutes, secs = m.groups()
            value = int(minutes or 0) * 60 + float(secs.replace(",", "."))
            col = {"real": "real_seconds", "user": "user_seconds", "sys": "system_seconds"}[key]
            if key == "real" or cur is None or cur["form"] != "bash" or cur.get(col) is not None:
                cur = new("bash", n)
            cur[col] = value
            continue
        m = _GNU_STATUS.match(s)
        if m:
            if pending is not None:
                skips.add(pending[0], "GNU time status line without a GNU time measurement after it", pending[1])
            x, sig = m.group("x"), m.group("sig")
            pending = (n, text, {"exit_status": int(x)} if x else {"signal": int(sig), "exit_status": None})
            cur = None
            continue
        m = _GNU_DEFAULT.match(s)
        if m:
            cur = new("gnu", n)
            cur.update(user_seconds=float(m["u"]), system_seconds=float(m["s"]), real_seconds=_elapsed(m["e"]),
                       cpu_percent=_percent(m["p"]), max_rss_bytes=int(m["m"]) * 1024)
            cur.setdefault("exit_status", 0)  # GNU time says so when it is not 0
            continue
        if _GNU_DEFAULT_2.match(s) and cur is not None and cur["form"] == "gnu":
            continue
        m = _BSD.match(s)
        if m:
            cur = new("bsd", n)
            cur.update(real_seconds=float(m["r"]), user_seconds=float(m["u"]), system_seconds=float(m["s"]))
            continue
        m = _ZSH.match(s)
        if m:
            cur = new("zsh", n)
            cur.update(command=m["cmd"].strip() or None, user_seconds=float(m["u"]), system_seconds=float(m["s"]),
                       cpu_percent=_percent(m["p"]), real_seconds=_hms(m["t"]))
            continue
        key, sep, value = s.partition(": ")
        if sep and (key in _GNU or key.startswith("Elapsed (wall clock) time") or key.startswith(_GNU_OTHER)):
            if key == "Command being timed" or cur is None or cur["form"] != "gnu-v":
                cur = new("gnu-v", n)
            try:
                if key.startswith("Elapsed"):
                    cur["real_seconds"] = _elapsed(value.strip())
                elif key == "Exit status" and cur.get("signal") is not None:
                    int(value.strip())  # killed: GNU time -v still says 0; the signal decides
                elif key in _GNU:
                    col, conv = _GNU[key]
                    cur[col] = conv(value.strip().strip('"')) if col == "command" else conv(value.strip())
            except ValueError:
                skips.add(n, "bad GNU time value", text)
            continue
        skips.add(n, "not time output", text)
    if pending is not None:
        skips.add(pending[0], "GNU time status line without a GNU time measurement after it", pending[1])
    report = skips.report()
    if strict and report.first is not None:
        f = report.first
        raise InputError(source, f.line, f.reason, f.excerpt)
    frame = pl.DataFrame(
        [{**r, "source": source, "measurement": k, "status": _status(r)} for k, r in enumerate(rows)], schema=SCHEMA
    )
    return IngestResult("timings", frame, report, len(lines), len(lines) - report.total, (source,))
