"""CPU-burning kernels of the target service.

The kernels are vectorised numpy trigonometry (``x = sin(sqrt(x) + 0.5)`` over a
fixed-size chunk, repeated).  numpy releases the GIL inside each ufunc loop, so
several request threads of the service really run on several cores at once and
compete for them -- as php-apache's worker processes or a FastAPI thread pool
running a native (GIL-free) embedding model do.  A pure-Python ``math.sin`` loop
would hold the GIL and serialise every request on one core, which is not the
workload the write-ups measured.  numpy ufuncs are single-threaded (no BLAS), so
the number of busy threads is exactly the number of stages running.

Work is counted in *element evaluations* (one ``sqrt`` + one ``sin`` of one
float64); on this machine about 10-12 ns each on an idle core, so
``burn(4_000_000)`` is ~45 ms of CPU, close to the php-apache request of the
contention paper (~50 ms at no contention).
"""

from __future__ import annotations

import numpy as np

#: Elements per ufunc call: small enough to stay in L1/L2, big enough that the
#: GIL is released for almost all of the time (numpy releases it per call).
CHUNK = 16_384

#: Upper bound on the work of one call (about 10 s of CPU); larger requests are refused.
MAX_ELEMENTS = 1_000_000_000


def burn(elements: int) -> float:
    """Spend CPU on ``elements`` trigonometric evaluations; return a checksum.

    Parameters
    ----------
    elements
        Number of element evaluations, ``0 <= elements <= MAX_ELEMENTS``;
        rounded up to a whole number of chunks (at least one).

    Returns
    -------
    float
        Sum of the final chunk (keeps the work from being optimised away and
        lets tests check determinism).
    """
    if elements < 0 or elements > MAX_ELEMENTS:
        raise ValueError(f"elements must be in [0, {MAX_ELEMENTS}], got {elements}")
    x = np.linspace(0.1, 1.0, CHUNK)
    rounds = max(1, -(-elements // CHUNK))
    tmp = np.empty_like(x)
    for _ in range(rounds):
        np.sqrt(x, out=tmp)
        tmp += 0.5
        np.sin(tmp, out=x)
    return float(x.sum())
