"""A report as a page: self-contained HTML, offline charts, static PNGs, the index, checks of what a reader sees.

The executed notebook becomes one HTML page with no network; charts draw offline (the vega bundle in the page), a
downloaded notebook carries static PNGs, the index lists every report with its answer, and headless Chromium and a
reader's-text check (no working notes) look at the pages as a reader would.

The nbconvert template is ``templates/throttlelab`` beside :mod:`.html_export` (package data).
"""
