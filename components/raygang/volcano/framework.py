"""A scheduling session and its extension points.

Follows Volcano's ``pkg/scheduler/framework`` (``session.go``, ``session_plugins.go``): a
session opens over the cache's snapshot, the plugins of a configuration register their
functions (each plugin's ``OnSessionOpen``), and the actions call the session
(``JobEnqueueable``, ``PredicateForAllocateAction``, ``NodeOrderMapFn``), never a plugin.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from raygang.volcano.api import Node, Num, Res, Task
from raygang.volcano.cache import Cluster, QueueView
from raygang.volcano.decisions import (
    Admitted,
    Ballot,
    OvercommitBallot,
    ProportionBallot,
    QueueCapability,
    QueueShares,
    Vote,
)

__all__ = [
    "Admitted",
    "Allocatable",
    "Ballot",
    "EnqueueVoter",
    "JobCondition",
    "JobOrder",
    "Newest",
    "NodeOrder",
    "OvercommitBallot",
    "Overused",
    "Predicate",
    "ProportionBallot",
    "QueueCapability",
    "QueueGate",
    "QueueOrder",
    "QueueShares",
    "Session",
    "SubJobReady",
    "Vote",
    "reserved_by",
]

# ``PredicateFn``: why a node refuses a task, in Volcano's words; None when it takes it.
Predicate = Callable[[Task, Node], str | None]

# ``NodeOrderMapFn``: a node's score for a task, higher first.
NodeOrder = Callable[[Task, Node], int]

# ``JobOrderFn``: a job's key, lower first, from whether its gang is ready and what it
# holds.
JobOrder = Callable[[bool, Res], Num]

# ``QueueOrderFn``: a queue's keys, lower first, from what the queue has allocated.
QueueOrder = Callable[["QueueView", Res], tuple[Num, ...]]

# ``OverusedFn``: whether a queue has allocated its share, so allocate drops it.
Overused = Callable[[str, Res], bool]

# ``AllocatableFn``: whether a task of a queue that has allocated ``allocated`` may be
# placed, ``placed`` being what its job placed so far in this attempt.
Allocatable = Callable[[str, Res, Task, Res], bool]

# The condition written on the PodGroup of a job allocate could not make ready (gang's
# ``OnSessionClose``): from minMember, the job's tasks, those placed, the task that fit no
# node and its fit errors.
JobCondition = Callable[[int, int, int, Task | None, str], str]

# ``SubJobReadyFn``: whether a sub-job with ``ready`` pods placed is complete, from its
# ``min_available`` (``subGroupSize``).
SubJobReady = Callable[[int, int], bool]

# An allocatable check bound to one queue's allocation: (task, placed so far) -> allowed.
QueueGate = Callable[[Task, Res], bool]


def reserved_by(admitted: Sequence[Admitted], queue: str | None = None) -> list[Res]:
    """The minimum of the gangs enqueued earlier in the session (of ``queue``, if given)."""
    return [a.minimum for a in admitted if queue is None or a.queue == queue]


@dataclass(frozen=True)
class Newest:
    """The job judged, as the newest job of the session (its PodGroup is not in the
    snapshot yet): its queue (None when the session lacks it) and what its pods request."""

    queue: QueueView | None
    request: Res


# ``JobEnqueueableFn``: a voter's ballot on a PodGroup of ``queue`` asking ``minimum``
# (``admitted``: the gangs enqueued earlier in the session), with the numbers it compared;
# None when it abstains (proportion, for a queue the session lacks).
EnqueueVoter = Callable[[QueueView | None, Res, Sequence[Admitted]], Ballot | None]


@dataclass(frozen=True)
class Session:
    """The cluster of a session and the functions its plugins registered, in tier order.

    ``cluster`` is None when only declared node shapes are known (no snapshot): then only
    the predicates and node order apply. ``condition_fns``: the writers of an unready job's
    condition (gang's ``OnSessionClose``). ``shares`` and ``capability``: proportion's
    deserved shares and the judged job's queue's realCapability as its ``OnSessionOpen``
    computed them, kept for the decision log (None without them).
    """

    cluster: Cluster | None = None
    predicates: tuple[Predicate, ...] = ()
    node_orders: tuple[NodeOrder, ...] = ()
    voters: tuple[EnqueueVoter, ...] = ()
    job_orders: tuple[JobOrder, ...] = ()
    queue_orders: tuple[QueueOrder, ...] = ()
    overused_fns: tuple[Overused, ...] = ()
    allocatable_fns: tuple[Allocatable, ...] = ()
    condition_fns: tuple[JobCondition, ...] = ()
    sub_job_ready_fns: tuple[SubJobReady, ...] = ()
    shares: QueueShares | None = None
    capability: QueueCapability | None = None

    def add_predicate(self, fn: Predicate) -> Session:
        """``AddPredicateFn``: the session with ``fn`` after the predicates registered."""
        return replace(self, predicates=(*self.predicates, fn))

    def add_node_order(self, fn: NodeOrder) -> Session:
        """``AddNodeOrderFn``: the session with ``fn`` among the scores summed."""
        return replace(self, node_orders=(*self.node_orders, fn))

    def add_job_enqueueable(self, fn: EnqueueVoter) -> Session:
        """``AddJobEnqueueableFn``: the session with ``fn`` after the voters registered."""
        return replace(self, voters=(*self.voters, fn))

    def add_job_order(self, fn: JobOrder) -> Session:
        """``AddJobOrderFn``."""
        return replace(self, job_orders=(*self.job_orders, fn))

    def add_queue_order(self, fn: QueueOrder) -> Session:
        """``AddQueueOrderFn``."""
        return replace(self, queue_orders=(*self.queue_orders, fn))

    def add_overused(self, fn: Overused) -> Session:
        """``AddOverusedFn``."""
        return replace(self, overused_fns=(*self.overused_fns, fn))

    def add_allocatable(self, fn: Allocatable) -> Session:
        """``AddAllocatableFn``."""
        return replace(self, allocatable_fns=(*self.allocatable_fns, fn))

    def add_job_condition(self, fn: JobCondition) -> Session:
        """The session with ``fn`` among the writers of an unready job's condition."""
        return replace(self, condition_fns=(*self.condition_fns, fn))

    def add_sub_job_ready(self, fn: SubJobReady) -> Session:
        """``AddSubJobReadyFn``."""
        return replace(self, sub_job_ready_fns=(*self.sub_job_ready_fns, fn))

    def sub_job_ready(self, ready: int, min_available: int) -> bool:
        """``SubJobReady`` of a job with a ``subGroupPolicy``: no plugin says the sub-job is
        incomplete (gang's ``IsReady`` in the default configuration)."""
        return all(fn(ready, min_available) for fn in self.sub_job_ready_fns)

    def with_shares(self, shares: QueueShares) -> Session:
        """The session with proportion's shares recorded."""
        return replace(self, shares=shares)

    def with_capability(self, capability: QueueCapability) -> Session:
        """The session with proportion's realCapability of the judged job's queue recorded."""
        return replace(self, capability=capability)

    def job_order_key(
        self, ready: bool, held: Res, created: str, uid: str
    ) -> tuple[Num | str, ...]:
        """``JobOrderFn``: the plugins' keys in tier order, then the session's fallback
        (creation time, then UID)."""
        return (*(fn(ready, held) for fn in self.job_orders), created, uid)

    def queue_order_key(self, queue: QueueView, allocated: Res) -> tuple[Num | str, ...]:
        """``QueueOrderFn``: the plugins' keys in tier order, then the session's fallback
        (creation time, then name)."""
        keys = (key for fn in self.queue_orders for key in fn(queue, allocated))
        return (*keys, queue.created, queue.name)

    def overused(self, queue: str, allocated: Res) -> bool:
        """``Overused``: some plugin says the queue has allocated its share."""
        return any(fn(queue, allocated) for fn in self.overused_fns)

    def allocatable(self, queue: str, allocated: Res) -> QueueGate:
        """``Allocatable`` for the tasks of a queue that has allocated ``allocated``."""
        fns = self.allocatable_fns

        def gate(task: Task, placed: Res) -> bool:
            return all(fn(queue, allocated, task, placed) for fn in fns)

        return gate

    def job_condition(
        self, min_member: int, pods: int, placed: int, failed: Task | None, fit_message: str
    ) -> str:
        """The condition of a job allocate could not make ready: the first writer's, in
        tier order (gang's in the default configuration)."""
        assert self.condition_fns, "no plugin of the session writes job conditions"
        return self.condition_fns[0](min_member, pods, placed, failed, fit_message)

    def predicate(self, task: Task, node: Node) -> str | None:
        """``PredicateForAllocateAction``: the first refusal of the predicates, in order."""
        for fn in self.predicates:
            reason = fn(task, node)
            if reason is not None:
                return reason
        return None

    def node_score(self, task: Task, node: Node) -> int:
        """``NodeOrderMapFn``: the node order plugins' scores, summed."""
        score = 0
        for fn in self.node_orders:
            score += fn(task, node)
        return score

    def job_enqueueable(self, queue: QueueView, minimum: Res, admitted: Sequence[Admitted]) -> Vote:
        """``JobEnqueueable``: the voters in tier order; the first rejection returns, and
        the voters after it are not asked. The vote keeps the ballots of those asked."""
        asked: list[Ballot] = []
        for fn in self.voters:
            ballot = fn(queue, minimum, admitted)
            if ballot is None:
                continue
            asked.append(ballot)
            if not ballot.permits:
                return Vote(False, ballot.voter, ballot.event, tuple(asked))
        return Vote(True, ballots=tuple(asked))

    def ballots(
        self, queue: QueueView | None, minimum: Res, admitted: Sequence[Admitted]
    ) -> tuple[Ballot, ...]:
        """Every voter's ballot, in tier order, the voters after a rejection included:
        what each would answer, for the decision log (:meth:`job_enqueueable` decides)."""
        return tuple(b for fn in self.voters if (b := fn(queue, minimum, admitted)) is not None)
