"""The JSON Schema and docs/results_schema.md are generated from the result classes and committed up to date."""

import dataclasses
import importlib.util
import json
from pathlib import Path

import jsonschema

from throttlelab.results import Estimate, Fit, to_jsonable
from throttlelab.report.results_schema import RESULT_CLASSES, json_schema

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("results_schema_script", ROOT / "scripts" / "results_schema.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_committed_schema_and_docs_are_current():
    mod = _script()
    text, doc = mod.expected()
    assert mod.SCHEMA.read_text() == text, "docs/results_schema.json is stale: run python scripts/results_schema.py"
    assert mod.DOC.read_text() == doc, "docs/results_schema.md is stale: run python scripts/results_schema.py"


def test_schema_follows_the_classes():
    @dataclasses.dataclass(frozen=True)
    class Probe:
        """Probe.

        Attributes
        ----------
        x
            a number
        """

        x: float
        tags: tuple[str, ...]
        est: Estimate | None

    s = json_schema([Probe])
    assert s["$defs"]["Probe"]["required"] == ["x", "tags", "est"]
    assert s["$defs"]["Probe"]["properties"]["x"]["description"] == "a number"
    assert s["$defs"]["Probe"]["properties"]["est"] == {"anyOf": [{"$ref": "#/$defs/Estimate"}, {"type": "null"}]}
    doc = {"$defs": s["$defs"], "$ref": "#/$defs/Probe"}
    jsonschema.validate(to_jsonable(Probe(float("nan"), ("a",), Estimate(1.0, 0.5, 2.0))), doc)
    try:
        jsonschema.validate({"x": "text", "tags": [], "est": None}, doc)
    except jsonschema.ValidationError:
        pass
    else:
        raise AssertionError("a string where a number belongs must not validate")


def test_every_result_class_dumps_to_valid_json():
    s = json_schema()
    fit = Fit("amdahl", {"serial_seconds": Estimate(2.0, 1.0, 3.0)}, {"aic": -3.0}, 8, warnings=("at bound",))
    for cls, obj in ((Fit, fit), (Estimate, Estimate(None, None, None))):
        jsonschema.validate(json.loads(json.dumps(to_jsonable(obj))), {"$defs": s["$defs"], "$ref": f"#/$defs/{cls.__name__}"})
    assert len(RESULT_CLASSES) >= 15


def test_every_notebook_writes_its_documented_class_built_in_the_package():
    """Each notebooks/NN_x.py ends with ``tn.write_results(<builder>(...))`` or a name bound to one; no dict literals."""
    import ast

    from throttlelab.report.results_schema import NOTEBOOK_RESULTS, RESULT_CLASSES

    scripts = {p.stem: p for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))}
    assert set(NOTEBOOK_RESULTS) == set(scripts), "NOTEBOOK_RESULTS must name every notebook"
    assert set(NOTEBOOK_RESULTS.values()) <= set(RESULT_CLASSES)
    for name, path in scripts.items():
        calls = [n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr == "write_results"]
        assert len(calls) == 1, f"{name}: one write_results call"
        [arg] = calls[0].args
        assert isinstance(arg, (ast.Call, ast.Name)), f"{name}: results.json must be a result object, not a literal"
        if isinstance(arg, ast.Call):
            builder = arg.func.id if isinstance(arg.func, ast.Name) else arg.func.attr
            assert builder.endswith(("_results", "_summary")), f"{name}: built by {builder}"
