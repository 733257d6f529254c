"""The decision log: what a session decided, each decision with the numbers it compared.

Volcano shows its decisions as PodGroup events and conditions and as scheduler log lines
(``framework/session_plugins.go`` ``JobEnqueueable``, ``actions/enqueue/enqueue.go``,
``actions/allocate/allocate.go``'s fit errors and queue order); it keeps no record of the
numbers behind them. raygang keeps them as records, so that the preflight report
(:mod:`raygang.preflight`) words what the plugins and actions decided without redoing any
of their arithmetic. The records are raygang's; every name and number in them is the
plugin's or the action's own:

* the enqueue action's log (:class:`EnqueueLog`): each Pending PodGroup's :class:`Vote`,
  the gangs admitted, and every voter's ballot on the job judged (:class:`OvercommitBallot`,
  :class:`ProportionBallot`: the vote with the numbers it compared);
* what proportion's ``OnSessionOpen`` computed, kept on the session
  (:class:`QueueShares`, :class:`QueueCapability`);
* allocate's loop up to the judged job's turn (:class:`Before`: each other job's
  :class:`Step`, the queue order that put it first (:class:`Ahead`), the queues dropped
  as overused (:class:`Skipped`), the jobs whose turn comes later (:class:`Later`)); the
  placements and fit errors of one gang are the allocate action's own record
  (:class:`raygang.volcano.actions.allocate.GangOutcome`);
* allocate's turns at the sub-jobs of a ready job with a ``subGroupPolicy``
  (:class:`SubJobTurn`: each replica kept whole, or placed in part and taken back).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from raygang.volcano.api import Node, Num, Res
from raygang.volcano.cache import QueueView

__all__ = [
    "Admitted",
    "Ahead",
    "Ballot",
    "Before",
    "EnqueueLog",
    "Later",
    "OvercommitBallot",
    "ProportionBallot",
    "QueueCapability",
    "QueueShares",
    "Skipped",
    "Step",
    "SubJobTurn",
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
    # The snapshot's share of ``held``: each Inqueue or Running gang's reservation, by
    # PodGroup key, oldest first.
    holders: tuple[tuple[str, Res], ...] = ()
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
    ``request``, and the queues ``closed`` to allocate (not Open: ``queueAllocatable``
    refuses every task of theirs, whatever their share). allocate's queue order,
    ``Overused`` and ``queueAllocatable`` read them."""

    queues: Mapping[str, QueueView]
    deserved: Mapping[str, Res]
    allocated: Mapping[str, Res]
    request: Mapping[str, Res]
    closed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class QueueCapability:
    """proportion's ``realCapability`` of the job judged's queue: the cluster less the other
    queues' guarantees, capped by ``capability`` (``cluster_known``); without a snapshot's
    nodes, the capability alone. ``real`` is None when neither bounds the queue."""

    queue: str
    real: Res | None
    cluster_known: bool


# -- allocate's loop: the turns before the judged job's, the queue order and who waits ----


@dataclass(frozen=True)
class Ahead:
    """Why one queue's turn came before another's: both queues and their shares then."""

    first: QueueView
    first_share: Num
    second: QueueView
    second_share: Num


StepKind = Literal["gang", "pipelined", "pods", "capped"]


@dataclass(frozen=True)
class Step:
    """What another job did in its turns before ours.

    Attributes:
        kind: ``gang`` its gang placed (``pods`` more pods in later turns), ``pipelined``
            its gang held on room terminating pods release, ``pods`` a ready job's pending
            pods placed, ``capped`` its gang refused by its queue's deserved share. A turn
            that takes nothing otherwise leaves no step: the nodes refused the gang, or its
            queue is not Open (proportion's ``queueAllocatable`` refuses every pod of it).
        ahead: why its queue came first (None: our queue, earlier in the job order).
        cap: for ``capped``: the names refused, the queue's deserved and allocated, and
            what the gang asked.
    """

    job: str
    queue: str
    kind: StepKind
    pods: int = 0
    ahead: Ahead | None = None
    cap: tuple[tuple[str, ...], Res, Res, Res] | None = None


@dataclass(frozen=True)
class Skipped:
    """A queue allocate dropped as overused before our turn, and its jobs left unplaced.

    ``closed``: the queue is not Open (its jobs would have taken nothing in their turns).
    """

    queue: str
    deserved: Res
    allocated: Res
    jobs: tuple[str, ...]
    closed: bool = False


LaterWhy = Literal["queue", "ready", "share", "order", "closed"]


@dataclass(frozen=True)
class Later:
    """An admitted job with pending pods whose turn comes after ours, and why.

    ``why``: ``queue`` our queue came first (``ahead``); in our queue, ``ready`` its gang
    is ready already, ``share`` it holds more of the cluster (drf), ``order`` otherwise;
    ``closed`` its queue is not Open (allocate serves it all the same, and proportion's
    ``queueAllocatable`` then refuses every pod of it).
    """

    job: str
    queue: str
    why: LaterWhy
    ahead: Ahead | None = None


@dataclass
class Before:
    """The session up to our turn: the nodes, what each other job did, and our queue.

    ``own_allocated``: our queue's allocation at our turn (or when the queue was dropped);
    None without a job of ours. ``own_turn``: whether our job's turn comes at all (its
    queue may be dropped as overused first). Built turn by turn by
    :func:`raygang.volcano.actions.others.place_others`, never changed once returned; the
    nodes are copied by whoever places on them.
    """

    nodes: list[Node]
    steps: list[Step] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    later: list[Later] = field(default_factory=list)
    own_allocated: Res | None = None
    own_turn: bool = False


@dataclass(frozen=True)
class SubJobTurn:
    """allocate's attempt at one sub-job (``allocateForSubJob``,
    ``actions/allocate/allocate.go`` v1.14): its pods placed one by one until the sub-job
    is complete (kept), or, when one fits no node, every pod placed so far taken back
    (``Statement.Discard``).

    Attributes:
        policy: the ``subGroupPolicy`` entry's name (the worker group's).
        index: the sub-job's place in Volcano's order.
        size: its ``subGroupSize``.
        kept: whether it was placed whole.
        placed: the pods placed, each with its node (taken back when not ``kept``).
        failed: the pod that fit no node; None when kept.
        fit_errors: why each node refused it (its ``FitErrors``).
    """

    policy: str
    index: int
    size: int
    kept: bool
    placed: tuple[tuple[str, str], ...]
    failed: str | None = None
    fit_errors: Mapping[str, str] = field(default_factory=dict)
