"""How often Python's garbage collector looks at young objects while a stack is planned.

Why this exists: ``make bench`` missed its target for planning 1000 jobs against a 500-node
snapshot (0.54 to 0.58 of Pulumi's bare registration, against 0.50). The preflight's
simulations allocate many short-lived containers; at Python's default threshold of 700
allocations a young collection runs thousands of times per pass, each also walking what
survived. The collector took 1.15 to 1.25 s of the 7.2 s pass (measured with it switched
off); collecting young objects every 10,000 allocations instead took 0.9 s off the same
pass, with the same plans.

``pipeline.plan_everything`` runs the pass under it, and ``raygang.cli.main`` its whole
command (reading the files and printing the plan allocate alike). Nothing else changes:
every generation is still collected, cycles are still freed during the pass, and the
thresholds are put back when it ends (also after an error). A process that switched the
collector off keeps it off. Python's default (``contextlib.nullcontext`` in place of
:func:`young_collections_every`) is the specification: the tests plan with both and compare
the plans.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["PLANNING_THRESHOLD", "young_collections_every"]

#: Allocations between young collections during a planning pass (Python's default: 700).
PLANNING_THRESHOLD = 10_000


@contextmanager
def young_collections_every(allocations: int = PLANNING_THRESHOLD) -> Iterator[None]:
    """Within the block, collect the youngest generation every ``allocations`` net
    allocations (never more often than the process already does); the older generations'
    thresholds are unchanged."""
    young, middle, old = gc.get_threshold()
    if not gc.isenabled() or young == 0 or young >= allocations:
        yield
        return
    gc.set_threshold(allocations, middle, old)
    try:
        yield
    finally:
        gc.set_threshold(young, middle, old)
