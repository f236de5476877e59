"""The results.json envelope: written by write_results as the class's fields, and validated as a whole by the schema."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest

from throttlelab.report import notebook as tn
from throttlelab.results_file import ENVELOPE_VERSION, ResultsFile

REPO = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((REPO / "docs" / "results_schema.json").read_text())
SAMPLE_LOG = REPO / "data" / "published" / "samples" / "local_cgroup_v1_quota_steps.log"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The results.json notebook 02 writes for the bundled sample log (its result class, its tables)."""
    from throttlelab.analysis.runs import ingest_summary
    from throttlelab.ingest import read_any

    out = tn.start(tmp_path_factory.mktemp("nb") / "02", name="02_ingest_logs")
    summary = ingest_summary([(str(SAMPLE_LOG), "monitor", read_any(SAMPLE_LOG, "monitor"))])
    tn.save_table(summary.by_limit, "by_limit")
    tn.write_results(summary)
    return json.loads((out / "results.json").read_text())


def test_the_file_is_the_envelope_class_field_for_field(written):
    assert list(written) == [f.name for f in dataclasses.fields(ResultsFile)]
    assert written["schema"] == ENVELOPE_VERSION and written["result_class"] == "IngestSummary"
    assert written["tables"] == ["by_limit"] and written["results"]["samples"] == 90


def test_a_written_file_validates_against_the_committed_schema(written):
    jsonschema.validate(written, SCHEMA)
    assert SCHEMA["$ref"] == "#/$defs/ResultsFile"


@pytest.mark.parametrize("change", [
    {"notebook": "03_cpu_limits"},  # a notebook writes its own class
    {"result_class": "CpuLimitResults"},  # results must follow the class named
    {"result_class": "NoSuchResults"},
    {"schema": 2},
    {"tables": "by_limit"},
    {"extra": 1},
    {"results": {"samples": 90}},  # fields missing
])
def test_a_broken_file_does_not_validate(written, change):
    doc = copy.deepcopy(written) | change
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, SCHEMA)


def test_the_rules_cover_every_notebook_and_class():
    rules = SCHEMA["$defs"]["ResultsFile"]["allOf"]
    tied = {r["if"]["properties"]["notebook"]["const"] for r in rules if "notebook" in r.get("if", {}).get("properties", {})}
    assert tied == set(SCHEMA["notebooks"])
    assert set(SCHEMA["notebooks"].values()) <= set(rules[0]["properties"]["result_class"]["enum"])
