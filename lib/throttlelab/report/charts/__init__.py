"""Altair chart builders, one module per topic. Each returns an ``alt.Chart``.

Importing the package enables the shared theme (:mod:`.style`: colour-blind-safe palettes).
"""

from throttlelab.report.charts.style import enable_theme

enable_theme()
