"""The charts as a reader sees them, in headless Chromium on a report-wide page: page width, darker = better on the
heatmap's screenshot, whole intervals, no axis below zero, elapsed-time axes, and a fit's warning on the page."""

from __future__ import annotations

import polars as pl
import pytest

from tests.analysis.synthetic_cpu import container
from throttlelab.analysis.limits.dead_zones import find_dead_zones
from throttlelab.analysis.runs.prepare import prepare_runs
from throttlelab.analysis.rightsizing.rightsizing import rightsize
from throttlelab.analysis.rightsizing.rightsizing_views import marks_frame, usage_distribution_frame
from throttlelab.analysis.runs.runs_input import load_runs
from throttlelab.analysis.limits.scaling import fit_runtime_models
from throttlelab.analysis.threads.thread_counts import analyse_thread_counts
from throttlelab.report.html.browser import chromium_path
from throttlelab.report.charts.dead_zone_charts import dead_zone_chart
from throttlelab.report.charts.monitor_charts import monitor_panels
from throttlelab.report.charts.rightsizing_charts import usage_distribution_chart
from throttlelab.report.charts.scaling_charts import scaling_chart
from throttlelab.report.charts.thread_charts import thread_heatmap

from .chart_checks import luminance
from .chromium_charts import PAGE_WIDTH, chart_page, look, pixel, png_pixels
from .test_monitor_charts import some_intervals

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(chromium_path() is None, reason="chromium not installed (make system-tools installs it)")]

NAMES = ["heatmap", "dead zones", "histogram", "monitor", "scaling"]


@pytest.fixture(scope="module")
def page(published_runs, tmp_path_factory):
    ap = prepare_runs(load_runs("published:automaxprocs"), metric="throughput_rps")
    [dz] = find_dead_zones(published_runs, n_sim=1000)
    c = container(mean=0.15)
    fitted = published_runs.filter(pl.col("limit_x").is_not_null())
    fits = fit_runtime_models(fitted["limit_x"].to_numpy(), fitted["wall_seconds"].to_numpy(), n_boot=10)
    charts = [thread_heatmap(analyse_thread_counts(ap.runs, metric=ap.metric)[0], title="throughput by threads"),
              dead_zone_chart(dz, title="dead zones"),
              usage_distribution_chart(usage_distribution_frame(c), marks_frame(rightsize(c)), title="usage"),
              monitor_panels(some_intervals(), title="monitor"),
              scaling_chart(published_runs, fits, title="scaling")]
    facts, shots = look(chart_page(tmp_path_factory.mktemp("charts") / "charts.html", [c.to_dict() for c in charts]))
    assert len(facts) == len(NAMES) and all(f["svg"] for f in facts), "every chart drew"
    return dict(zip(NAMES, facts)), dict(zip(NAMES, shots))


def test_charts_use_the_page_width(page):
    facts, _ = page
    for name, f in facts.items():
        width = f["svg"]["w"]
        assert 0.8 * PAGE_WIDTH <= width <= PAGE_WIDTH + 1, (name, width)
        if name != "monitor":  # the stacked monitor panels have a fixed width; the others fill the page exactly
            assert width >= PAGE_WIDTH - 1, (name, width)


def test_the_best_heatmap_cell_is_the_darkest_on_screen(page):
    facts, shots = page
    f, (_, _, rows) = facts["heatmap"], png_pixels(shots["heatmap"])
    shade = {}
    for r in f["rects"]:
        value = float(r["label"].split("value: ")[1].split(";")[0].replace(",", ""))
        # a point left of the cell's centre, off its text, relative to the screenshot
        shade[value] = luminance("rgb(%d, %d, %d)" % pixel(rows, r["x"] - f["svg"]["x"] + r["w"] * 0.15,
                                                           r["y"] - f["svg"]["y"] + r["h"] / 2))
    assert len(shade) == 6
    assert shade[max(shade)] == min(shade.values()), "highest throughput: darkest cell (darker = better)"
    assert shade[min(shade)] == max(shade.values())


def test_every_interval_lies_inside_the_plot(page):
    facts, _ = page
    f = facts["dead zones"]
    frame = max(f["frames"], key=lambda b: b["w"] * b["h"])
    assert len(f["rules"]) >= 11, "an interval per limit"
    for r in f["rules"]:
        assert frame["y"] + 1 < r["y"] and r["y"] + r["h"] < frame["y"] + frame["h"] - 1, (r, frame)


def test_no_axis_goes_below_zero_where_nothing_can(page):
    facts, _ = page
    labels = facts["histogram"]["x_labels"]
    assert labels and not [t for t in labels if t.startswith(("-", "\u2212"))], labels
    assert float(labels[0]) == 0.0


def test_time_axes_read_as_elapsed_time(page):
    facts, _ = page
    f = facts["monitor"]
    assert f["x_titles"][0] == "time since 2026-01-01 00:00:00 UTC (s)"
    assert all(t.replace(".", "", 1).isdigit() for t in f["x_labels"]), f["x_labels"]


def test_a_fit_that_misses_says_so_on_the_page(page):
    facts, _ = page
    assert "misses the runs" in facts["scaling"]["subtitle"]


def test_a_page_wide_chart_follows_its_container(tmp_path, published_runs):
    """A scroll bar appearing, or a side panel opening, narrows the output area with no window resize."""
    [dz] = find_dead_zones(published_runs, n_sim=200)
    page = chart_page(tmp_path / "one.html", [dead_zone_chart(dz, title="dead zones").to_dict()])
    facts, _ = look(page, then="document.querySelector('body > div').style.width = '800px'")
    assert 795 <= facts[0]["svg"]["w"] <= 801, facts[0]["svg"]
