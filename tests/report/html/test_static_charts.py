"""A downloaded notebook shows its charts untrusted: PNG beside the spec, script HTML dropped."""

import base64

import altair as alt
import nbformat
import polars as pl

from throttlelab.report.html import offline, static_charts


def _notebook_with_a_chart(path, width=None):
    chart = alt.Chart(pl.DataFrame({"x": [1, 2, 3], "y": [3, 1, 2]})).mark_line().encode(x="x:Q", y="y:Q") \
        .properties(title="t", **({"width": width} if width else {}))
    offline.enable(reset=True)
    data, metadata = chart._repr_mimebundle_()
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("chart")
    cell.outputs = [nbformat.v4.new_output("display_data", data=data, metadata=metadata),
                    nbformat.v4.new_output("display_data", data={"text/html": "<table></table>"})]
    nb.cells = [cell]
    nbformat.write(nb, str(path))


def test_png_is_added_and_script_html_dropped_for_download(tmp_path):
    path = tmp_path / "nb.ipynb"
    _notebook_with_a_chart(path)
    assert static_charts.add_static_images(path) == 1
    assert static_charts.add_static_images(path) == 0, "idempotent"
    assert static_charts.for_download(path) == 1
    out = nbformat.read(str(path), as_version=4).cells[0].outputs
    chart, table = out
    assert set(chart["data"]) == {"image/png", offline.VEGALITE_MIME, "text/plain"}
    assert base64.b64decode(chart["data"]["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"
    assert table["data"] == {"text/html": "<table></table>"}, "other HTML outputs are kept"


def test_a_page_wide_chart_gets_a_page_wide_png(tmp_path):
    """vl_convert has no page: a "container" chart would be 300 px; the PNG is the static width instead."""
    import struct

    from throttlelab.report.charts.style import STATIC_WIDTH, WIDTH

    path = tmp_path / "nb.ipynb"
    _notebook_with_a_chart(path, width=WIDTH)
    assert static_charts.add_static_images(path) == 1
    png = base64.b64decode(nbformat.read(str(path), as_version=4).cells[0].outputs[0]["data"]["image/png"])
    width = struct.unpack(">I", png[16:20])[0]
    assert width == STATIC_WIDTH, width
