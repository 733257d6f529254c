"""One job judged against one session: the facts every check reads, and what they found.

The checks (:mod:`raygang.preflight.checks`) add their rows here; the verdict, the phase and
the order of the reasons are made from them (:mod:`raygang.preflight.run`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from raygang.kuberay.gang import GangShare
from raygang.kuberay.jobplan import JobPlan
from raygang.preflight.jobpods import job_pods
from raygang.preflight.result import ADVISORY_CHECKS, Check, CheckStatus, NodeShape
from raygang.preflight.siblings import siblings_of
from raygang.preflight.stack import StackView, cluster_for
from raygang.volcano.actions.allocate import GangOutcome, node_choice, place_gang
from raygang.volcano.actions.others import Own, place_others
from raygang.volcano.api import Node, Res, Task, to_res
from raygang.volcano.cache import DEFAULT_QUEUE, QueueView, declared_view
from raygang.volcano.conf import open_session
from raygang.volcano.decisions import Admitted, Before, EnqueueLog, QueueCapability, QueueShares
from raygang.volcano.framework import Newest, QueueGate
from raygang.volcano.queue import QueueDecl

# Where in Volcano's pipeline a reason arises: the admission webhook, the enqueue vote,
# the allocate action, or after the gang is placed (pods beyond minMember, the submitter).
Stage = Literal["webhook", "enqueue", "allocate", "running", "ours"]

# The stage of each check's reason.
STAGES: dict[str, Stage] = {
    "queue": "webhook",
    "capability": "enqueue",
    "overcommit": "enqueue",
    "proportion": "enqueue",
    "gang": "allocate",
    "fit": "allocate",
    "fair-share": "allocate",
    "placement": "allocate",
    "submitter": "running",
}


@dataclass(frozen=True)
class Reason:
    """A reason as a check gives it: Volcano's own words (``volcano``, empty when Volcano
    says nothing), then ours (``text``: the explanation and the fix)."""

    check: str
    stage: Stage
    volcano: str
    text: str


class Evaluation:
    """One evaluation; collects checks, reasons and the never-admitted flag."""

    def __init__(
        self,
        plan: JobPlan,
        queues: Mapping[str, QueueDecl],
        shapes: Sequence[NodeShape],
        factor: Fraction,
        stack: StackView,
    ) -> None:
        self.plan = plan
        self.declared = queues
        self.factor = factor
        self.qname = plan.queue or "default"
        self.minimum = to_res(plan.gang.min_resources)
        self.siblings, self.siblings_minimum = siblings_of(stack.queue_jobs, plan, self.qname)
        self.shapes = list(shapes)
        self.checks: list[Check] = []
        self.reasons: list[Reason] = []
        self.never = False
        self.pods = job_pods(plan)
        self.cluster = cluster_for(stack, plan, queues)
        self.queue = self._resolve_queue()
        # The session of the default configuration with this job among its jobs: its
        # plugins record the queue's realCapability and the queues' deserved shares.
        self.session = open_session(
            self.cluster, self.factor, Newest(self.queue, self.pods.request(extras=True))
        )
        # Allocate's node choice for every placement of this job's pods and its siblings'
        # (head first, head last, after the siblings, for the fixes): they start from the
        # same node objects, so a node ranked for one is not ranked again for the next; and
        # from the snapshot's, as every job of the pass, whose ranks they share.
        self.choice = node_choice(self.session, stack.ranks)
        # The enqueue action's log: the Pending PodGroups it admits before this one exists,
        # and every voter's ballot on this one (set by the driver; None without nodes).
        self.enqueued: EnqueueLog | None = None
        # Checks whose failure makes later ones fail for the same cause; their reasons
        # are not repeated.
        self.failed: set[str] = set()
        # The resource names each failed resource check was short of.
        self.short: dict[str, set[str]] = {}
        # place_others(), once made.
        self._before: Before | None = None
        # What Volcano itself writes on the PodGroup: the enqueue voter that rejects and
        # its event (overcommit is asked first; the first rejection returns), and the
        # condition allocate leaves when the gang cannot be placed.
        self.enqueue_event: tuple[str, str] | None = None
        self.condition: str | None = None

    # -- bookkeeping ---------------------------------------------------------------------

    def add(
        self,
        name: str,
        status: CheckStatus,
        message: str,
        reason: str = "",
        never: bool = False,
        same_cause: str = "",
        stage: Stage = "ours",
        volcano: str = "",
    ) -> None:
        """Record a check; ``same_cause`` names an earlier check whose reason covers this one.

        ``reason``: our explanation and fix; ``volcano``: what Volcano itself says (the
        reason reads ``<volcano> -- <reason>``); ``stage``: where Volcano says it.
        """
        if same_cause and same_cause in self.failed and status == "fail":
            message = f"{message} (same cause as {same_cause})"
            reason = volcano = ""
        self.checks.append(Check(name, status, message))
        if status == "fail":
            self.failed.add(name)
        if not volcano and " -- " in reason:
            volcano, _, reason = reason.partition(" -- ")
        if (reason or volcano) and name not in ADVISORY_CHECKS:
            self.reasons.append(Reason(name, STAGES.get(name, stage), volcano, reason))
        if never:
            self.never = True

    def queue_view(self, name: str) -> QueueView | None:
        """A queue of the session, ``default`` included (the scheduler always creates it)."""
        assert self.cluster is not None
        return self.cluster.queue_view(name)

    @property
    def nodes(self) -> list[Node]:
        return self.cluster.nodes if self.cluster is not None else []

    def _resolve_queue(self) -> QueueView | None:
        if self.cluster is not None and self.qname in self.cluster.queues:
            return self.cluster.queues[self.qname]
        decl = self.declared.get(self.qname)
        if decl is not None:
            return declared_view(decl, None)
        if self.qname == "default":
            # The scheduler creates `default` (weight 1, no capability) at start-up.
            return DEFAULT_QUEUE
        return None

    # -- the words -----------------------------------------------------------------------

    @property
    def noun(self) -> str:
        """What the words call the user's object: ``job`` for a RayJob, ``RayCluster`` for
        a RayCluster of its own, whose gang is judged as an InteractiveMode RayJob's (the
        stand-in is raygang's, never the user's: :attr:`JobPlan.kind`)."""
        return "RayCluster" if self.plan.kind == "RayCluster" else "job"

    # -- the session's log ---------------------------------------------------------------

    @property
    def capability(self) -> QueueCapability:
        """proportion's realCapability of this job's queue, as the session recorded it."""
        capability = self.session.capability
        assert capability is not None, "recorded for a known queue"
        return capability

    @property
    def admitted_first(self) -> tuple[Admitted, ...]:
        """The Pending PodGroups the enqueue action admits before this one, oldest first."""
        return self.enqueued.admitted if self.enqueued is not None else ()

    # -- the job's pods ------------------------------------------------------------------

    @property
    def group_tasks(self) -> int:
        """The tasks of the PodGroup while Volcano holds it: the pods KubeRay creates.

        The submitter's pod carries the group annotation too, but its Job is created only
        once the RayCluster is ready, which a gang Volcano has not placed never is; so a
        Pending or Inqueue gang has no submitter task (checked against Volcano v1.14.1 by
        the differential runner; a 4th task appears only if the Job is applied together
        with the cluster, as a plain `kubectl apply` of the plan does)."""
        return self.pods.created

    def distinct_tasks(self) -> list[Task]:
        """One pod of each role: the head, each worker group, the submitter."""
        tasks = [t for t, _, _ in self.pods.roles]
        return tasks + ([self.pods.submitter] if self.pods.submitter else [])

    def worker_groups(self) -> Iterator[tuple[int, GangShare]]:
        index = 0
        for share in self.plan.gang.shares:
            if share.role == "worker":
                yield index, share
                index += 1

    # -- placement -----------------------------------------------------------------------

    def shares(self) -> QueueShares:
        """proportion's deserved shares and allocations, this job in its queue, as the
        session's log holds them."""
        shares = self.session.shares
        assert shares is not None
        return shares

    def queue_gate(self, allocated: Res) -> QueueGate:
        """proportion's ``queueAllocatable`` for this job's queue at ``allocated``, through
        the session."""
        assert self.queue is not None
        return self.session.allocatable(self.queue.name, allocated)

    def before(self) -> Before:
        """``place_others()``: the session up to this job's turn in allocate's loop."""
        if self._before is None:
            assert self.cluster is not None
            own = (
                Own(self.queue.name, f"{self.plan.namespace}/{self.plan.podgroup_name}")
                if self.queue is not None
                else None
            )
            self._before = place_others(
                self.cluster,
                {a.name for a in self.admitted_first},
                own,
                self.session,
            )
        return self._before

    def base_after_others(self) -> list[Node]:
        """The nodes once the gangs allocate serves before this one are placed: a fresh
        copy of :meth:`before`'s."""
        return list(self.before().nodes)

    def after_siblings(self, gangs: Sequence[tuple[Sequence[Task], int]]) -> list[Node]:
        """``base_after_others()`` with the stack's other gangs placed first, in order."""
        nodes = self.base_after_others()
        for tasks, min_member in gangs:
            place_gang(tasks, nodes, min_member, self.session, whole_gang=True, choice=self.choice)
        return nodes

    def simulate(
        self, nodes: list[Node], gang: Sequence[Task], queue_ok: QueueGate | None
    ) -> GangOutcome:
        """Place this job's gang in the given pod order."""
        return place_gang(
            gang,
            nodes,
            self.plan.gang.min_member,
            self.session,
            # The submitter does not exist yet, so the job's pods are the gang and extras.
            whole_gang=self.plan.gang.min_member >= self.pods.created,
            queue_ok=queue_ok,
            choice=self.choice,
        )
