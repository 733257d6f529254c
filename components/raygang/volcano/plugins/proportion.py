"""The proportion plugin: each queue's real capability, its water-filled deserved share,
the enqueue vote against the queue's quota, and the allocate-time gates.

Follows Volcano's ``pkg/scheduler/plugins/proportion/proportion.go``: ``realCapability``
(the cluster less the other queues' guarantees, capped by ``capability``), ``deserved``
(weights, capped by realCapability and the queue's request, at least its guarantee),
``share`` (``helpers.Share``), the queue order (priority, then share; the session falls
back to creation time, then name), the enqueueable vote and its ``queue resource quota
insufficient`` event, ``Overused`` and ``queueAllocatable``. A queue that is not Open is
refused here twice, as in Volcano: its PodGroups by the enqueue vote, its tasks by
``queueAllocatable`` (allocate's loop still serves its jobs, which then take nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from raygang.volcano.api import (
    EPSILON,
    ZERO,
    Num,
    Res,
    Task,
    add_res,
    exceeded,
    fits_in,
    get,
    inqueue_resource,
    insufficient,
    le,
    min_dim,
    scale,
    sub,
)
from raygang.volcano.framework import (
    Admitted,
    Newest,
    ProportionBallot,
    QueueCapability,
    QueueGate,
    QueueShares,
    Session,
    reserved_by,
)

if TYPE_CHECKING:
    from raygang.volcano.cache import Cluster, QueueView


def real_capability(
    queue: QueueView, total: Res | None, queues: Iterable[QueueView] = ()
) -> Res | None:
    """``realCapability``; None when neither the cluster nor a capability bounds it.

    ``queues``: every queue of the session (their guarantees are set aside); ``queue`` is
    counted among them when missing.
    """
    cap = queue.capability
    if total is None:
        if not queue.capability_raw:
            return None
        out = dict(cap)
        # Unset or non-positive cpu/memory means "no limit" in proportion.
        for name in ("cpu", "memory"):
            if get(cap, name) <= 0:
                out.pop(name, None)
        return out
    views = list(queues) or [queue]
    total_guarantee = add_res(*(q.guarantee for q in views))
    if queue.name not in {q.name for q in views}:
        total_guarantee = add_res(total_guarantee, queue.guarantee)
    real = add_res(exceeded(total, total_guarantee), queue.guarantee)
    if not queue.capability_raw:
        return real
    for name in ("cpu", "memory"):
        if get(cap, name) > 0:
            real[name] = min(get(real, name), cap[name])
    for name in list(real):
        if name not in ("cpu", "memory") and name in cap:
            real[name] = min(real[name], cap[name])
    return real


def queue_capability(cluster: Cluster | None, queue: QueueView) -> QueueCapability:
    """``queue``'s realCapability in the session: bounded by the cluster when the snapshot
    has nodes, by the queue's capability alone otherwise."""
    total = cluster.total if cluster is not None and cluster.has_nodes else None
    queues = cluster.queues.values() if cluster is not None else [queue]
    return QueueCapability(queue.name, real_capability(queue, total, queues), total is not None)


def queue_committed(cluster: Cluster, queue: str, reserved: Sequence[Res] = ()) -> Res:
    """``allocated + inqueue - elastic`` of a queue, plus ``reserved`` (its gangs enqueued
    earlier in the same session)."""
    allocated: Res = {}
    inqueue: Res = {}
    elastic: Res = {}
    for group in cluster.groups:
        if group.queue != queue:
            continue
        group_allocated = group.allocated
        allocated = add_res(allocated, group_allocated)
        if (group.inqueue or group.running_reserved) and group.min_raw is not None:
            inqueue = add_res(inqueue, inqueue_resource(group.min_raw, group_allocated))
        elastic = add_res(elastic, exceeded(group_allocated, group.min_res))
    return add_res(sub(add_res(allocated, inqueue), elastic), add_res(*reserved))


def proportion_ballot(
    cluster: Cluster, queue: QueueView, minimum: Res, reserved: Sequence[Res] = ()
) -> ProportionBallot:
    """The enqueue vote on a PodGroup of ``queue`` asking ``minimum``, with the numbers it
    compared: a queue that is not Open takes no PodGroup (no event, nothing compared)."""
    if not queue.open:
        return ProportionBallot(False, None, queue.name, False, {}, {}, minimum, ())
    real = real_capability(queue, cluster.total, cluster.queues.values()) or {}
    committed = queue_committed(cluster, queue.name, reserved)
    short = insufficient(add_res(minimum, committed), real, minimum)
    return ProportionBallot(
        permits=not short,
        event=proportion_event(short) if short else None,
        queue=queue.name,
        open=True,
        real=real,
        committed=committed,
        ask=minimum,
        short=tuple(short),
    )


def proportion_event(short: Sequence[str]) -> str:
    """The Normal ``Unschedulable`` PodGroup event of a rejection."""
    return "queue resource quota insufficient: " + ", ".join(f"insufficient {n}" for n in short)


def share_of(allocated: Mapping[str, Num], deserved: Mapping[str, Num]) -> Num:
    """``updateQueueAttrShare``: the largest ``allocated / deserved`` over deserved's
    ``ResourceNames`` (at least ``minResource``; ``pods`` is no resource name there)."""
    best: Num = ZERO
    for name, want in deserved.items():
        if name != "pods" and want >= EPSILON:
            best = max(best, Fraction(get(allocated, name)) / Fraction(want))
    return best


def overused(deserved: Mapping[str, Num], allocated: Mapping[str, Num]) -> bool:
    """``Overused``: ``deserved.LessEqual(allocated, Zero)`` -- cpu, memory and deserved's
    scalars, ``pods`` never; allocate skips such a queue for the rest of the session."""
    names = {"cpu", "memory", *deserved} - {"pods"}
    return all(le(get(deserved, n), get(allocated, n)) for n in names)


def same_in_float64(left: Res, right: Res) -> bool:
    """Equal as Volcano's float64 values would be (its loop ends on ``DeepEqual``).

    Water-filling in exact fractions can add ever smaller amounts forever where float64
    stops changing after a few dozen rounds: the loop then never ended (found on generated
    clusters). Amounts below float64's resolution are the same amount here as in Volcano.
    """
    return all(float(get(left, n)) == float(get(right, n)) for n in {*left, *right})


def deserved_shares(cluster: Cluster, own: QueueView | None, own_request: Res) -> QueueShares:
    """proportion's water-filled ``deserved`` per queue with jobs, and their allocations.

    ``own``/``own_request``: this job's queue and what its pods request (it is a job of the
    session too); None when the queue is unknown (the job is left out).
    """
    queues: dict[str, QueueView] = {}
    request: dict[str, Res] = {}
    allocated: dict[str, Res] = {}
    for group in cluster.groups:
        view = cluster.queue_view(group.queue)
        if view is None:
            continue  # dropped from the session
        queues[view.name] = view
        alloc = group.allocated
        allocated[view.name] = add_res(allocated.get(view.name, {}), alloc)
        pending = add_res(*(p.request for p in group.pods if p.pending))
        request[view.name] = add_res(request.get(view.name, {}), alloc, pending)
    if own is not None:
        queues[own.name] = own
        request[own.name] = add_res(request.get(own.name, {}), own_request)
        allocated.setdefault(own.name, {})
    total = cluster.total
    views = cluster.queues.values()
    real = {name: real_capability(q, total, views) or {} for name, q in queues.items()}
    deserved: dict[str, Res] = {name: {} for name in queues}
    met: set[str] = set()
    remaining = dict(total)
    while True:
        weight = sum(q.weight for n, q in queues.items() if n not in met)
        if weight == 0:
            break
        before = dict(remaining)
        increased: Res = {}
        decreased: Res = {}
        for name in sorted(queues):
            if name in met:
                continue
            q = queues[name]
            old = deserved[name]
            new = add_res(old, scale(remaining, Fraction(q.weight, weight)))
            new = min_dim(new, real[name], missing_is_zero=False)
            new = min_dim(new, request.get(name, {}), missing_is_zero=True)
            new = {n: max(v, get(q.guarantee, n)) for n, v in {**q.guarantee, **new}.items()}
            deserved[name] = new
            # LessEqual compares no pods: a queue asking for more pods than its share
            # of the nodes' pod slots is met all the same.
            asked = {n: v for n, v in request.get(name, {}).items() if n != "pods"}
            if fits_in(asked, new) or same_in_float64(new, old):
                met.add(name)
            increased = add_res(increased, exceeded(new, old))
            decreased = add_res(decreased, exceeded(old, new))
        remaining = exceeded(add_res(remaining, decreased), increased)
        empty = all(v < EPSILON for n, v in remaining.items() if n != "pods")
        if empty or same_in_float64(remaining, before):
            break
    # The session's views of the queues (the judged job's as the session was opened with
    # it): queueAllocatable refuses every task of one that is not Open.
    closed = frozenset(name for name, q in queues.items() if not q.open)
    return QueueShares(queues, deserved, allocated, request, closed)


def queue_gate(
    deserved: Mapping[str, Num], allocated: Mapping[str, Num], is_open: bool
) -> QueueGate:
    """``queueAllocatable``: a queue that is not Open (``is_open`` False) takes no task,
    whatever its share (Volcano checks the state first); an Open one ``allocated + placed +
    task <= deserved`` on the task's own requested names (pods never), strict per name."""

    def ok(task: Task, placed: Res) -> bool:
        if not is_open:
            return False
        for name, value in task.request.items():
            if value > 0 and name != "pods":
                total = allocated.get(name, ZERO) + placed.get(name, ZERO) + value
                if total > deserved.get(name, ZERO):
                    return False
        return True

    return ok


def queue_order_key(view: QueueView, share: Num) -> tuple[int, Num, str, str]:
    """``ssn.QueueOrderFn``: priority descending, share ascending (proportion), then
    creation time and name (the session's fallback)."""
    return (-view.priority, share, view.created, view.name)


def on_session_open(session: Session, newest: Newest | None = None) -> Session:
    """The plugin's ``OnSessionOpen``: its enqueue vote over the session's cluster (a queue
    that is not Open takes no PodGroup, rejected without an event); with the ``newest``
    job among the session's, the queues' deserved shares (:func:`deserved_shares`,
    recorded in the session's log), its queue order, ``Overused`` and
    ``queueAllocatable`` for allocate; the realCapability of the newest job's queue is
    recorded too, with or without a cluster."""
    cluster = session.cluster
    if newest is not None and newest.queue is not None:
        session = session.with_capability(queue_capability(cluster, newest.queue))
    if cluster is None:
        return session
    if newest is not None:
        shares = deserved_shares(cluster, newest.queue, newest.request)
        deserved = shares.deserved
        session = session.with_shares(shares)

        def order(queue: QueueView, allocated: Res) -> tuple[Num, ...]:
            return (-queue.priority, share_of(allocated, deserved.get(queue.name, {})))

        def is_overused(queue: str, allocated: Res) -> bool:
            return overused(deserved.get(queue, {}), allocated)

        def allocatable(queue: str, allocated: Res, task: Task, placed: Res) -> bool:
            is_open = queue not in shares.closed
            return queue_gate(deserved.get(queue, {}), allocated, is_open)(task, placed)

        session = session.add_queue_order(order).add_overused(is_overused)
        session = session.add_allocatable(allocatable)

    def vote(
        queue: QueueView | None, minimum: Res, admitted: Sequence[Admitted]
    ) -> ProportionBallot | None:
        if queue is None:
            return None  # a queue the session lacks: the job is dropped, not voted on
        return proportion_ballot(cluster, queue, minimum, reserved_by(admitted, queue.name))

    return session.add_job_enqueueable(vote)
