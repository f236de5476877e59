"""The ``results.json`` envelope: a notebook's result object with the notebook's name, its class and its tables.

:func:`throttlelab.report.notebook.write_results` writes one :class:`ResultsFile`
(converted by :func:`throttlelab.results.to_jsonable`); the JSON Schema of the
whole file is generated from this class (its fields, and
:meth:`ResultsFile.schema_rules` tying ``notebook``, ``result_class`` and
``results`` together) by :mod:`throttlelab.results_schema`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

#: Version of the envelope, written as ``schema`` in every ``results.json``.
ENVELOPE_VERSION = 1


@dataclass(frozen=True)
class ResultsFile:
    """What a notebook writes as ``results.json``: its result object in an envelope.

    Attributes
    ----------
    notebook
        The notebook that wrote it (``03_cpu_limits``); null when written outside a named notebook.
    schema
        Version of this envelope (1).
    result_class
        Name of the class of ``results``: the notebook's documented class (table above).
    results
        The result object, as the class named by ``result_class`` describes it.
    tables
        Names of the tables saved beside it (``<name>.csv`` and ``<name>.parquet``), sorted.
    kernel_python
        The Python executable of the kernel that ran the notebook.
    """

    notebook: str | None
    schema: Literal[1]
    result_class: str
    results: Any
    tables: tuple[str, ...]
    kernel_python: str

    @staticmethod
    def schema_rules(notebooks: Mapping[str, str], classes: Iterable[str]) -> list[dict]:
        """JSON Schema rules (``allOf``) that tie the fields together.

        ``result_class`` is one of ``classes`` and ``results`` follows that class; a notebook of
        ``notebooks`` (name -> class name) writes its own class.

        >>> rules = ResultsFile.schema_rules({"07_capacity": "CapacityResults"}, ["Estimate", "CapacityResults"])
        >>> rules[0], rules[-1]["then"]
        ({'properties': {'result_class': {'enum': ['CapacityResults', 'Estimate']}}}, {'properties': {'result_class': {'const': 'CapacityResults'}}})
        """
        classes = sorted(set(classes))
        rules: list[dict] = [{"properties": {"result_class": {"enum": classes}}}]
        rules += [{"if": {"properties": {"result_class": {"const": c}}},
                   "then": {"properties": {"results": {"$ref": f"#/$defs/{c}"}}}} for c in classes]
        rules += [{"if": {"properties": {"notebook": {"const": nb}}, "required": ["notebook"]},
                   "then": {"properties": {"result_class": {"const": cls}}}} for nb, cls in notebooks.items()]
        return rules
