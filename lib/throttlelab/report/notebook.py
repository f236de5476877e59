"""What every notebook calls: set up its output folder, save tables and results.

A notebook's parameters cell defines ``output_dir``; its first code cell after
the parameters calls :func:`start`; it ends with :func:`write_results`::

    from throttlelab.report import notebook as tn
    out = tn.start(output_dir)
    ...
    tn.show_table(table, title="Dead zones")   # formatted for people
    tn.save_table(table, "dead_zones")
    tn.headline("6000m is 34% slower than 4000m (95% CI ...)")  # a finding
    tn.answer("Give it 4 cores or at least 8, not 5-7: ...", rests_on="16 runs, 1-2 per limit")
    tn.answer(cpu_limit_answer(...))  # or an Answer: lead, rests on, method and headlines at once
    tn.not_run("no measured requests")  # a section that had nothing to show (one collapsed line in the report)
    tn.write_results(cpu_limit_results(...))  # an instance of the notebook's result class

:func:`start` shows the answer box at the top of the notebook's output (a
markdown display updated in place by every :func:`headline` and :func:`answer`
call); the study runner puts the same answer right under the report's title
and on the index page (``answer.json`` and ``headlines.json``).

``results.json`` is a :class:`~throttlelab.results_file.ResultsFile`: ``{"notebook": ..., "schema": 1,
"result_class": ..., "results": ..., "tables": [...], "kernel_python": ...}``, where ``results`` is one
instance of a documented result class (:data:`throttlelab.report.results_schema.NOTEBOOK_RESULTS`,
``docs/results_schema.md``), converted by :func:`throttlelab.results.to_jsonable`; the study runner
adds provenance next to it (``run.json``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from throttlelab.report.html import offline
from throttlelab.report.tables_display import show_table  # noqa: F401  (notebooks call tn.show_table)
from throttlelab.results import to_jsonable
from throttlelab.report.results_schema import result_class_names
from throttlelab.results_file import ENVELOPE_VERSION, ResultsFile

_current: dict[str, Any] = {"out": None, "tables": [], "name": None, "answer": None, "rests_on": None,
                            "method": None, "headlines": [], "display_id": None}
#: Metadata marking the answer box output (the HTML report shows it in its header instead).
ANSWER_METADATA = {"throttlelab": {"role": "answer"}}
#: Metadata marking a "not run" note (the HTML report gathers them into one collapsed line).
NOT_RUN_METADATA = {"throttlelab": {"role": "not-run"}}
PENDING = "The answer appears here when the notebook has run to the end."


def start(output_dir: str | Path, *, name: str | None = None) -> Path:
    """Create ``output_dir``, enable offline charts, log the inputs read into it, and return the folder as a Path."""
    from throttlelab import input_log

    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    input_log.reset()
    input_log.write_to(out)  # inputs_read.json: what this notebook's readers open, for the report's provenance
    for stale in ("results.json", "headlines.json", "answer.json"):  # a re-run must not add to the last one's
        (out / stale).unlink(missing_ok=True)
    _current.update(out=out, tables=[], name=name, answer=None, rests_on=None, method=None, headlines=[],
                    display_id=None)
    offline.enable(reset=True)
    _show_answer(first=True)
    return out


def output_dir() -> Path:
    if _current["out"] is None:
        raise RuntimeError("call throttlelab.report.notebook.start(output_dir) first")
    return _current["out"]


def save_table(df: Any, name: str) -> None:
    """Write a polars frame as ``<name>.csv`` (and ``<name>.parquet``) into the output folder.

    Nested columns (lists, structs) are JSON-encoded in the CSV only.  Returns
    nothing, so that a cell ending with it shows no output (no path repr).
    """
    import polars as pl

    out = output_dir()
    if not isinstance(df, pl.DataFrame):
        df = pl.DataFrame(df)
    df.write_parquet(out / f"{name}.parquet")
    flat = df.with_columns(
        pl.col(c).map_elements(lambda v: json.dumps(to_jsonable(v)), return_dtype=pl.String)
        for c, t in df.schema.items()
        if t.is_nested()
    )
    flat.write_csv(out / f"{name}.csv")
    if name not in _current["tables"]:
        _current["tables"].append(name)


def write_results(results: Any, *, notebook: str | None = None) -> None:
    """Write ``results.json``: ``results`` (a result class listed in ``RESULT_CLASSES``) converted with :func:`to_jsonable`.

    A bare dict or an undocumented class raises ``TypeError``: the contract is the documented classes.
    Returns nothing, so that a notebook's last cell shows no output.
    """
    import dataclasses

    name = type(results).__name__
    if not dataclasses.is_dataclass(results) or isinstance(results, type) or name not in result_class_names():
        raise TypeError(f"results.json holds a documented result class (throttlelab.report.results_schema.RESULT_CLASSES), "
                        f"not {name}")
    out = output_dir()
    doc = ResultsFile(notebook=notebook or _current["name"], schema=ENVELOPE_VERSION, result_class=name,
                      results=results, tables=tuple(sorted(_current["tables"])), kernel_python=sys.executable)
    path = out / "results.json"
    path.write_text(json.dumps(to_jsonable(doc), indent=2, sort_keys=False, allow_nan=False) + "\n")


def headline(text: str) -> None:
    """Record a one-line finding (numbers, interval) for the answer box and the index page."""
    _current["headlines"].append(str(text))
    _publish()


def answer(text: Any, *, rests_on: str | None = None, method: str | None = None) -> None:
    """Set the notebook's decision: the lead (at most 40 words: the action, then how sure), its basis and method.

    Parameters
    ----------
    text
        The lead, e.g. "Give ffmpeg 12 cores (3.9 s per run). Avoid 6-7 cores: up to 48% slower than 4.
        How sure: 16 runs, 1-2 per limit; the slowdown is clear.", or an
        :class:`~throttlelab.report.answers.answer_text.Answer` (its lead, rests on, method and headlines).
    rests_on
        What the answer rests on, e.g. "16 runs, 1-2 per limit, published sweep".
    method
        The procedures by name and a glossary (markdown); reports show it collapsed.
    """
    from throttlelab.report.answers.answer_text import Answer

    if isinstance(text, Answer):
        rests_on, method = rests_on or text.rests_on, method or text.method_markdown()
        _current["headlines"].extend(text.headlines)
        text = text.lead
    _current["answer"] = str(text)
    _current["rests_on"] = str(rests_on) if rests_on else None
    _current["method"] = str(method) if method else None
    _publish()


def not_run(reason: str) -> None:
    """Say that a section had nothing to show, and why; the HTML report gathers these into one collapsed line."""
    from IPython.display import display

    text = f"Not run: {reason.rstrip('.')}."
    display({"text/markdown": f"*{text}*", "text/plain": text}, raw=True, metadata=NOT_RUN_METADATA)


def answer_document() -> dict[str, Any]:
    """``{"answer", "rests_on", "method", "headlines"}``: ``answer.json`` holds the first three, ``headlines.json``
    the list."""
    return {"answer": _current["answer"], "rests_on": _current["rests_on"], "method": _current["method"],
            "headlines": list(_current["headlines"])}


def answer_markdown(doc: dict[str, Any]) -> str:
    """The answer box as markdown (a block quote): the lead, what it rests on, then findings and method collapsed.

    >>> print(answer_markdown({"answer": "Give it 4 cores.", "rests_on": "16 runs", "headlines": ["a"]}))
    > **Answer.** Give it 4 cores.
    >
    > *Rests on:* 16 runs
    >
    > <details><summary>Findings (1)</summary>
    >
    > - a
    >
    > </details>
    """
    lead = doc.get("answer")
    heads = list(doc.get("headlines") or [])
    if not lead and not heads:
        return f"> **Answer.** {PENDING}"
    lines = [f"> **Answer.** {lead}"] if lead else []
    if doc.get("rests_on"):
        lines += [">", f"> *Rests on:* {doc['rests_on']}"]
    if heads and not lead:
        lines += [f"> - {h}" for h in heads]
    elif heads:
        lines += [">", f"> <details><summary>Findings ({len(heads)})</summary>", ">"]
        lines += [f"> - {h}" for h in heads] + [">", "> </details>"]
    if doc.get("method"):
        lines += [">", "> <details><summary>Method</summary>", ">"]
        lines += [f"> {line}".rstrip() for line in str(doc["method"]).splitlines()] + [">", "> </details>"]
    return "\n".join(lines)


def _publish() -> None:
    out, doc = output_dir(), answer_document()
    (out / "headlines.json").write_text(json.dumps(doc["headlines"], indent=2) + "\n")
    if doc["answer"]:
        (out / "answer.json").write_text(json.dumps({"answer": doc["answer"], "rests_on": doc["rests_on"],
                                                     "method": doc["method"]}, indent=2) + "\n")
    _show_answer()


def _show_answer(*, first: bool = False) -> None:
    """Show (``first``) or update the answer box at the top of the notebook's output."""
    try:
        from IPython import get_ipython
        from IPython.display import display, update_display
    except ImportError:
        return
    if get_ipython() is None:
        return
    bundle = {"text/markdown": answer_markdown(answer_document())}
    if first:
        import uuid

        _current["display_id"] = f"tl-answer-{uuid.uuid4().hex[:12]}"
        display(bundle, raw=True, metadata=ANSWER_METADATA, display_id=_current["display_id"])
    elif _current["display_id"]:
        update_display(bundle, raw=True, metadata=ANSWER_METADATA, display_id=_current["display_id"])


def read_answer(folder: Path) -> dict[str, Any]:
    """The answer a notebook left in ``folder``: ``answer.json`` and ``headlines.json`` (either may be missing).

    ``{"answer", "rests_on", "method", "headlines"}``.
    """
    def load(name: str, default: Any) -> Any:
        try:
            return json.loads((Path(folder) / name).read_text())
        except (OSError, ValueError):
            return default

    heads = load("headlines.json", [])
    ans = load("answer.json", {})
    ans = ans if isinstance(ans, dict) else {}
    return {"answer": ans.get("answer"), "rests_on": ans.get("rests_on"), "method": ans.get("method"),
            "headlines": [str(h) for h in heads] if isinstance(heads, list) else []}
