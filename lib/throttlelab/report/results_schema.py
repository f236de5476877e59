"""JSON Schema and Markdown reference generated from the result classes (the one source of the contract).

The envelope of ``results.json`` is :class:`~throttlelab.results_file.ResultsFile`.
:data:`RESULT_CLASSES` is every result class that ``results.json`` holds (this
module sits in the report layer, above the analysis that defines them, and imports
them).  :func:`json_schema` maps each dataclass field's type to JSON
Schema (``float`` may be ``null``: NaN and infinity are written as ``null``);
:func:`markdown` writes one table per class from the numpydoc ``Attributes``
sections.  ``scripts/results_schema.py`` writes both into ``docs/``; a test
fails when the committed copies are stale.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
import typing
from typing import Any

from throttlelab.analysis.capacity.capacity import CapacityProjection, UnitCost, VariantComparison
from throttlelab.analysis.capacity.capacity_results import CapacityResults
from throttlelab.analysis.latency.concurrency_results import ConcurrencyResults
from throttlelab.analysis.latency.contention_results import ContentionResults
from throttlelab.analysis.limits.cpu_limit_results import CpuLimitResults
from throttlelab.analysis.limits.dead_zone_results import DeadZone, DeadZoneAnalysis, LimitTest
from throttlelab.analysis.limits.recommend import Knee, Recommendation
from throttlelab.analysis.rightsizing.recommendation import Rightsizing
from throttlelab.analysis.rightsizing.rightsizing_results import RightsizingResults
from throttlelab.analysis.runs.ingest_summary import IngestSummary
from throttlelab.analysis.stats.noise import NoiseModel
from throttlelab.analysis.stats.outlying_runs import OutlyingRun
from throttlelab.analysis.stats.run_level import ReplicatesNeeded, RunComparison
from throttlelab.analysis.stats.selection import BestChoice
from throttlelab.analysis.threads.thread_choice_metric import LimitThreads
from throttlelab.analysis.threads.thread_count_results import ThreadCountResults
from throttlelab.experiment.sweeps.sweep_results import SweepResults
from throttlelab.results import Estimate, Fit

#: Notebook -> the result class its ``results.json`` holds (``"results"``; the envelope names it in ``"result_class"``).
NOTEBOOK_RESULTS: dict[str, type] = {
    "01_run_sweep": SweepResults,
    "02_ingest_logs": IngestSummary,
    "03_cpu_limits": CpuLimitResults,
    "04_thread_counts": ThreadCountResults,
    "05_contention": ContentionResults,
    "06_concurrency_limits": ConcurrencyResults,
    "07_capacity": CapacityResults,
    "08_recommend": RightsizingResults,
}
#: Every result class in ``results.json``, in documentation order (the notebooks' classes last).
RESULT_CLASSES: tuple[type, ...] = (
    Estimate, Fit, RunComparison, OutlyingRun, ReplicatesNeeded, BestChoice, NoiseModel, LimitTest, DeadZone,
    DeadZoneAnalysis, Knee, Recommendation, LimitThreads, UnitCost, CapacityProjection, VariantComparison, Rightsizing,
    *NOTEBOOK_RESULTS.values(),
)
INTERVAL = {"type": "object", "required": ["low", "high"], "additionalProperties": False,
            "properties": {"low": {"type": ["number", "null"]}, "high": {"type": ["number", "null"]}},
            "description": "Two-sided confidence interval (95% unless a level says otherwise)."}


def result_class_names() -> set[str]:
    """Names of the classes :data:`RESULT_CLASSES` lists (what ``results.json`` may hold at its top)."""
    return {cls.__name__ for cls in RESULT_CLASSES}


def field_docs(cls: type) -> dict[str, str]:
    """Field -> description from the numpydoc ``Attributes`` section of ``cls`` (``a, b`` share one text)."""
    doc = inspect.getdoc(cls) or ""
    m = re.search(r"^Attributes\n-+\n(.*?)(?:\n\S[^\n]*\n-+\n|\Z)", doc, re.S | re.M)
    out: dict[str, str] = {}
    if not m:
        return out
    names: list[str] = []
    for line in m.group(1).splitlines():
        if line and not line.startswith(" "):
            names = [n.strip() for n in line.split(":")[0].split(",")]
            for n in names:
                out[n] = ""
        elif line.strip() and names:
            for n in names:
                out[n] = (out[n] + " " + line.strip()).strip()
    return out


def _type_schema(tp: Any, defs: dict) -> dict:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is type(None):
        return {"type": "null"}
    if origin is typing.Annotated:
        rows = [m for m in tp.__metadata__ if type(m).__name__ == "Rows"]
        if rows:
            _add(rows[0].row, defs)
            return {"type": "array", "items": {"$ref": f"#/$defs/{rows[0].row.__name__}"}}
        return _type_schema(args[0], defs)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        parts = [_type_schema(a, defs) for a in args if a is not type(None)]
        nullable = any(a is type(None) for a in args)
        if len(parts) == 1 and "type" in parts[0] and nullable:
            t = parts[0]["type"]
            t = t if isinstance(t, list) else [t]
            return parts[0] | {"type": [*t, "null"] if "null" not in t else t}
        return {"anyOf": parts + ([{"type": "null"}] if nullable else [])}
    if origin in (tuple, list) or tp in (tuple, list):
        item = args[0] if args else Any
        return {"type": "array", "items": _type_schema(item, defs)}
    if origin is dict or tp is dict:
        return {"type": "object", "additionalProperties": _type_schema(args[1], defs) if len(args) == 2 else {}}
    if tp is float:
        return {"type": ["number", "null"]}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is str:
        return {"type": "string"}
    if isinstance(tp, type) and tp.__name__ == "ConfidenceInterval":
        return {"$ref": "#/$defs/ConfidenceInterval"}
    if dataclasses.is_dataclass(tp):
        _add(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    return {}  # Any: free-form JSON (parameters, provenance)


def _add(cls: type, defs: dict) -> None:
    if cls.__name__ in defs:
        return
    defs[cls.__name__] = {}  # placeholder against recursion
    hints = typing.get_type_hints(cls, include_extras=True)
    docs = field_docs(cls)
    props, required = {}, []
    for f in dataclasses.fields(cls):
        if f.name.startswith("_"):
            continue
        s = dict(_type_schema(hints[f.name], defs))
        if docs.get(f.name):
            s["description"] = docs[f.name]
        props[f.name] = s
        required.append(f.name)
    summary = (inspect.getdoc(cls) or "").split("\n\n")[0].replace("\n", " ")
    defs[cls.__name__] = {"type": "object", "description": summary, "required": required, "properties": props,
                          "additionalProperties": False}


def json_schema(classes: list[type] | None = None) -> dict:
    """One JSON Schema document with a ``$defs`` entry per result class (and every class they hold).

    Without ``classes``, the document is the schema of a whole ``results.json``: its root is the envelope
    (:class:`~throttlelab.results_file.ResultsFile`), whose rules tie ``results`` to its class.
    """
    from throttlelab.results_file import ResultsFile

    defs: dict = {"ConfidenceInterval": INTERVAL}
    notebooks = {nb: cls.__name__ for nb, cls in NOTEBOOK_RESULTS.items()}
    if classes is None:
        _add(ResultsFile, defs)
        defs["ResultsFile"]["allOf"] = ResultsFile.schema_rules(notebooks, sorted(result_class_names()))
    for cls in classes or RESULT_CLASSES:
        _add(cls, defs)
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "throttlelab-results",
           "title": "throttlelab results.json (generated by scripts/results_schema.py; do not edit)",
           "notebooks": notebooks, "$defs": defs}
    if classes is None:
        doc["$ref"] = "#/$defs/ResultsFile"
    return doc


def _type_name(s: dict) -> str:
    if "enum" in s:
        return " or ".join(f'`{v!r}`'.replace("'", '"') for v in s["enum"])
    if "$ref" in s:
        name = s["$ref"].rsplit("/", 1)[-1]
        return "interval" if name == "ConfidenceInterval" else f"[{name}](#{name.lower()})"
    if "anyOf" in s:
        return " or ".join(_type_name(p) for p in s["anyOf"])
    t = s.get("type", "any")
    if t == "array":
        return f"list of {_type_name(s.get('items', {}))}"
    if t == "object":
        inner = s.get("additionalProperties")
        return f"{{name: {_type_name(inner)}}}" if isinstance(inner, dict) and inner else "object"
    if isinstance(t, list):
        return " or ".join(_type_name(s | {"type": x}) for x in t)
    return t


def markdown(schema: dict | None = None) -> str:
    """Reference tables of every result class (the generated part of ``docs/results_schema.md``)."""
    schema = schema or json_schema()
    lines = ["### Notebooks", "", "| notebook | `result_class` of its `results.json` |", "|---|---|"]
    lines += [f"| `{nb}` | [{cls}](#{cls.lower()}) |" for nb, cls in schema.get("notebooks", {}).items()]
    lines.append("")
    for name, d in schema["$defs"].items():
        if name == "ConfidenceInterval":
            continue
        lines += [f"### {name}", "", d["description"], "", "| field | type | meaning |", "|---|---|---|"]
        for f, s in d["properties"].items():
            lines.append(f"| `{f}` | {_type_name(s)} | {s.get('description', '').replace('|', '/')} |")
        lines.append("")
    return "\n".join(lines)
