"""Report layer: notebook helpers, answers, charts, studies (papermill), HTML reports and their index, recommend.

What a notebook calls, each report's answer, altair charts, running studies, the HTML reports and their index, and
``throttlelab recommend``'s outputs.

One concept package each, entered through its face (the ``__init__`` listing its public names); they import one
way: ``charts`` and ``answers`` at the bottom, ``html`` on ``charts``, ``recommend`` on both, and ``study`` on
``html`` and the notebook helpers.

``answers``    each report's answer in plain words (lead, what it rests on, method)
``charts``     altair chart builders, one module per topic, and the shared theme
``html``       the executed notebook as an offline HTML page, static PNGs, the index, checks in headless Chromium
``recommend``  ``throttlelab recommend``'s terminal table, patches, HTML page and answer
``study``      study files and running them: papermill, requirements, provenance, publishing

At the top: :mod:`.notebook` (what every notebook calls, imported as ``tn``), :mod:`.tables_display` (tables for
people), :mod:`.results_schema` (the ``results.json`` contract generated from the result classes) and the command
modules (``study_cli``, ``recommend_cli``, ``index_cli``, ``check_cli``), which stay light: ``throttlelab --help``
imports them, and with them this package, so this face loads :mod:`.notebook` and the schema on first use.
"""

__all__ = ['json_schema', 'markdown', 'notebook']


def __getattr__(name: str):
    """The notebook helpers and the results schema, loaded on first use (they bring polars, numpy and every result
    class)."""
    if name == "notebook":
        import throttlelab.report.notebook as notebook

        return notebook
    if name in ("json_schema", "markdown"):
        from throttlelab.report.results_schema import json_schema, markdown

        return {"json_schema": json_schema, "markdown": markdown}[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
