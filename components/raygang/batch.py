"""Garbage collection suited to loading, planning and rendering a whole stack in one go."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["batch_collection"]

_depth = 0  # nesting of batch_collection: only the outermost one changes anything


@contextlib.contextmanager
def batch_collection() -> Iterator[None]:
    """No cycle collection during the batch; the collector's state restored after it.

    Planning allocates many small objects (about 640,000 for 1000 jobs) that all live
    until the plan is rendered or registered, and leaves no cyclic garbage (none for the
    benchmark's 1000 jobs; ``tests/test_batch.py`` bounds it over repeated passes, as a
    cycle left per pass would pile up with the collector off). A collection walks every live
    young object, so whatever the threshold, each object of the plan was walked at least
    twice on its way to the oldest generation: a tenth of the planning time of 1000 jobs
    over a 500-node snapshot, all of it finding nothing. So the collector is off while the
    outermost batch runs (reference counting still frees everything that is not a cycle).

    What already exists when the batch starts (the loaded manifests, a cluster snapshot,
    every imported module) is frozen (``gc.freeze``) during it, and at its end everything,
    what the batch made included, goes to the oldest generation unwalked (a freeze then
    an unfreeze moves lists, it does not visit objects); a later full collection still
    finds any cycle left behind. A process that froze objects itself keeps its freeze
    untouched, and a collector the process disabled stays disabled.
    """
    global _depth
    outermost = _depth == 0
    enabled = gc.isenabled()
    freeze = outermost and gc.get_freeze_count() == 0
    if outermost:
        gc.disable()
    if freeze:
        gc.freeze()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if freeze:
            gc.freeze()
            gc.unfreeze()
        if outermost and enabled:
            gc.enable()
