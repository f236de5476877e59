"""A report as a page: self-contained HTML, offline charts, static PNGs, the index, checks of what a reader sees.

The executed notebook becomes one HTML page with no network; charts draw offline (the vega bundle in the page), a
downloaded notebook carries static PNGs, the index lists every report with its answer, and headless Chromium and a
reader's-text check (no working notes) look at the pages as a reader would.

The nbconvert template is ``templates/throttlelab`` beside :mod:`.html_export` (package data).
"""

from throttlelab.report.html.browser import check_pages, chromium_path
from throttlelab.report.html.html_export import export_html, header_html, one_line
from throttlelab.report.html.index import SECTIONS, write_index
from throttlelab.report.html.offline import chart_html
from throttlelab.report.html.static_charts import add_static_images, for_download
from throttlelab.report.html.user_text import page_problems

__all__ = [
    'SECTIONS', 'add_static_images', 'chart_html', 'check_pages', 'chromium_path', 'export_html', 'for_download',
    'header_html', 'one_line', 'page_problems', 'write_index'
]
