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
from raygang.volcano.framework import Admitted, OvercommitBallot, Session, reserved_by

if TYPE_CHECKING:
    from raygang.volcano.cache import Cluster, QueueView

__all__ = [
    "DEFAULT_OVERCOMMIT_FACTOR",
    "effective_factor",
    "overcommit_ballot",
    "overcommit_event",
    "overcommit_held",
    "overcommit_holders",
    "overcommit_idle",
]


# The overcommit plugin's default ``overcommit-factor`` (1.2), exact.
DEFAULT_OVERCOMMIT_FACTOR = Fraction(6, 5)


def effective_factor(factor: Fraction) -> Fraction:
    """The factor the plugin uses: below 1 it falls back to the default 1.2."""
    return factor if factor >= 1 else DEFAULT_OVERCOMMIT_FACTOR


def overcommit_idle(cluster: Cluster, factor: Fraction) -> Res:
    """``idleResource``: ``factor x TotalResource - Σ node.Used``."""
    return sub(scale(cluster.total, factor), cluster.used)


def overcommit_holders(cluster: Cluster) -> list[tuple[str, Res]]:
    """``inqueueResource``'s terms, by PodGroup key: the full minResources of Inqueue
    gangs, and what Running gangs with at least minMember allocated tasks still lack of
    theirs."""
    holders: list[tuple[str, Res]] = []
    for group in cluster.groups:
        if group.inqueue:
            holders.append((group.key, group.min_res))
        elif group.running_reserved and group.min_raw is not None:
            holders.append((group.key, inqueue_resource(group.min_raw, group.allocated)))
    return holders


def overcommit_held(holders: Sequence[tuple[str, Res]], reserved: Sequence[Res] = ()) -> Res:
    """``inqueueResource``: the :func:`overcommit_holders` summed, and ``reserved`` (gangs
    enqueued earlier in the same session)."""
    held: Res = {}
    for _, amount in holders:
        held = add_res(held, amount)
    return add_res(held, *reserved)


def overcommit_event(short: Sequence[str]) -> str:
    """The Normal ``Unschedulable`` PodGroup event of a rejection."""
    return "resource in cluster is overused: " + ", ".join(f"overused {n}" for n in short)


def overcommit_ballot(
    cluster: Cluster, factor: Fraction, minimum: Res, reserved: Sequence[Res] = ()
) -> OvercommitBallot:
    """The enqueue vote on a PodGroup asking ``minimum``, with the numbers it compared."""
    budget = scale(cluster.total, factor)
    idle = overcommit_idle(cluster, factor)
    holders = overcommit_holders(cluster)
    held = overcommit_held(holders, reserved)
    short = insufficient(add_res(held, minimum), idle, minimum)
    return OvercommitBallot(
        permits=not short,
        event=overcommit_event(short) if short else None,
        factor=factor,
        allocatable=cluster.total,
        budget=budget,
        used=cluster.used,
        idle=idle,
        held=held,
        ask=minimum,
        short=tuple(short),
        holders=tuple(holders),
    )


def on_session_open(session: Session, factor: Fraction) -> Session:
    """The plugin's ``OnSessionOpen``: its enqueue vote over the session's cluster, with
    ``factor`` as the plugin takes it (below 1, the default)."""
    cluster = session.cluster
    if cluster is None:
        return session
    factor = effective_factor(factor)

    def vote(
        queue: QueueView | None, minimum: Res, admitted: Sequence[Admitted]
    ) -> OvercommitBallot:
        return overcommit_ballot(cluster, factor, minimum, reserved_by(admitted))

    return session.add_job_enqueueable(vote)
