"""The decision log: what a session decided, each decision with the numbers it compared.

Volcano shows its decisions as PodGroup events and conditions and as scheduler log lines
(``framework/session_plugins.go`` ``JobEnqueueable``, ``actions/enqueue/enqueue.go``,
``actions/allocate/allocate.go``'s fit errors and queue order); it keeps no record of the
numbers behind them. raygang keeps them as frozen records, so that the preflight report
(:mod:`raygang.preflight`) words what the plugins and actions decided without redoing any
of their arithmetic. The records are raygang's; every name and number in them is the
plugin's or the action's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from raygang.volcano.api import Res
from raygang.volcano.cache import QueueView

__all__ = [
    "Admitted",
    "Ballot",
    "EnqueueLog",
    "OvercommitBallot",
    "ProportionBallot",
    "QueueCapability",
    "QueueShares",
    "Vote",
]


@dataclass(frozen=True)
class Admitted:
    """A gang that Volcano admits before this one (a Pending PodGroup that passes now)."""

    name: str
    queue: str
    minimum: Res


@dataclass(frozen=True)
class OvercommitBallot:
    """overcommit's enqueue vote (``plugins/overcommit/overcommit.go``) and its inputs.

    It permits while ``held + ask <= idle`` on the ask's own resource names, ``idle``
    being ``factor x allocatable - used``; ``short`` names where it does not.
    """

    permits: bool
    event: str | None  # the PodGroup event of a rejection
    factor: Fraction  # the factor in use (values below 1 fall back to the default)
    allocatable: Res  # the cluster's
    budget: Res  # factor x allocatable
    used: Res  # what the nodes' pods use
    idle: Res  # budget - used
    held: Res  # Inqueue and Running gangs' reservations, and gangs enqueued earlier
    ask: Res  # the PodGroup's minResources
    short: tuple[str, ...]
    voter: Literal["overcommit"] = "overcommit"


@dataclass(frozen=True)
class ProportionBallot:
    """proportion's enqueue vote (``plugins/proportion/proportion.go``) and its inputs.

    A queue that is not Open takes no PodGroup (rejected with no event, nothing compared);
    otherwise it permits while ``committed + ask <= realCapability`` on the ask's names.
    """

    permits: bool
    event: str | None  # the PodGroup event of a rejection (None for a queue not Open)
    queue: str
    open: bool
    real: Res  # the queue's realCapability
    committed: Res  # allocated + inqueue - elastic, and its gangs enqueued earlier
    ask: Res
    short: tuple[str, ...]
    voter: Literal["proportion"] = "proportion"


# One voter's answer with what it compared.
Ballot = OvercommitBallot | ProportionBallot


@dataclass(frozen=True)
class Vote:
    """``JobEnqueueable``'s answer, who gave it, the PodGroup event it records, and the
    ballots of the voters asked, in tier order.

    ``by``: the voter that rejected (``overcommit``, ``proportion``), ``session`` when the
    queue is not in the session, or None when the job is enqueued.
    """

    admitted: bool
    by: Literal["overcommit", "proportion", "session"] | None = None
    event: str | None = None
    ballots: tuple[Ballot, ...] = ()


@dataclass(frozen=True)
class EnqueueLog:
    """One enqueue action over a session: each Pending PodGroup's vote, oldest first, the
    gangs it admitted, and the vote on the job judged (the newest PodGroup).

    ``ballots``: every voter's answer on the judged job, even the voters Volcano does not
    ask once one rejects (what they would say, for the report); None when the job has no
    queue known to the session and no voter could be asked.
    """

    votes: tuple[tuple[str, Vote], ...]
    admitted: tuple[Admitted, ...]
    judged: Vote
    ballots: tuple[Ballot, ...]

    def ballot(self, voter: str) -> Ballot | None:
        """The judged job's ballot of ``voter``; None when it was not asked."""
        return next((b for b in self.ballots if b.voter == voter), None)


@dataclass(frozen=True)
class QueueShares:
    """proportion's shares as its ``OnSessionOpen`` computed them, per queue with jobs
    (``queues``): the water-filled ``deserved``, what is ``allocated`` and what the jobs
    ``request``. allocate's queue order, ``Overused`` and ``queueAllocatable`` read them."""

    queues: Mapping[str, QueueView]
    deserved: Mapping[str, Res]
    allocated: Mapping[str, Res]
    request: Mapping[str, Res]


@dataclass(frozen=True)
class QueueCapability:
    """proportion's ``realCapability`` of the job judged's queue: the cluster less the other
    queues' guarantees, capped by ``capability`` (``cluster_known``); without a snapshot's
    nodes, the capability alone. ``real`` is None when neither bounds the queue."""

    queue: str
    real: Res | None
    cluster_known: bool
