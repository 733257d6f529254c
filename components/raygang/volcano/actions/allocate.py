"""The allocate action: a gang placed pod by pod, greedily, each on its best node.

Follows Volcano's ``pkg/scheduler/actions/allocate/allocate.go``: tasks in order, the
predicates then the node order, the job committed only when the gang is ready
(``Statement.Commit``) and discarded otherwise. The loop over queues and jobs that calls it
is :mod:`raygang.volcano.actions.others`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from raygang.volcano.api import ZERO, Node, Num, Res, Task, asked_names, fits_in
from raygang.volcano.plugins.predicates import fit_failure, static_failure
from raygang.volcano.ranking import Chooser, QueueGate, Ranking, decode, volcano_rank

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


def is_roomy(gang: Sequence[Task], base: Sequence[Node], ranking: Ranking) -> bool:
    """Whether ``gang`` places on idle room in any pod order, without simulating it.

    True when, for every kind of pod of the gang, at least as many nodes as the gang has
    pods can take one on idle room, counting only nodes of ``base`` still in the
    ranking's state: whichever pod comes k-th, at most k - 1 of them are taken, so one is
    left for it (the chooser may prefer a taken node, which then has room too). The
    fair-share gate passes in any order once one order passed every pod: each prefix
    asks less than the whole gang.
    """
    if len(ranking.versions) != len(base):
        return False
    need = len(gang)
    versions = ranking.versions
    kinds = {t.shape: t for t in gang if not t.best_effort}.values()
    if ranking.settled and all(ranking.countable(t) for t in kinds):
        # No room is pending anywhere: every node that can take the pod takes it on idle
        # room, so counting them does what walking the order does, without ranking.
        changed = ranking.changed(base)
        for task in kinds:
            count, mask = ranking.fitting(task)
            if count - sum(mask >> i & 1 for i in changed) < need:
                return False
        return True
    for task in kinds:
        order = ranking.order(task)
        count = position = 0
        while count < need and (code := order.at(position)) is not None:
            (flag, _), index = decode(code)
            if flag != 0:
                break  # the rest need room that terminating pods release
            position += 1
            count += base[index].version == versions[index]
        if count < need:
            return False
    return True


def place_gang(
    tasks: Sequence[Task],
    nodes: list[Node],
    min_member: int,
    *,
    already_ready: int = 0,
    whole_gang: bool,
    queue_ok: QueueGate | None = None,
    ranking: Ranking | None = None,
) -> GangOutcome:
    """Volcano's ``allocateResourcesForTasks`` for one job: greedy, in order, all or nothing.

    Args:
        tasks: the pending pods, in Volcano's task order.
        nodes: the cluster, in name order. A node that takes a pod is replaced in the
            list by a changed copy (the node objects are never changed, so callers can
            share them); when the gang is neither ready nor pipelined the statement is
            discarded and the list is restored.
        min_member: the PodGroup's ``minMember``.
        already_ready: pods of the job already allocated, bound, running or succeeded.
        whole_gang: ``minMember`` equals the job's pod count, so the first failure ends
            the attempt (``NeedContinueAllocating``).
        queue_ok: the proportion plugin's per-task queue check, given the task and what
            this job placed so far; failing tasks are skipped silently, as in Volcano.
        ranking: node ranks of the state ``nodes`` were copied from; the same outcome,
            faster.
    """
    outcome = GangOutcome(False, False, [])
    originals: dict[int, Node] = {}
    if ranking is not None and len(ranking.versions) != len(nodes):
        ranking = None
    changed = ranking.changed(nodes) if ranking is not None else None
    failed_groups: set[str] = set()
    chooser: Chooser | None = None
    ready = already_ready
    pipelined = 0
    placed_total: Res = {}
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
        if chooser is None or chooser.task is not task:
            chooser = Chooser(task, nodes, volcano_rank, ranking, changed)
        index = chooser.best()
        if index is None:
            failed_groups.add(task.group)
            if outcome.failed is None:
                outcome.failed = task
                outcome.fit_errors = (
                    ranking.fit_errors(task, nodes)
                    if ranking is not None
                    else {n.name: r for n in nodes if (r := fit_failure(task, n)) is not None}
                )
            if whole_gang:
                break
            continue
        if index not in originals:
            originals[index] = nodes[index]
            nodes[index] = nodes[index].copy()
            if changed is not None:
                changed.add(index)
        best = nodes[index]
        pipeline = not fits_in(task.request, best.idle)
        best.take(task.request, pipeline=pipeline)
        if pipeline:
            pipelined += 1  # held for the pod, bound once the room is released
        else:
            ready += 1
            outcome.allocated += 1
        outcome.placed.append((task, best.name))
        if queue_ok is not None:
            for name, value in task.request.items():
                placed_total[name] = placed_total.get(name, ZERO) + value
    outcome.ready = ready >= min_member
    outcome.pipelined = not outcome.ready and ready + pipelined >= min_member
    if not (outcome.ready or outcome.pipelined):
        for index, node in originals.items():
            nodes[index] = node
    return outcome


def place_singly(
    tasks: Sequence[Task], nodes: list[Node], ranking: Ranking | None = None
) -> tuple[list[str], Task | None, dict[str, str]]:
    """Place pods one by one (extras of a ready gang); stop at the first that fits nowhere.

    Each pod is a gang of one (``place_gang([task], nodes, 1, ...)``); consecutive pods
    of a group share one chooser, as nodes only lose room. BestEffort pods are left to
    backfill.
    """
    placed: list[str] = []
    chooser: Chooser | None = None
    if ranking is not None and len(ranking.versions) != len(nodes):
        ranking = None
    changed = ranking.changed(nodes) if ranking is not None else None
    for task in tasks:
        if task.best_effort:
            continue
        if chooser is None or chooser.task is not task:
            chooser = Chooser(task, nodes, volcano_rank, ranking, changed)
        index = chooser.best()
        if index is None:
            errors = (
                ranking.fit_errors(task, nodes)
                if ranking is not None
                else {n.name: r for n in nodes if (r := fit_failure(task, n)) is not None}
            )
            return placed, task, errors
        node = nodes[index] = nodes[index].copy()
        node.take(task.request, pipeline=not fits_in(task.request, node.idle))
        placed.append(node.name)
        if changed is not None:
            changed.add(index)
    return placed, None, {}


def best_fit_decreasing(tasks: Sequence[Task], nodes: Sequence[Node]) -> bool:
    """A careful packer: biggest pods first, each onto the node it leaves tightest.

    Used only to tell "Volcano's greedy order fails but a packing exists" apart from
    "nothing fits", never as Volcano's behaviour.
    """
    if any(
        not task.best_effort
        and not any(
            fits_in(task.request, n.idle) and static_failure(task, n) is None for n in nodes
        )
        for task in {t.shape: t for t in tasks}.values()
    ):
        return False  # a pod no node can take even now: no packing places it
    work = [n.copy() for n in nodes]

    def size(task: Task) -> tuple[Num, ...]:
        scalars = sum(v for n, v in task.request.items() if n not in ("cpu", "memory", "pods"))
        return (scalars, task.request.get("cpu", 0), task.request.get("memory", 0))

    def tightest(task: Task, node: Node) -> tuple[Num, ...] | None:
        if not fits_in(task.request, node.idle) or static_failure(task, node) is not None:
            return None
        return tuple(node.idle.get(n, 0) - task.request[n] for n in asked_names(task.request))

    chooser: Chooser | None = None
    for task in sorted(tasks, key=size, reverse=True):
        if task.best_effort:
            continue
        if chooser is None or chooser.task is not task:
            chooser = Chooser(task, work, tightest)
        index = chooser.best()
        if index is None:
            return False
        work[index].take(task.request, pipeline=False)
    return True
