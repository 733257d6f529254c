"""The allocate action: a gang placed pod by pod, greedily, each on its best node.

Follows Volcano's ``pkg/scheduler/actions/allocate/allocate.go``: tasks in order, each
predicated on every node and placed on the best one by the session's node order, the job
committed only when the gang is ready (``Statement.Commit``) and discarded otherwise. The
loop over queues and jobs that calls it is :mod:`raygang.volcano.actions.others`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from raygang.volcano.actions._nodechoice import NodeChoice, SharedRanks
from raygang.volcano.api import ZERO, Node, Num, Res, SubJob, Task, fits_in, short_on_node
from raygang.volcano.decisions import SubJobTurn
from raygang.volcano.framework import QueueGate, Session

__all__ = [
    "MAX_SIMULATED_PODS",
    "GangOutcome",
    "SharedRanks",
    "best_node",
    "fit_errors",
    "fit_failure",
    "node_choice",
    "node_rank",
    "place_gang",
    "place_on",
    "place_singly",
    "place_sub_jobs",
]

# Above this many pods the greedy simulation is skipped rather than slowing a preview.
MAX_SIMULATED_PODS = 5000


@dataclass
class GangOutcome:
    """The result of placing one gang."""

    ready: bool
    pipelined: bool
    placed: list[tuple[Task, str]]
    allocated: int = 0  # placed on idle room (not pipelined)
    failed: Task | None = None
    fit_errors: dict[str, str] = field(default_factory=dict)
    queue_blocked: Task | None = None
    tried: int = 0


def fit_failure(
    task: Task, node: Node, session: Session, free: Mapping[str, Num] | None = None
) -> str | None:
    """Why ``task`` cannot go on ``node``, in Volcano's order and words; None if it fits.

    Allocate's ``predicate``: its own resource check against ``FutureIdle`` (or ``free``)
    first (``Insufficient`` names the first short resource), then the session's
    predicates.
    """
    room = node.future_idle() if free is None else free
    if not fits_in(task.request, room):
        return f"Insufficient {short_on_node(task.request, room)[0]}"
    return session.predicate(task, node)


def node_rank(task: Task, node: Node, session: Session) -> tuple[int, int] | None:
    """How allocate ranks ``node`` for ``task``, lower first; None when the predicates
    refuse it (:func:`fit_failure`).

    ``prioritizeNodes`` takes the nodes where the pod fits idle room before those where it
    needs the room terminating pods release, then the higher score of the node order.
    """
    room = node.future_idle()
    # Refused exactly when fit_failure gives a reason; its words are not needed here.
    if not fits_in(task.request, room) or session.predicate(task, node) is not None:
        return None
    # FutureIdle is idle itself when nothing is terminating or pipelined on the node.
    on_idle = room is node.idle or fits_in(task.request, node.idle)
    return (0 if on_idle else 1, -session.node_score(task, node))


def best_node(task: Task, nodes: Sequence[Node], session: Session) -> int | None:
    """The index of the node allocate picks for ``task``; None when every node refuses it.

    Every node is predicated and every feasible one ranked (:func:`node_rank`), the best
    taken. Volcano's ``SelectBestNodeAndScore`` picks among equal scores at random; here
    the first node in name order wins. The specification of the private
    :class:`~raygang.volcano.actions._nodechoice.NodeChoice` the placements below use.
    """
    best: tuple[tuple[int, int], int] | None = None
    for index, node in enumerate(nodes):
        rank = node_rank(task, node, session)
        if rank is not None and (best is None or (rank, index) < best):
            best = (rank, index)
    return best[1] if best is not None else None


def node_choice(session: Session, shared: SharedRanks | None = None) -> NodeChoice:
    """``best_node`` for ``session``, as the placements below ask it: each node ranked once
    per kind of pod, again only where a node object was replaced (:mod:`._nodechoice`).

    One choice may serve every simulation a caller runs with the same session over the same
    node objects (the preflight places one job's gang head first, head last, after its
    siblings, for its fixes, each from the same nodes): what one simulation ranked, the next
    does not rank again. ``shared``: ranks kept for the choices of other sessions too (the
    preflight's, one per planning pass); read only by sessions with the same predicates and
    node order, the only parts of a session :func:`node_rank` reads.
    """
    kinds = shared.kinds((session.predicates, session.node_orders)) if shared is not None else None
    return NodeChoice(lambda task, node: node_rank(task, node, session), kinds)


def fit_errors(task: Task, nodes: Sequence[Node], session: Session) -> dict[str, str]:
    """Why each node refuses ``task`` (allocate's ``FitErrors`` of the task)."""
    return {n.name: r for n in nodes if (r := fit_failure(task, n, session)) is not None}


def place_on(nodes: list[Node], index: int, task: Task) -> bool:
    """Put ``task`` on a copy of ``nodes[index]`` (the nodes given are never changed):
    on idle room when it fits there, else pipelined on the room terminating pods release.
    Returns whether it was pipelined."""
    node = nodes[index] = nodes[index].copy()
    pipeline = not fits_in(task.request, node.idle)
    node.take(task.request, pipeline=pipeline)
    return pipeline


def place_gang(
    tasks: Sequence[Task],
    nodes: list[Node],
    min_member: int,
    session: Session,
    *,
    already_ready: int = 0,
    whole_gang: bool,
    queue_ok: QueueGate | None = None,
    choice: NodeChoice | None = None,
) -> GangOutcome:
    """Volcano's ``allocateResourcesForTasks`` for one job: greedy, in order, all or nothing.

    Args:
        tasks: the pending pods, in Volcano's task order.
        nodes: the cluster, in name order. A node that takes a pod is replaced in the
            list by a changed copy (the node objects are never changed, so callers can
            share them); when the gang is neither ready nor pipelined the statement is
            discarded and the list is restored.
        min_member: the PodGroup's ``minMember``.
        session: the scheduling session (its predicates and node order).
        already_ready: pods of the job already allocated, bound, running or succeeded.
        whole_gang: ``minMember`` equals the job's pod count, so the first failure ends
            the attempt (``NeedContinueAllocating``).
        queue_ok: the proportion plugin's per-task queue check, given the task and what
            this job placed so far; failing tasks are skipped silently, as in Volcano.
        choice: the :func:`node_choice` of ``session`` to ask; a new one when None.
    """
    outcome = GangOutcome(False, False, [])
    discard = list(nodes)
    failed_groups: set[str] = set()
    ready = already_ready
    pipelined = 0
    placed_total: Res = {}
    choice = node_choice(session) if choice is None else choice
    for task in tasks:
        if ready >= min_member:
            break
        outcome.tried += 1
        if task.best_effort:
            # Gang counts a pending BestEffort pod as ready; backfill binds it later.
            ready += 1
            continue
        if queue_ok is not None and not queue_ok(task, placed_total):
            if outcome.queue_blocked is None:
                outcome.queue_blocked = task
            continue
        if task.group in failed_groups:
            continue  # a role that failed predicates is not retried this session
        index = choice.best(task, nodes)
        if index is None:
            failed_groups.add(task.group)
            if outcome.failed is None:
                outcome.failed = task
                outcome.fit_errors = fit_errors(task, nodes, session)
            if whole_gang:
                break
            continue
        if place_on(nodes, index, task):
            pipelined += 1  # held for the pod, bound once the room is released
        else:
            ready += 1
            outcome.allocated += 1
        outcome.placed.append((task, nodes[index].name))
        if queue_ok is not None:
            for name, value in task.request.items():
                placed_total[name] = placed_total.get(name, ZERO) + value
    outcome.ready = ready >= min_member
    outcome.pipelined = not outcome.ready and ready + pipelined >= min_member
    if not (outcome.ready or outcome.pipelined):
        nodes[:] = discard  # Statement.Discard
    return outcome


def place_singly(
    tasks: Sequence[Task],
    nodes: list[Node],
    session: Session,
    choice: NodeChoice | None = None,
) -> tuple[list[str], Task | None, dict[str, str]]:
    """Place pods one by one (extras of a ready gang); stop at the first that fits nowhere.

    Each pod is a gang of one; BestEffort pods are left to backfill. ``choice``: as
    :func:`place_gang`'s.
    """
    placed: list[str] = []
    choice = node_choice(session) if choice is None else choice
    for task in tasks:
        if task.best_effort:
            continue
        index = choice.best(task, nodes)
        if index is None:
            return placed, task, fit_errors(task, nodes, session)
        place_on(nodes, index, task)
        placed.append(nodes[index].name)
    return placed, None, {}


def place_sub_jobs(
    sub_jobs: Sequence[SubJob],
    nodes: list[Node],
    session: Session,
    *,
    queue_ok: QueueGate | None = None,
) -> list[SubJobTurn]:
    """allocate's later turns at a ready job's sub-jobs, one per turn, in their order.

    Follows ``allocateForJob`` and ``allocateForSubJob`` (v1.14, no HyperNodes: the whole
    cluster is one): a sub-job's pods are placed greedily, each on its best node, until the
    session says the sub-job is complete (``SubJobReady``); when a pod fits no node and the
    sub-job cannot be completed without it (``NeedContinueAllocating``: ``subGroupSize``
    is all of its pods) the attempt stops and every pod placed for the sub-job is taken
    back (``Statement.Discard``), so ``nodes`` is left as it was. The next sub-job is tried
    all the same. ``queue_ok``: proportion's per-task check (``Allocatable``), as for a gang.
    """
    turns: list[SubJobTurn] = []
    for sub_job in sub_jobs:
        before = list(nodes)
        outcome = place_gang(
            sub_job.tasks,
            nodes,
            sub_job.min_available,
            session,
            whole_gang=sub_job.min_available >= len(sub_job.tasks),
            queue_ok=queue_ok,
        )
        kept = session.sub_job_ready(outcome.allocated, sub_job.min_available) or outcome.pipelined
        if not kept:
            nodes[:] = before
        turns.append(
            SubJobTurn(
                sub_job.policy,
                sub_job.index,
                sub_job.min_available,
                kept,
                tuple((task.pod_name, node) for task, node in outcome.placed),
                outcome.failed.pod_name if outcome.failed is not None and not kept else None,
                dict(outcome.fit_errors) if not kept else {},
            )
        )
    return turns
