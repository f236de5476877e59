"""The domain core: the terms every layer shares, defined once (below ingest; imports no layer).

``quantities``  CPU quantities (cores, millicores, ``unlimited``) read and written; memory quantities
"""

from __future__ import annotations

from throttlelab.core.quantities import (
    cores_expr,
    cores_text,
    format_cores,
    format_cpu,
    format_cpu_range,
    format_millicores,
    memory_bytes,
    parse_cores,
)

__all__ = ['cores_expr', 'cores_text', 'format_cores', 'format_cpu', 'format_cpu_range', 'format_millicores',
           'memory_bytes', 'parse_cores']
