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
from raygang.volcano.api import Res, to_res
from raygang.volcano.decisions import EnqueueLog
from raygang.volcano.framework import Admitted, Ballot, Session, Vote

__all__ = ["admitted_before", "ballots", "enqueue", "pending_votes", "vote"]


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


def ballots(
    session: Session, queue: str, minimum: Res, admitted: Sequence[Admitted] = ()
) -> tuple[Ballot, ...]:
    """Every voter's ballot on a PodGroup of ``queue`` asking ``minimum``, with what it
    compared, the voters Volcano would not ask after a rejection included (what they would
    say); a queue the session lacks is voted on by the voters that do not read it."""
    assert session.cluster is not None
    return session.ballots(session.cluster.queue_view(queue), minimum, admitted)


def enqueue(session: Session, queue: str, min_raw: Mapping[str, Quantity]) -> EnqueueLog:
    """The enqueue action over the session's Pending PodGroups, oldest first, then the
    PodGroup of the job judged (``queue``, ``min_raw``), the newest: each vote in the log.

    The job's PodGroup does not exist yet; the scheduler runs every second, so by the time
    it does, the PodGroups admitted now are Inqueue and hold their reservation.
    """
    votes, admitted = pending_votes(session)
    judged = vote(session, queue, min_raw, admitted)
    every = ballots(session, queue, to_res(min_raw), admitted)
    return EnqueueLog(votes, admitted, judged, every)


def pending_votes(session: Session) -> tuple[tuple[tuple[str, Vote], ...], tuple[Admitted, ...]]:
    """Each Pending PodGroup's vote, oldest first, and those it admits."""
    assert session.cluster is not None
    votes: list[tuple[str, Vote]] = []
    admitted: list[Admitted] = []
    for group in session.cluster.groups:
        if not group.is_pending:
            continue  # only Pending PodGroups are enqueued
        decided = vote(session, group.queue, group.min_raw, admitted)
        votes.append((group.key, decided))
        if decided.admitted and group.min_raw is not None:
            admitted.append(Admitted(group.key, group.queue, group.min_res))
    return tuple(votes), tuple(admitted)


def admitted_before(session: Session) -> list[Admitted]:
    """Pending PodGroups that pass the enqueue gate now, oldest first."""
    return list(pending_votes(session)[1])
