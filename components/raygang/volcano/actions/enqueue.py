"""The enqueue action: Pending PodGroups become Inqueue while every voter permits.

Follows Volcano's ``pkg/scheduler/actions/enqueue/enqueue.go`` and ``JobEnqueueable`` in
``pkg/scheduler/framework/session_plugins.go``: a PodGroup without minResources is
enqueued with no vote (even in a closed queue); otherwise the session's voters are asked
in tier order (:meth:`raygang.volcano.framework.Session.job_enqueueable`) and the first
rejection returns: the event a user sees is that voter's. A queue missing from the session
drops the job.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from raygang.kube.quantity import Quantity
from raygang.volcano.api import to_res
from raygang.volcano.framework import Admitted, Session, Vote

__all__ = ["admitted_before", "vote"]


def vote(
    session: Session,
    queue: str,
    min_raw: Mapping[str, Quantity] | None,
    admitted: Sequence[Admitted] = (),
) -> Vote:
    """Volcano's enqueue decision for a Pending PodGroup of ``queue``."""
    assert session.cluster is not None
    view = session.cluster.queue_view(queue)
    if view is None:
        return Vote(False, "session")  # the job is dropped from the session
    if min_raw is None:
        return Vote(True)  # no vote at all, even in a closed queue
    return session.job_enqueueable(view, to_res(min_raw), admitted)


def admitted_before(session: Session) -> list[Admitted]:
    """Pending PodGroups that pass the enqueue gate now, oldest first.

    Our PodGroup does not exist yet; the scheduler runs every second, so by the time it
    does, these are Inqueue and hold their reservation.
    """
    assert session.cluster is not None
    admitted: list[Admitted] = []
    for group in session.cluster.groups:
        if not group.is_pending:
            continue  # only Pending PodGroups are enqueued
        if vote(session, group.queue, group.min_raw, admitted).admitted and (
            group.min_raw is not None
        ):
            admitted.append(Admitted(group.key, group.queue, group.min_res))
    return admitted
