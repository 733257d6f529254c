"""The drf plugin's job order: within a queue, the job holding the smaller dominant share of
the cluster comes first.

Follows Volcano's ``pkg/scheduler/plugins/drf/drf.go`` (``calculateShare`` and the job order
function; hierarchy, which would add a queue order, is off in the default configuration).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from raygang.volcano.api import EPSILON, ZERO, Num, Res, get
from raygang.volcano.framework import Session


def dominant_share(allocated: Mapping[str, Num], total: Mapping[str, Num]) -> Num:
    """``calculateShare``: the largest ``allocated / total`` over the cluster's resource
    names (at least ``minResource``; ``pods`` is no resource name there)."""
    best: Num = ZERO
    for name, have in total.items():
        if name != "pods" and have >= EPSILON:
            best = max(best, Fraction(get(allocated, name)) / Fraction(have))
    return best


def on_session_open(session: Session) -> Session:
    """The plugin's ``OnSessionOpen``: its job order, the smaller dominant share of the
    session's cluster first."""
    cluster = session.cluster
    if cluster is None:
        return session
    total = cluster.total

    def order(ready: bool, held: Res) -> Num:
        return dominant_share(held, total)

    return session.add_job_order(order)
