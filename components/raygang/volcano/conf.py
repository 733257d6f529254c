"""The scheduler configuration preflight models: Volcano's default one.

Follows ``defaultSchedulerConf`` in Volcano's ``pkg/scheduler/util.go`` (plugins priority,
gang, conformance, overcommit, drf, predicates, proportion, nodeorder): a session opens
with their enqueue voters, predicates and node order registered in tier order (overcommit
in tier 2 before proportion; predicates before nodeorder).
"""

from __future__ import annotations

from fractions import Fraction

from raygang.volcano.cache import Cluster
from raygang.volcano.framework import Newest, Session
from raygang.volcano.plugins import drf, gang, nodeorder, overcommit, predicates, proportion
from raygang.volcano.plugins.overcommit import DEFAULT_OVERCOMMIT_FACTOR

__all__ = ["DEFAULT_OVERCOMMIT_FACTOR", "open_session"]


def open_session(
    cluster: Cluster | None = None,
    factor: Fraction = DEFAULT_OVERCOMMIT_FACTOR,
    newest: Newest | None = None,
) -> Session:
    """A session of the default configuration over ``cluster`` (each plugin's
    ``OnSessionOpen``, in the configuration's order); ``factor``: overcommit's
    ``overcommit-factor``; ``newest``: the job judged, among the session's jobs for
    proportion's deserved shares (allocate's queue order and gates) and its queue's
    realCapability."""
    session = gang.on_session_open(Session(cluster))
    session = overcommit.on_session_open(session, factor)
    session = drf.on_session_open(session)
    session = predicates.on_session_open(session)
    session = proportion.on_session_open(session, newest)
    return nodeorder.on_session_open(session)
