"""Tests of throttlelab.analysis.rightsizing.rightsizing_run: one request read and sized for every view, the request kept
with the run, the window it states, and no reading in the analysis layer."""

from __future__ import annotations

import ast
import doctest
from pathlib import Path

import pytest

import throttlelab.analysis.rightsizing.rightsizing_run as mod
from tests.analysis.rightsizing.read_and_rightsize import rightsize_request
from throttlelab.analysis.rightsizing import RightsizingRequest, rightsize_read, run_results
from throttlelab.analysis.rightsizing.workload_advice import GAUGES
from throttlelab.errors import ThrottlelabError
from throttlelab.ingest.prometheus import SourceRequest, read_request

SAMPLE = Path(__file__).resolve().parents[3] / "data" / "published" / "samples" / "shop_namespace.om.gz"


def test_doctests_run():
    res = doctest.testmod(mod)
    assert res.attempted >= 2 and res.failed == 0


def test_an_export_is_read_whole_by_default_and_a_longer_request_is_stated_beside_what_was_observed():
    whole = rightsize_request(openmetrics_path=str(SAMPLE), read_directly=True)
    assert whole.window_text() == "26.0 h observed at 120-s steps"
    assert len(whole.recommendations) == 6 and whole.how.startswith("read directly")
    asked = rightsize_request(openmetrics_path=str(SAMPLE), read_directly=True, since="14d")
    assert asked.window_text() == "26.0 h observed (of 336.0 h requested) at 120-s steps"


def test_the_run_keeps_its_request_and_its_results_take_namespace_selector_and_min_history_from_it():
    run = rightsize_request(openmetrics_path=str(SAMPLE), read_directly=True, namespace="shop", selector="",
                            min_history="12h", throttle_target=0.1)
    assert run.request.namespace == "shop" and run.request.min_history == "12h" and run.request.read_directly
    assert run.settings == RightsizingRequest(min_history="12h", throttle_target=0.1).settings()
    assert (run.settings.min_history_s, run.settings.throttle_target) == (43200.0, 0.1)
    doc = run_results(run)
    assert (doc.input["namespace"], doc.input["selector"]) == ("shop", "")
    assert doc.parameters == {"throttle_target": 0.1, "limit_policy": "target", "min_history": "12h"}
    assert run_results(rightsize_request(openmetrics_path=str(SAMPLE), read_directly=True)).input["namespace"] == ""


def test_a_request_asks_for_the_advice_gauges_and_refuses_a_bad_duration_before_anything_is_read():
    assert dict(RightsizingRequest().gauges) == GAUGES
    with pytest.raises(ThrottlelabError, match="'a day': not a duration"):
        RightsizingRequest(openmetrics_path=str(SAMPLE), min_history="a day")
    with pytest.raises(ThrottlelabError, match="'yesterday': not a time"):
        RightsizingRequest(openmetrics_path=str(SAMPLE), end="yesterday")


def test_only_a_read_of_a_rightsizing_request_is_sized():
    read = read_request(SourceRequest(openmetrics_path=str(SAMPLE), read_directly=True, namespace="shop"))
    with pytest.raises(TypeError, match="a read of a RightsizingRequest, not of a SourceRequest"):
        rightsize_read(read)


def test_nothing_in_the_right_sizing_reads_a_source():
    """The fetch lives in the ingest layer: no module of analysis/rightsizing reaches a server, an export or a file
    of series (it gets arrays and tables)."""
    readers = {"read_request", "read_source", "fetch_containers", "fetch_from_export", "PrometheusAPI",
               "LocalPrometheus", "read_openmetrics_containers", "read_prometheus", "urlopen"}
    package = Path(mod.__file__).parent
    found = [f"{p.name}: {n.id if isinstance(n, ast.Name) else n.attr}" for p in sorted(package.glob("*.py"))
             for n in ast.walk(ast.parse(p.read_text()))
             if isinstance(n, (ast.Name, ast.Attribute)) and (n.id if isinstance(n, ast.Name) else n.attr) in readers]
    found += [f"{p.name}: imports {a.name}" for p in sorted(package.glob("*.py"))
              for n in ast.walk(ast.parse(p.read_text())) if isinstance(n, ast.ImportFrom) for a in n.names
              if a.name in readers]
    assert found == []
