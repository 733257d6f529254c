"""The overcommit plugin: a PodGroup is enqueued while its minResources fit in
``overcommit-factor x allocatable - used``, less what Inqueue and Running gangs reserve.

Follows Volcano's ``pkg/scheduler/plugins/overcommit/overcommit.go`` (default factor 1.2,
values below 1 replaced by it; the enqueueable vote and its ``resource in cluster is
overused`` event, written with ``plugins/util/util.go`` ``FormatResourceNames``).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from raygang.volcano.api import Res, add_res, inqueue_resource, insufficient, scale, sub
from raygang.volcano.framework import Admitted, Session, Vote, reserved_by

if TYPE_CHECKING:
    from raygang.volcano.cache import Cluster, QueueView

__all__ = [
    "DEFAULT_OVERCOMMIT_FACTOR",
    "effective_factor",
    "factor_text",
    "overcommit_event",
    "overcommit_held",
    "overcommit_idle",
    "overcommit_short",
]


# The overcommit plugin's default ``overcommit-factor`` (1.2), exact.
DEFAULT_OVERCOMMIT_FACTOR = Fraction(6, 5)


def effective_factor(factor: Fraction) -> Fraction:
    """The factor the plugin uses: below 1 it falls back to the default 1.2."""
    return factor if factor >= 1 else DEFAULT_OVERCOMMIT_FACTOR


def factor_text(factor: Fraction) -> str:
    """The factor as people write it (``1.2``), or as a fraction when that would be inexact."""
    return str(float(factor)) if factor.denominator in (1, 2, 4, 5, 10) else f"{factor}"


def overcommit_idle(cluster: Cluster, factor: Fraction) -> Res:
    """``idleResource``: ``factor x TotalResource - Σ node.Used``."""
    return sub(scale(cluster.total, factor), cluster.used)


def overcommit_held(cluster: Cluster, reserved: Sequence[Res] = ()) -> Res:
    """``inqueueResource``: the full minResources of Inqueue gangs, what Running gangs with
    at least minMember allocated tasks still lack of theirs, and ``reserved`` (gangs
    enqueued earlier in the same session)."""
    held: Res = {}
    for group in cluster.groups:
        if group.inqueue:
            held = add_res(held, group.min_res)
        elif group.running_reserved and group.min_raw is not None:
            held = add_res(held, inqueue_resource(group.min_raw, group.allocated))
    return add_res(held, *reserved)


def overcommit_short(
    cluster: Cluster, factor: Fraction, minimum: Res, reserved: Sequence[Res] = ()
) -> list[str]:
    """The resource names the vote rejects on (``LessEqualWithDimensionAndResourcesName``
    over the job's own dimensions); empty when it permits."""
    return insufficient(
        add_res(overcommit_held(cluster, reserved), minimum),
        overcommit_idle(cluster, factor),
        minimum,
    )


def overcommit_event(short: Sequence[str]) -> str:
    """The Normal ``Unschedulable`` PodGroup event of a rejection."""
    return "resource in cluster is overused: " + ", ".join(f"overused {n}" for n in short)


def on_session_open(session: Session, factor: Fraction) -> Session:
    """The plugin's ``OnSessionOpen``: its enqueue vote over the session's cluster."""
    cluster = session.cluster
    if cluster is None:
        return session

    def vote(queue: QueueView, minimum: Res, admitted: Sequence[Admitted]) -> Vote | None:
        short = overcommit_short(cluster, factor, minimum, reserved_by(admitted))
        return Vote(False, "overcommit", overcommit_event(short)) if short else None

    return session.add_job_enqueueable(vote)
