"""The allocate action's loop over queues and jobs: what Volcano places before our gang.

Follows Volcano's ``pkg/scheduler/actions/allocate/allocate.go`` (v1.14: ``buildAllocateContext``
and ``allocateResources``). The queues with jobs wait in a priority queue ordered by the
session's queue order (proportion: priority, then share; the session then falls back to
creation time and name), the jobs of each queue by the job order (priority, gang: jobs not
yet ready first, drf: the smaller dominant share first; then creation time and name). Each
turn pops the first queue, drops it for the rest of the session when it is overused (its
allocation reaches its deserved share), pops its first job and allocates for it, then pushes
the queue back with its new share. A gang not yet ready is placed whole or not at all, each
pod through proportion's ``queueAllocatable``; a ready job places one pod per turn. The jobs
of a queue that is not Open are served like any other (allocate's loop does not look at the
queue's state): each takes its turn, ``queueAllocatable`` refuses every pod of it, and it is
not pushed back; its queue keeps its place with its share unchanged.

Job priority (a PriorityClass the snapshot does not hold) is taken as equal for every job.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from raygang.volcano.actions.allocate import MAX_SIMULATED_PODS, place_gang, place_sub_jobs
from raygang.volcano.api import Node, Num, Res, SubJob, Task, add_res, insufficient
from raygang.volcano.cache import SnapGroup
from raygang.volcano.decisions import Ahead, Before, Later, Skipped, Step
from raygang.volcano.framework import Session

if TYPE_CHECKING:
    from raygang.volcano.cache import Cluster
    from raygang.volcano.decisions import QueueShares

# Our PodGroup is created after every object of the snapshot: it is the newest job.
NEWEST = "~"


@dataclass(frozen=True)
class Own:
    """Our job as a job of the session: its queue and its key (``namespace/PodGroup``,
    Volcano's job UID)."""

    queue: str
    key: str


@dataclass(eq=False)
class Job:
    key: str
    queue: str
    created: str
    tasks: deque[Task]
    ready: int
    min_member: int
    whole_gang: bool
    held: Res
    own: bool = False
    failed_roles: set[str] = field(default_factory=set)
    # A ready job's incomplete sub-jobs (its PodGroup's subGroupPolicy), each placed whole.
    sub_jobs: deque[SubJob] = field(default_factory=deque)

    @property
    def is_ready(self) -> bool:
        return self.ready >= self.min_member

    def order(self, session: Session) -> tuple[Num | str, ...]:
        """``ssn.JobOrderFn``: priority (equal), gang, drf, creation time, UID."""
        return session.job_order_key(self.is_ready, self.held, self.created, self.key)


# A job waiting in its queue: its order, a tie-breaker for the heap, the job.
Waiting = tuple[tuple[Num | str, ...], int, Job]


def place_others(
    cluster: Cluster,
    admitted: Collection[str],
    own: Own | None,
    session: Session,
) -> Before:
    """Replay allocate's turns until our job's; without ``own``, every turn.

    Inqueue and Running PodGroups (and the Pending ones of ``admitted``, enqueued in the
    same session) with pending pods are the other jobs. The session's shares (proportion's
    record: every queue's deserved share and allocation at the session's opening, our job
    included) give the queues with jobs and the words; the order, overused and
    allocatable functions are the session's.
    """
    shares = session.shares
    assert shares is not None, "allocate's session is opened with the job judged"
    before = Before(nodes=list(cluster.nodes))
    allocated = {name: dict(res) for name, res in shares.allocated.items()}
    jobs: dict[str, list[Waiting]] = {}
    tie = itertools.count()

    def push(job: Job) -> None:
        heapq.heappush(jobs.setdefault(job.queue, []), (job.order(session), next(tie), job))

    for group in cluster.groups:
        job = job_of(cluster, group, admitted, shares)
        if job is not None:
            push(job)
    if own is not None and own.queue in shares.queues:
        push(Job(own.key, own.queue, NEWEST, deque(), 0, 1, True, {}, own=True))

    def entry(name: str) -> tuple[tuple[Num | str, ...], str]:
        return session.queue_order_key(shares.queues[name], allocated.get(name, {})), name

    def share(name: str) -> Num:
        # proportion's share: the queue order's key after the priority.
        key = entry(name)[0][1]
        assert not isinstance(key, str)
        return key

    queues = [entry(name) for name in jobs]
    heapq.heapify(queues)
    dropped: set[str] = set()
    at: dict[str, int] = {}  # job key -> its step's index
    while queues:
        key, name = heapq.heappop(queues)
        now = key[1]
        assert not isinstance(now, str)
        deserved = shares.deserved.get(name, {})
        closed = name in shares.closed  # proportion's record: the queue is not Open
        waiting = jobs[name]
        if not waiting:
            continue  # Volcano asks Overused first; a queue without jobs is dropped either way
        if session.overused(name, allocated.get(name, {})):
            dropped.add(name)
            left = tuple(j.key for _, _, j in sorted(waiting, key=lambda e: e[:2]))
            before.skipped.append(Skipped(name, deserved, allocated.get(name, {}), left, closed))
            if own is not None and name == own.queue:
                before.own_allocated = allocated.get(name, {})
            continue
        _, _, job = heapq.heappop(waiting)
        if job.own:
            before.own_allocated = allocated.get(name, {})
            before.own_turn = True
            before.later = later_jobs(jobs, dropped, name, now, shares, share, session)
            return before
        ahead = (
            Ahead(shares.queues[name], now, shares.queues[own.queue], share(own.queue))
            if own is not None and own.queue in shares.queues and name != own.queue
            else None
        )
        step = turn(job, before.nodes, deserved, allocated, session, closed)
        if step is not None:
            step = replace(step, ahead=ahead)
            if job.key in at:
                earlier = before.steps[at[job.key]]
                before.steps[at[job.key]] = replace(earlier, pods=earlier.pods + step.pods)
            else:
                at[job.key] = len(before.steps)
                before.steps.append(step)
        if job.is_ready and (job.tasks or job.sub_jobs):
            push(job)  # more pods to place: a sub-job or a pod per turn
        heapq.heappush(queues, entry(name))
    return before


def job_of(
    cluster: Cluster, group: SnapGroup, admitted: Collection[str], shares: QueueShares
) -> Job | None:
    """A PodGroup as a job of allocate's loop; None when allocate leaves it out."""
    pending = group.pending_pods
    if not pending or len(pending) > MAX_SIMULATED_PODS:
        return None
    if group.phase not in ("Inqueue", "Running") and group.key not in admitted:
        return None  # still Pending: allocate skips it
    view = cluster.queue_view(group.queue)
    if view is None or view.name not in shares.queues:
        return None  # its queue is gone: the job is dropped from the session
    tasks = [p.task() for p in pending]
    if all(t.best_effort for t in tasks):
        return None  # allocate's worksheet leaves BestEffort pods to backfill
    subs: tuple[SubJob, ...] = ()
    if group.ready_tasks >= group.min_member:
        # A ready gang's sub-jobs are placed whole, its other pods one by one; a gang not
        # yet ready is placed as one (its sub-jobs are not modelled there).
        subs, singles = group.pending_sub_jobs()
        tasks = [p.task() for p in singles]
    return Job(
        key=group.key,
        queue=view.name,
        created=group.created,
        tasks=deque(tasks),
        ready=group.ready_tasks,
        min_member=group.min_member,
        whole_gang=group.min_member >= group.live_pods,
        held=dict(group.allocated),
        sub_jobs=deque(subs),
    )


def turn(
    job: Job,
    nodes: list[Node],
    deserved: Res,
    allocated: dict[str, Res],
    session: Session,
    closed: bool,
) -> Step | None:
    """One turn of a job: its gang whole, or (ready already) its next pod.

    ``closed``: the queue is not Open (proportion's record); the session's
    ``queueAllocatable`` refuses its pods, and a gang so refused is no capped one.
    """
    name = job.queue
    if not job.is_ready:
        tasks = list(job.tasks)
        outcome = place_gang(
            tasks,
            nodes,
            job.min_member,
            session,
            already_ready=job.ready,
            whole_gang=job.whole_gang,
            queue_ok=session.allocatable(name, allocated.get(name, {})),
        )
        job.tasks = deque()  # popped in this turn: a discarded gang waits for the next session
        if outcome.failed is not None:
            job.failed_roles.add(outcome.failed.group)
        if outcome.ready or outcome.pipelined:
            took = add_res(*(t.request for t, _ in outcome.placed))
            allocated[name] = add_res(allocated.get(name, {}), took)
            job.held = add_res(job.held, took)
            if not outcome.ready:
                return Step(job.key, name, "pipelined")
            job.ready = job.min_member
            job.tasks = deque(tasks[outcome.tried :])
            return Step(job.key, name, "gang")
        blocked = outcome.queue_blocked
        if blocked is None or closed:
            return None  # the nodes or a queue not Open refused it: it takes nothing
        missing = max(0, job.min_member - job.ready)
        ask = add_res(*(t.request for t in tasks[:missing] if not t.best_effort))
        held = allocated.get(name, {})
        names = insufficient(add_res(held, ask), deserved, ask) or insufficient(
            add_res(held, blocked.request), deserved, blocked.request
        )
        return Step(job.key, name, "capped", cap=(tuple(names), deserved, held, ask))
    # ``allocateForJob``: the incomplete sub-jobs come first (gang's sub-job order), one
    # kept per turn; one that cannot be placed whole is dropped for the session.
    while job.sub_jobs:
        sub_job = job.sub_jobs.popleft()
        gate = session.allocatable(name, allocated.get(name, {}))
        (attempt,) = place_sub_jobs([sub_job], nodes, session, queue_ok=gate)
        if attempt.kept:
            took = add_res(*(t.request for t in sub_job.tasks))
            allocated[name] = add_res(allocated.get(name, {}), took)
            job.held = add_res(job.held, took)
            return Step(job.key, name, "pods", pods=len(sub_job.tasks))
    placed = 0
    while job.tasks:
        task = job.tasks.popleft()
        if task.best_effort or task.group in job.failed_roles:
            continue
        outcome = place_gang(
            [task],
            nodes,
            1,
            session,
            whole_gang=True,
            queue_ok=session.allocatable(name, allocated.get(name, {})),
        )
        if outcome.queue_blocked is not None:
            continue
        if outcome.failed is not None:
            job.failed_roles.add(task.group)
            continue
        allocated[name] = add_res(allocated.get(name, {}), task.request)
        job.held = add_res(job.held, task.request)
        placed += 1
        if outcome.ready:
            break  # the job is ready again: the turn ends (a pipelined pod does not end it)
    return Step(job.key, name, "pods", pods=placed) if placed else None


def later_jobs(
    jobs: dict[str, list[Waiting]],
    dropped: set[str],
    own_queue: str,
    own_share: Num,
    shares: QueueShares,
    share: Callable[[str], Num],
    session: Session,
) -> list[Later]:
    """The jobs still waiting at our turn, queue by queue, each queue's in job order; a job
    of a queue that is not Open waits too (its turn will take nothing)."""
    out: list[Later] = []
    for name in sorted(jobs):
        if name in dropped:
            continue
        for _, _, job in sorted(jobs[name], key=lambda e: e[:2]):
            if job.own:
                continue
            if name in shares.closed:
                out.append(Later(job.key, name, "closed"))
            elif name != own_queue:
                ahead = Ahead(shares.queues[own_queue], own_share, shares.queues[name], share(name))
                out.append(Later(job.key, name, "queue", ahead))
            elif job.is_ready:
                out.append(Later(job.key, name, "ready"))
            elif any(session.job_order_key(False, job.held, "", "")[:-2]):
                # a gang not yet ready that holds some of the cluster (drf's share)
                out.append(Later(job.key, name, "share"))
            else:
                out.append(Later(job.key, name, "order"))
    return out
