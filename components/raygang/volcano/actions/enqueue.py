"""The enqueue action: Pending PodGroups become Inqueue while every voter permits.

Follows Volcano's ``pkg/scheduler/actions/enqueue/enqueue.go`` and ``JobEnqueueable`` in
``pkg/scheduler/framework/session_plugins.go``: a PodGroup without minResources is
enqueued with no vote (even in a closed queue); otherwise the voters of the default
configuration are asked in tier order, overcommit then proportion, and the first
rejection returns: the event a user sees is that voter's, and proportion is not asked
once overcommit rejects. A queue missing from the session drops the job.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

from raygang.kube.quantity import Quantity
from raygang.volcano.api import Res, to_res
from raygang.volcano.plugins.overcommit import overcommit_event, overcommit_short
from raygang.volcano.plugins.proportion import proportion_event, proportion_short

if TYPE_CHECKING:
    from raygang.volcano.cache import Cluster

__all__ = ["Admitted", "Vote", "admitted_before", "vote"]


@dataclass
class Admitted:
    """A gang that Volcano admits before this one (a Pending PodGroup that passes now)."""

    name: str
    queue: str
    minimum: Res


@dataclass(frozen=True)
class Vote:
    """``JobEnqueueable``'s answer, who gave it, and the PodGroup event it records.

    ``by``: the voter that rejected (``overcommit``, ``proportion``), ``session`` when the
    queue is not in the session, or None when the job is enqueued.
    """

    admitted: bool
    by: Literal["overcommit", "proportion", "session"] | None = None
    event: str | None = None


def reserved_by(admitted: Sequence[Admitted], queue: str | None = None) -> list[Res]:
    """The minimum of the gangs enqueued earlier in the session (of ``queue``, if given)."""
    return [a.minimum for a in admitted if queue is None or a.queue == queue]


def vote(
    cluster: Cluster,
    factor: Fraction,
    queue: str,
    min_raw: Mapping[str, Quantity] | None,
    admitted: Sequence[Admitted] = (),
) -> Vote:
    """Volcano's enqueue decision for a Pending PodGroup of ``queue``."""
    view = cluster.queue_view(queue)
    if view is None:
        return Vote(False, "session")  # the job is dropped from the session
    if min_raw is None:
        return Vote(True)  # no vote at all, even in a closed queue
    minimum = to_res(min_raw)
    short = overcommit_short(cluster, factor, minimum, reserved_by(admitted))
    if short:
        return Vote(False, "overcommit", overcommit_event(short))
    if not view.open:
        return Vote(False, "proportion")  # rejected without an event
    short = proportion_short(cluster, view, minimum, reserved_by(admitted, view.name))
    if short:
        return Vote(False, "proportion", proportion_event(short))
    return Vote(True)


def admitted_before(cluster: Cluster, factor: Fraction) -> list[Admitted]:
    """Pending PodGroups that pass the enqueue gate now, oldest first.

    Our PodGroup does not exist yet; the scheduler runs every second, so by the time it
    does, these are Inqueue and hold their reservation.
    """
    admitted: list[Admitted] = []
    for group in cluster.groups:
        if not group.is_pending:
            continue  # only Pending PodGroups are enqueued
        if vote(cluster, factor, group.queue, group.min_raw, admitted).admitted and (
            group.min_raw is not None
        ):
            admitted.append(Admitted(group.key, group.queue, group.min_res))
    return admitted
