"""Analysis layer: scaling fits, dead zones, thread counts, contention, concurrency, capacity.

Functions take canonical tables and return frozen result dataclasses
(:mod:`throttlelab.results`).  One concept package each, entered through its
face (the ``__init__`` that lists its public names); they import one way:
``runs`` and ``stats`` at the bottom, ``limits`` and ``latency`` on them,
``threads`` on ``limits``, ``capacity`` and ``rightsizing`` on none, and
``batteries`` (simulations of the others) on top.

``runs``         reading runs, the response metric's unit and direction, summaries per level
``stats``        run-level comparisons, noise per level, intervals, multiple testing, selection
``limits``       scaling fits, the knee, dead zones, active time, the recommended limit
``threads``      the best thread count per limit, automatic threads against the best, advice
``latency``      quantiles, response curves, noisy neighbours, contention and concurrency limits
``capacity``     CPU per unit of work and how many units fit a budget
``rightsizing``  throttling-aware requests and limits of running containers
``batteries``    false alarms, power and coverage of the analyses, simulated as the reports use them
"""
