"""The notebook API: tables and results saved, the answer box shown first and updated in place."""

import json

import polars as pl
import pytest

from throttlelab.report import notebook as tn
from throttlelab.report.html.html_export import answer_html
from throttlelab.results import ConfidenceInterval, Estimate, Fit


def test_answer_and_headlines_are_saved_and_read_back(tmp_path):
    out = tn.start(tmp_path / "out", name="t")
    assert tn.save_table(pl.DataFrame({"a": [1]}), "t") is None, "no path repr when a cell ends with save_table"
    tn.headline("6000m is 34% slower than 4000m (95% CI 13% to 60%)")
    tn.answer("Give it 4 cores or at least 8, not 5-7.", rests_on="16 runs, 1-2 per limit")
    assert json.loads((out / "headlines.json").read_text()) == ["6000m is 34% slower than 4000m (95% CI 13% to 60%)"]
    doc = tn.read_answer(out)
    assert doc == {"answer": "Give it 4 cores or at least 8, not 5-7.", "rests_on": "16 runs, 1-2 per limit",
                   "method": None, "headlines": ["6000m is 34% slower than 4000m (95% CI 13% to 60%)"]}
    tn.start(out, name="t")  # a re-run starts from nothing
    assert tn.read_answer(out) == {"answer": None, "rests_on": None, "method": None, "headlines": []}


def test_an_answer_object_gives_lead_basis_method_and_findings(tmp_path):
    from throttlelab.report.answers.answer_text import Answer

    out = tn.start(tmp_path / "out", name="t")
    tn.headline("first")
    tn.answer(Answer("Give it 4 cores.", "How sure: 16 runs; clear.", rests_on="16 runs", method="Max-T bounds.",
                     terms=("max-T",), headlines=("second",)))
    doc = tn.read_answer(out)
    assert doc["answer"] == "Give it 4 cores. How sure: 16 runs; clear." and doc["rests_on"] == "16 runs"
    assert doc["method"].startswith("Max-T bounds.") and "- *max-T*:" in doc["method"]
    assert doc["headlines"] == ["first", "second"]
    assert json.loads((out / "answer.json").read_text())["method"] == doc["method"]
    box = tn.answer_markdown(doc)
    assert box.startswith("> **Answer.** Give it 4 cores. How sure: 16 runs; clear.\n>\n> *Rests on:* 16 runs")
    assert "> <details><summary>Method</summary>" in box and "> <details><summary>Findings (2)</summary>" in box
    html = answer_html(doc)
    assert '<details class="answer-method"><summary>Method</summary><p>Max-T bounds.</p><ul><li><em>max-T</em>' in html
    assert '<details class="answer-findings"><summary>Findings (2)</summary><ul><li>first</li>' in html
    assert html.index("answer-lead") < html.index("answer-basis") < html.index("answer-findings")


def test_answer_box_html_escapes_and_says_when_there_is_none():
    box = answer_html({"answer": "<b>4 cores</b> with `auto`", "rests_on": "3 runs", "headlines": ["x"]})
    assert box.startswith('<section class="answer"') and "&lt;b&gt;" in box and "<code>auto</code>" in box
    assert "No answer" in answer_html({}) and "No answer" in answer_html(None, status="failed", error="boom")


def test_notebook_shows_the_answer_first_and_updates_it_in_place(tmp_path):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    published = []
    shell.display_pub.publish = lambda data, metadata=None, transient=None, update=False, **kw: published.append(
        (data, metadata, (transient or {}).get("display_id"), update))
    try:
        tn.start(tmp_path, name="t")
        tn.headline("a finding with 3 numbers")
        tn.answer("the decision", rests_on="n runs")
    finally:
        InteractiveShell.clear_instance()
    first, *updates = published
    assert first[0]["text/markdown"] == f"> **Answer.** {tn.PENDING}" and first[1] == tn.ANSWER_METADATA
    assert not first[3] and all(u[3] and u[2] == first[2] for u in updates)
    assert updates[-1][0]["text/markdown"].startswith("> **Answer.** the decision")
    assert "> *Rests on:* n runs" in updates[-1][0]["text/markdown"]


def test_results_tables_and_headlines(tmp_path):
    out = tn.start(tmp_path / "out", name="03_cpu_limits")
    assert out.is_dir() and tn.output_dir() == out
    df = pl.DataFrame({"limit": [1.0, 2.0], "runs": [[1, 2], [3]]})
    assert tn.save_table(df, "cells") is None  # nothing for a notebook cell to print
    assert (out / "cells.csv").read_text().splitlines() == ["limit,runs", '1.0,"[1, 2]"', "2.0,[3]"]
    assert pl.read_parquet(out / "cells.parquet")["runs"].to_list() == [[1, 2], [3]]  # nested kept in parquet
    tn.save_table({"a": [1]}, "plain")
    tn.save_table({"a": [2]}, "plain")  # saved twice, listed once
    tn.headline("4 cores beat 6")
    tn.headline("limit 2 is enough")
    assert tn.write_results(Estimate(4.0, 3.0, 5.0, unit="cores")) is None
    doc = json.loads((out / "results.json").read_text())
    assert doc["notebook"] == "03_cpu_limits" and doc["schema"] == 1 and doc["result_class"] == "Estimate"
    assert doc["results"]["value"] == 4.0 and doc["results"]["low"] == 3.0 and doc["tables"] == ["cells", "plain"]
    assert json.loads((out / "headlines.json").read_text()) == ["4 cores beat 6", "limit 2 is enough"]


def test_a_rerun_starts_clean(tmp_path):
    tn.start(tmp_path, name="x")
    tn.headline("old")
    tn.write_results(Estimate(1.0, None, None))
    tn.start(tmp_path, name="x")
    assert not (tmp_path / "results.json").exists() and not (tmp_path / "headlines.json").exists()


def test_non_finite_results_are_written_as_null(tmp_path):
    tn.start(tmp_path)
    tn.write_results(Fit("usl", {"kappa": Estimate(float("nan"), 0.0, float("inf"))}, {"aic": float("-inf")}, 3))
    text = (tmp_path / "results.json").read_text()
    r = json.loads(text)["results"]
    assert r["parameters"]["kappa"]["value"] is None and r["parameters"]["kappa"]["high"] is None
    assert r["goodness"] == {"aic": None}
    assert "NaN" not in text and "Infinity" not in text


@pytest.mark.parametrize("results", [{"best": 4.0}, ConfidenceInterval(1.0, 2.0), Estimate])
def test_results_must_be_a_documented_result_class(tmp_path, results):
    tn.start(tmp_path)
    with pytest.raises(TypeError, match="documented result class"):
        tn.write_results(results)
    assert not (tmp_path / "results.json").exists()
