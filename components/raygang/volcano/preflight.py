"""Preflight: will Volcano ever admit and place this job's gang, and if not, why?

``preflight_job`` replays, offline, what Volcano's scheduler does with the PodGroup
``ray-<job>-pg`` under its **default configuration** (actions ``enqueue, allocate,
backfill``; plugins priority, gang, conformance, overcommit, drf, predicates,
proportion, nodeorder: ``defaultSchedulerConf`` in Volcano's ``pkg/scheduler/util.go``):

1. **Wiring**: the PodGroup webhook refuses a queue that does not exist or is not
   ``Open`` (the ``up`` would fail there, before any pod exists).
2. **Gang validity**: ``minMember`` must not exceed the pods KubeRay creates.
3. **Enqueue** (Pending -> Inqueue): the overcommit plugin (``1.2 x allocatable -
   used``, minus every reservation held by Inqueue and Running gangs), then the
   proportion plugin (queue ``realCapability`` = cluster minus other queues'
   guarantees, capped by ``capability``; minus what the queue's gangs hold).
4. **Fair share** (allocate): proportion's water-filled ``deserved`` per queue.
5. **Placement** (allocate): every pod of the gang on one node each, greedily, in
   order, without backtracking; node fit = resources, cordon, nodeSelector/affinity,
   taints -- in Volcano's order and with its messages. Pods beyond ``minMember``
   (autoscaling) and the submitter must fit too, because the stack waits for the
   RayCluster to be ready and the submitter is what runs the job.

Every quantity is compared in Volcano's internal units (milli-cpu, bytes, whole pods,
milli-units for extended resources: ``pkg/scheduler/api/resource_info.go``) as exact
integers or fractions.

Decisions worth knowing:

* **The submitter** (K8sJobMode) is reserved in ``minResources`` but is not a gang
  member and only exists once the RayCluster is ready. It is therefore placed *after*
  the gang, into what the gang left: Volcano handles it as an extra task of an already
  running gang. If it cannot be placed the cluster comes up but the Ray job is never
  submitted, which is reported as stuck.
* **Sibling jobs** (``others``: jobs of the same stack and queue, created by the same
  ``up``) are not counted in the verdict: once they finish, this job is admitted. They
  are reported by the advisory ``siblings`` check (status ``warn``), because the one
  Volcano admits last makes ``pulumi up`` wait for its RayCluster.
* **Order**: KubeRay creates the head and workers within the same second, so Volcano's
  task order (creation time, then pod UID) is not known in advance. Placement is
  simulated head first and head last; when the two disagree, or only a tighter packing
  succeeds, the check says so (``warn``) and the verdict is ``unknown``.
* **Other gangs of the snapshot**: this job's PodGroup does not exist yet and the
  scheduler runs every second, so Pending PodGroups that pass the enqueue gate now are
  counted as admitted before it, and the pending pods of admitted gangs are placed
  before its own. This job's own PodGroup and pods (from an earlier ``up``) are left
  out: the gang is judged as if created anew.
* **What a snapshot lacks** is unknown, not empty: no Node objects skips the resource
  checks, no Queue objects skips the queue check (``default`` always exists: the
  scheduler creates it). PodGroups and Pods absent are taken as none.
* ``never_admitted`` is True only when waiting cannot help: the queue is missing or not
  Open (the webhook refuses the PodGroup), ``minResources`` exceeds what the queue can
  ever hold (capability, cluster size, other queues' guarantees), a pod fits no node
  even when the node is empty (cordons and node lifecycle taints aside), or a worker
  group has more pods than the empty cluster can hold at all.
* Jobs of more than 5000 pods are not simulated pod by pod (placement is skipped).

Not modelled (the checks say ``warn`` where they would matter): network topology and
subGroupPolicy, inter-pod affinity, host ports, volumes and zones, topology spread, DRA,
scheduling gates, pod priority and preemption (not in the default actions anyway),
pending pods of other schedulers, the helm chart's ``binpack`` scores, non-zero default
requests in node scoring, and node choice among equal scores (Volcano picks at random;
we pick by name).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from raygang.kube.quantity import Quantity
from raygang.kube.snapshot import ClusterSnapshot
from raygang.kuberay.gang import GangShare, desired_worker_replicas
from raygang.kuberay.jobplan import JobPlan
from raygang.volcano.actions.allocate import (
    MAX_SIMULATED_PODS,
    GangOutcome,
    best_fit_decreasing,
    is_roomy,
    place_gang,
    place_singly,
)
from raygang.volcano.api import (
    EPSILON,
    ZERO,
    Node,
    Num,
    Res,
    Task,
    add_res,
    asked_names,
    ceil_div,
    exceeded,
    fits_in,
    get,
    inqueue_resource,
    insufficient,
    min_dim,
    ordered,
    round_up,
    scale,
    short_on_node,
    show,
    show_res,
    sub,
    to_res,
)
from raygang.volcano.cache import DEFAULT_QUEUE, EmptyNodes, QueueView, status_of
from raygang.volcano.jobpods import job_pods
from raygang.volcano.plugins.gang import gang_condition
from raygang.volcano.plugins.overcommit import DEFAULT_OVERCOMMIT_FACTOR
from raygang.volcano.plugins.predicates import fit_error_message, selects, untolerated
from raygang.volcano.queue import QueueDecl
from raygang.volcano.ranking import QueueGate, Ranking
from raygang.volcano.result import (
    ADVISORY_CHECKS,
    Check,
    CheckStatus,
    NodeShape,
    PreflightResult,
    Verdict,
)
from raygang.volcano.session import BASES_KEPT, declared_view, read_cluster, shape_nodes
from raygang.volcano.siblings import MAX_SIMULATED_SIBLINGS, SIBLINGS_NAMED, siblings_of

__all__ = [
    "DEFAULT_OVERCOMMIT_FACTOR",
    "Check",
    "CheckStatus",
    "NodeShape",
    "PreflightResult",
    "Verdict",
    "preflight_job",
]


_WEBHOOK = 'admission webhook "validatepodgroup.volcano.sh" denied the request: '


# --- The evaluation -----------------------------------------------------------------------
@dataclass
class _Admitted:
    """A gang that Volcano admits before this one (a Pending PodGroup that passes now)."""

    name: str
    queue: str
    minimum: Res


class _Preflight:
    """One evaluation; collects checks, reasons and the never-admitted flag."""

    def __init__(
        self,
        plan: JobPlan,
        queues: Mapping[str, QueueDecl],
        snapshot: ClusterSnapshot | None,
        others: Sequence[JobPlan],
        shapes: Sequence[NodeShape],
        factor: Fraction,
    ) -> None:
        self.plan = plan
        self.declared = queues
        self.snapshot = snapshot
        self.factor = factor if factor >= 1 else DEFAULT_OVERCOMMIT_FACTOR
        self.qname = plan.queue or "default"
        self.minimum = to_res(plan.gang.min_resources)
        self.siblings, self.siblings_minimum = siblings_of(others, plan, self.qname)
        self.shapes = list(shapes)
        self.checks: list[Check] = []
        self.reasons: list[str] = []
        self.never = False
        self.pods = job_pods(plan)
        self.cluster = read_cluster(snapshot, plan, queues) if snapshot is not None else None
        self.queue = self._resolve_queue()
        # Pending PodGroups Volcano admits before this one exists (set by run()).
        self.early: list[_Admitted] = []
        # Checks whose failure makes later ones fail for the same cause; their reasons
        # are not repeated.
        self.failed: set[str] = set()
        # The resource names each failed resource check was short of.
        self.short: dict[str, set[str]] = {}
        # place_others(), once computed (base_after_others).
        self._base: tuple[list[Node], list[str]] | None = None

    # -- bookkeeping ---------------------------------------------------------------------

    def add(
        self,
        name: str,
        status: CheckStatus,
        message: str,
        reason: str = "",
        never: bool = False,
        same_cause: str = "",
    ) -> None:
        """Record a check; ``same_cause`` names an earlier check whose reason covers this one."""
        if same_cause and same_cause in self.failed and status == "fail":
            message = f"{message} (same cause as {same_cause})"
            reason = ""
        self.checks.append(Check(name, status, message))
        if status == "fail":
            self.failed.add(name)
        if reason and name not in ADVISORY_CHECKS:
            self.reasons.append(reason)
        if never:
            self.never = True

    def queue_view(self, name: str) -> QueueView | None:
        """A queue of the session, ``default`` included (the scheduler always creates it)."""
        assert self.cluster is not None
        view = self.cluster.queues.get(name)
        return DEFAULT_QUEUE if view is None and name == "default" else view

    def result(self) -> PreflightResult:
        gating = [c for c in self.checks if c.name not in ADVISORY_CHECKS]
        verdict: Verdict
        if any(c.status == "fail" for c in gating):
            verdict = "stuck"
        elif any(c.status in ("skip", "warn") for c in gating):
            verdict = "unknown"
        else:
            verdict = "admitted"
        return PreflightResult(verdict, tuple(self.reasons), tuple(self.checks), self.never)

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

    # -- 0. snapshot ---------------------------------------------------------------------

    def check_snapshot(self) -> None:
        cluster = self.cluster
        if cluster is None:
            shapes = f"; {len(self.shapes)} declared node shape(s)" if self.shapes else ""
            self.add(
                "snapshot",
                "skip",
                "no cluster snapshot: only the queue capability and per-pod fit can be checked"
                + shapes,
            )
            return
        parts = [
            f"{len(cluster.nodes)} node(s)",
            f"{len(cluster.pods)} pod(s)",
            f"{len(cluster.queues)} queue(s)",
            f"{len(cluster.groups)} other PodGroup(s)",
        ]
        message = f"{cluster.source}: {', '.join(parts)}"
        if cluster.own_group is not None:
            phase = status_of(cluster.own_group).get("phase") or "Pending"
            message += (
                f"; {self.plan.podgroup_name} already exists (phase {phase}): it and its pods "
                "are left out, the gang is judged as if created anew"
            )
        if cluster.unreadable_pods:
            message += f"; {len(cluster.unreadable_pods)} pod(s) with unreadable specs ignored"
        self.add("snapshot", "pass", message)

    # -- 1. queue ------------------------------------------------------------------------

    def check_queue(self) -> None:
        q, name = self.queue, self.qname
        label = "" if self.plan.queue else " (no volcano.sh/queue-name label)"
        if q is None:
            if self.cluster is None or not self.cluster.has_queues:
                where = (
                    "no cluster snapshot"
                    if self.cluster is None
                    else "the snapshot holds no Queue objects"
                )
                self.add(
                    "queue", "skip", f"queue {name}{label} is not created by this stack and {where}"
                )
                return
            known = ", ".join(sorted(self.cluster.queues)) or "none"
            volcano = (
                f'{_WEBHOOK}unable to find queue: queue.scheduling.volcano.sh "{name}" not found'
            )
            self.add(
                "queue",
                "fail",
                f"queue {name} does not exist and this stack does not create it "
                f"(existing: {known})",
                f"{volcano} -- the PodGroup is refused, so no Ray pod is ever created. "
                f"Fix: declare queue {name} in this stack, or set label volcano.sh/queue-name "
                f"to an existing queue ({known}).",
                never=True,
            )
            return
        if not q.open:
            volcano = (
                f"{_WEBHOOK}can only submit PodGroup to queue with state `Open`, "
                f"queue `{name}` status is `{q.state}`."
            )
            self.add(
                "queue",
                "fail",
                f"queue {name} is {q.state or 'not opened yet'}",
                f"{volcano} -- the webhook refuses the PodGroup and the scheduler would reject "
                f"it too. Fix: open queue {name} (vcctl queue operate --name {name} --action open) "
                "or use an Open queue.",
                never=True,
            )
            return
        if q.observed:
            how = "exists and is Open" + ("; this stack updates its spec" if q.declared else "")
        elif q.declared:
            how = "is created by this stack (the queue controller opens it)"
        else:
            how = "is Volcano's default queue (the scheduler creates it)"
        self.add("queue", "pass", f"queue {name}{label} {how}")

    # -- 2. gang -------------------------------------------------------------------------

    def check_gang(self) -> None:
        gang = self.plan.gang
        pods = self.pods.created
        parts = ", ".join(f"{m} {t.label}" for t, m, _ in self.pods.roles)
        message = f"minMember {gang.min_member} <= {pods} pods created ({parts}"
        extra = self.pods.extra_count
        message += f", {extra} above minReplicas)" if extra else ")"
        if self.pods.submitter is not None:
            message += "; the submitter is reserved in minResources, not a member"
        real = self.pods.request(extras=False)
        if self.pods.submitter is not None:
            real = add_res(real, self.pods.submitter.request)
        under = [n for n in asked_names(real) if get(real, n) > get(self.minimum, n)]
        if under:
            # kuberay accounting leaves out init containers and overhead (peers.md pain 2):
            # Volcano then admits a gang on a reservation smaller than what it will use.
            message += (
                f"; minResources reserve less than the pods request "
                f"({show_res(self.minimum, under)} < {show_res(real, under)}; accounting "
                f"{self.plan.gang.accounting}), placement uses what the pods request"
            )
        if gang.min_member > pods:
            volcano = gang_condition(gang.min_member, pods, 0, None, "")
            self.add(
                "gang",
                "fail",
                f"minMember {gang.min_member} > {pods} pods",
                f"{volcano} -- Volcano waits for {gang.min_member} pods but only {pods} will "
                "exist, so the gang is never valid. Fix: make minMember match the pods "
                "(check replicas, minReplicas and suspended groups).",
                never=True,
            )
            return
        unmodelled = list(self.pods.unmodelled)
        labels = self.plan.item.job.metadata.labels
        if "volcano.sh/network-topology-mode" in labels:
            unmodelled.append("network topology (volcano.sh/network-topology-mode)")
        if unmodelled:
            text = ", ".join(unmodelled)
            self.add(
                "gang",
                "warn",
                f"{message}; not modelled: {text}",
                f"the gang uses constraints preflight does not model ({text}); placement may "
                "differ from the prediction.",
            )
            return
        self.add("gang", "pass", message)

    # -- 3. capability (static) ----------------------------------------------------------

    def real_capability(self, queue: QueueView, total: Res | None) -> Res | None:
        """proportion's ``realCapability``; None when neither cluster nor capability bounds it."""
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
        queues = self.cluster.queues.values() if self.cluster is not None else [queue]
        total_guarantee = add_res(*(q.guarantee for q in queues))
        if queue.name not in {q.name for q in queues}:
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

    def check_capability(self) -> None:
        q = self.queue
        if q is None:
            self.add("capability", "skip", f"queue {self.qname} unknown")
            return
        total = self.cluster.total if self.cluster is not None and self.cluster.has_nodes else None
        real = self.real_capability(q, total)
        if real is None:
            self.add(
                "capability",
                "skip" if total is None else "pass",
                f"queue {q.name} has no capability; the cluster size is unknown without a snapshot",
            )
            return
        if total is None:
            # Without nodes only names the capability bounds can be compared.
            bounded = {n: v for n, v in self.minimum.items() if n in real}
            short = insufficient(bounded, real, bounded)
        else:
            short = insufficient(self.minimum, real, self.minimum)
        need = show_res(self.minimum, ordered(n for n in self.minimum if n != "pods"))
        if not short:
            scope = (
                "capability"
                if total is None
                else "realCapability (capability, cluster size, other queues' guarantees)"
            )
            self.add("capability", "pass", f"minResources ({need}) fit queue {q.name}'s {scope}")
            return
        volcano = "queue resource quota insufficient: " + ", ".join(
            f"insufficient {n}" for n in short
        )
        limits: list[str] = []
        fixes: list[str] = []
        for name in short:
            limit, fix = self.capability_limit(q, name, real, total)
            limits.append(limit)
            fixes.append(fix)
        deficit = {n: get(self.minimum, n) - get(real, n) for n in short}
        shrink = self.replica_fix(deficit)
        fix = "; or ".join(([shrink] if shrink else []) + fixes)
        self.short["capability"] = set(short)
        self.add(
            "capability",
            "fail",
            f"{volcano}: minResources ({need}) exceed what queue {q.name} can ever hold: "
            f"{'; '.join(limits)}",
            f"{volcano} -- the gang needs {show_res(self.minimum, short)} but "
            f"{'; '.join(limits)}, so the PodGroup stays Pending forever. Fix: {fix}.",
            never=True,
        )

    def capability_limit(
        self, q: QueueView, name: str, real: Res, total: Res | None
    ) -> tuple[str, str]:
        """What bounds the queue in ``name``, and the change that lifts the bound."""
        need = show(name, get(self.minimum, name))
        capped = name in q.capability and (name not in ("cpu", "memory") or q.capability[name] > 0)
        if total is None or (capped and get(real, name) >= q.capability[name]):
            value = show(name, get(real, name))
            return (
                f"queue {q.name} capability {name} is {value}",
                f"raise queue {q.name} capability {name} from {value} to {need}",
            )
        offered = get(total, name)
        if offered <= 0:
            return (
                f"no node offers {name}",
                f"add nodes that offer {name}, or drop the {name} request",
            )
        guaranteed = offered + get(q.guarantee, name) - get(real, name)
        if guaranteed > 0:
            return (
                f"the cluster has {name} {show(name, offered)} of which other queues are "
                f"guaranteed {show(name, guaranteed)}",
                f"lower other queues' guarantee of {name}, or add nodes",
            )
        return (
            f"the whole cluster has {name} {show(name, offered)}",
            f"add nodes with {show_res(sub(self.minimum, real), [name])} more",
        )

    # -- 4. per-pod fit (static) ---------------------------------------------------------

    def check_fit(self) -> None:
        if self.cluster is not None and self.cluster.has_nodes:
            empty = self.cluster.shared.empty
            what = "node"
        elif self.shapes:
            empty = EmptyNodes(shape_nodes(self.shapes))
            what = "declared node shape"
        else:
            where = (
                "no cluster snapshot"
                if self.cluster is None
                else "the snapshot holds no Node objects"
            )
            self.add("fit", "skip", f"{where} and no declared node shapes (raygang:nodeShapes)")
            return
        nodes = empty.nodes
        for task in self.distinct_tasks():
            if empty.fit(task)[0]:
                continue
            reasons = empty.reasons(task)
            message = fit_error_message(reasons, len(nodes))
            self.add(
                "fit",
                "fail",
                f"the {task.label} pod fits no {what}, even empty: {message}",
                f"{message} -- the {task.label} pod "
                f"({show_res(task.request, asked_names(task.request))}) fits no {what} even when "
                f"the {what} is empty. Fix: {self.static_fix(task, nodes, reasons)}.",
                never=True,
            )
            return
        bound = self.capacity_bound(empty) if what == "node" else None
        if bound is not None:
            task, holds, want = bound
            members = self.pods.counts.get(task.group, 0)
            fix = (
                self.group_fix(task, holds)
                if holds < members
                else self.replica_cut(task, want - holds) or "add nodes"
            )
            self.add(
                "fit",
                "fail",
                f"even with every node empty only {holds} {task.label} pods fit; the job "
                f"starts {want}",
                f"{want - holds} of the {want} {task.label} pods can never be placed: all "
                f"nodes together, even empty, hold only {holds} of them "
                f"({show_res(task.request, asked_names(task.request))} each). Fix: {fix}.",
                never=True,
            )
            return
        self.add("fit", "pass", f"every pod of the job fits some {what} when it is empty")

    def distinct_tasks(self) -> list[Task]:
        """One pod of each role: the head, each worker group, the submitter."""
        tasks = [t for t, _, _ in self.pods.roles]
        return tasks + ([self.pods.submitter] if self.pods.submitter else [])

    def capacity_bound(self, empty: EmptyNodes) -> tuple[Task, int, int] | None:
        """A proof that the job cannot fit even an empty cluster.

        A group whose pods outnumber what all nodes together can hold, each node holding
        ``min over resource names of allocatable // request`` of them.
        """
        for task, members, extras in self.pods.roles:
            want = members + extras
            if task.best_effort or want == 0:
                continue
            holds = empty.fit(task)[1]
            if holds < want:
                return task, holds, want
        return None

    # -- 5. enqueue: overcommit and proportion -------------------------------------------

    def admitted_before(self) -> list[_Admitted]:
        """Pending PodGroups that pass the enqueue gate now, oldest first.

        Our PodGroup does not exist yet; the scheduler runs every second, so by the time
        it does, these are Inqueue and hold their reservation.
        """
        assert self.cluster is not None
        admitted: list[_Admitted] = []
        for group in self.cluster.groups:
            if not group.is_pending:
                continue  # only Pending PodGroups are enqueued
            ok, _ = self.vote(group.queue, group.min_raw, admitted)
            if ok and group.min_raw is not None:
                admitted.append(_Admitted(group.key, group.queue, group.min_res))
        return admitted

    def vote(
        self,
        queue: str,
        min_raw: Mapping[str, Quantity] | None,
        admitted: Sequence[_Admitted] = (),
    ) -> tuple[bool, str | None]:
        """Volcano's enqueue decision for a Pending PodGroup of ``queue``.

        Returns:
            ``(admitted, event)``: the event is the PodGroup event Volcano records when it
            rejects (None when it admits, or rejects silently).
        """
        view = self.queue_view(queue)
        if view is None:
            return False, None  # the job is dropped from the session
        if min_raw is None:
            return True, None  # no vote at all, even in a closed queue
        minimum = to_res(min_raw)
        short = self.overcommit_short(minimum, admitted)
        if short:
            return False, "resource in cluster is overused: " + ", ".join(
                f"overused {n}" for n in short
            )
        if not view.open:
            return False, None
        short = self.proportion_short(view, minimum, admitted)
        if short:
            return False, "queue resource quota insufficient: " + ", ".join(
                f"insufficient {n}" for n in short
            )
        return True, None

    def overcommit_idle(self) -> Res:
        assert self.cluster is not None
        return sub(scale(self.cluster.total, self.factor), self.cluster.used)

    def overcommit_held(self, admitted: Sequence[_Admitted]) -> Res:
        assert self.cluster is not None
        held: Res = {}
        for group in self.cluster.groups:
            if group.inqueue:
                held = add_res(held, group.min_res)
            elif group.running_reserved and group.min_raw is not None:
                held = add_res(held, inqueue_resource(group.min_raw, group.allocated))
        return add_res(held, *(a.minimum for a in admitted))

    def overcommit_short(self, minimum: Res, admitted: Sequence[_Admitted]) -> list[str]:
        return insufficient(
            add_res(self.overcommit_held(admitted), minimum), self.overcommit_idle(), minimum
        )

    def queue_committed(self, queue: str, admitted: Sequence[_Admitted]) -> Res:
        """``allocated + inqueue - elastic`` of a queue, plus gangs admitted before ours."""
        assert self.cluster is not None
        allocated: Res = {}
        inqueue: Res = {}
        elastic: Res = {}
        for group in self.cluster.groups:
            if group.queue != queue:
                continue
            group_allocated = group.allocated
            allocated = add_res(allocated, group_allocated)
            if (group.inqueue or group.running_reserved) and group.min_raw is not None:
                inqueue = add_res(inqueue, inqueue_resource(group.min_raw, group_allocated))
            elastic = add_res(elastic, exceeded(group_allocated, group.min_res))
        early = add_res(*(a.minimum for a in admitted if a.queue == queue))
        return add_res(sub(add_res(allocated, inqueue), elastic), early)

    def proportion_short(
        self, queue: QueueView, minimum: Res, admitted: Sequence[_Admitted]
    ) -> list[str]:
        assert self.cluster is not None
        real = self.real_capability(queue, self.cluster.total) or {}
        return insufficient(
            add_res(minimum, self.queue_committed(queue.name, admitted)), real, minimum
        )

    def blockers(self, names: Sequence[str], queue: str | None) -> list[str]:
        """Reservations that hold the short resources, stale ones first."""
        assert self.cluster is not None
        out = []
        for group in self.cluster.groups:
            if queue is not None and group.queue != queue:
                continue
            if group.inqueue:
                held = group.min_res
            elif group.running_reserved and group.min_raw is not None:
                held = (
                    inqueue_resource(group.min_raw, group.allocated)
                    if queue is None
                    else group.min_res
                )
            else:
                continue
            if not any(get(held, n) > 0 for n in names):
                continue
            stale = group.live_pods == 0
            note = (
                "Inqueue with no live pods, likely stale: delete it if its job is gone"
                if stale
                else group.phase
            )
            holds = show_res(held, [n for n in names if get(held, n) > 0])
            out.append((not stale, f"{group.key} ({note}; holds {holds})"))
        return [text for _, text in sorted(out)]

    def check_enqueue(self, admitted: list[_Admitted]) -> None:
        if self.cluster is None or not self.cluster.has_nodes:
            where = "no cluster snapshot" if self.cluster is None else "no Node objects"
            self.add("overcommit", "skip", f"{where}: cluster usage unknown")
            self.add("proportion", "skip", f"{where}: queue usage unknown")
            return
        early = f"; {len(admitted)} Pending PodGroup(s) are admitted first" if admitted else ""
        self.check_overcommit(admitted, early)
        self.check_proportion(admitted, early)

    def check_overcommit(self, admitted: list[_Admitted], early: str) -> None:
        assert self.cluster is not None
        minimum = self.minimum
        idle = self.overcommit_idle()
        held = self.overcommit_held(admitted)
        short = insufficient(add_res(held, minimum), idle, minimum)
        names = asked_names(minimum)
        factor = self.factor_text()
        if not short:
            left = show_res(sub(idle, held), names)
            self.add(
                "overcommit",
                "pass",
                f"needs {show_res(minimum, names)}; {factor} x allocatable - used - reserved "
                f"leaves {left}{early}",
            )
            return
        volcano = "resource in cluster is overused: " + ", ".join(f"overused {n}" for n in short)
        deficit = {n: get(held, n) + get(minimum, n) - get(idle, n) for n in short}
        fixes = []
        blockers = self.blockers(short, None)
        if blockers:
            fixes.append("finish or delete " + ", ".join(blockers))
        shrink = self.replica_fix(deficit)
        if shrink:
            fixes.append(shrink)
        total = self.cluster.total
        for name in short:
            if get(total, name) <= 0:
                fixes.append(f"add nodes that offer {name}")
            else:
                more = round_up(name, deficit[name] / self.factor)
                fixes.append(f"add nodes with {name} {show(name, more)} allocatable")
        same = "capability" if short and set(short) <= self.short.get("capability", set()) else ""
        self.add(
            "overcommit",
            "fail",
            f"{volcano}: needs {show_res(minimum, short)}; {factor} x allocatable "
            f"({show_res(scale(total, self.factor), short)}) - used "
            f"({show_res(self.cluster.used, short)}) leaves {show_res(idle, short)}, and "
            f"admitted gangs reserve {show_res(held, short)}{early}",
            f"{volcano} -- enqueue admits a gang only while {factor} x the cluster's "
            f"allocatable, minus what pods use and what admitted gangs reserve "
            f"({show_res(held, short)}), still covers it; the PodGroup stays Pending. "
            f"Fix: {'; or '.join(fixes)}.",
            same_cause=same,
        )

    def check_proportion(self, admitted: list[_Admitted], early: str) -> None:
        assert self.cluster is not None
        minimum = self.minimum
        names = asked_names(minimum)
        q = self.queue
        if q is None:
            self.add("proportion", "skip", f"queue {self.qname} unknown")
            return
        if not q.open:
            self.add(
                "proportion",
                "fail",
                f"queue {q.name} is not Open: proportion rejects the gang (no event)",
                same_cause="queue",
            )
            return
        real = self.real_capability(q, self.cluster.total) or {}
        committed = self.queue_committed(q.name, admitted)
        short = insufficient(add_res(minimum, committed), real, minimum)
        if not short:
            self.add(
                "proportion",
                "pass",
                f"queue {q.name}: realCapability {show_res(real, names)}, committed "
                f"{show_res(committed, names)}, this gang {show_res(minimum, names)}{early}",
            )
            return
        volcano = "queue resource quota insufficient: " + ", ".join(
            f"insufficient {n}" for n in short
        )
        deficit = {n: get(committed, n) + get(minimum, n) - get(real, n) for n in short}
        fixes = []
        blockers = self.blockers(short, q.name)
        if blockers:
            fixes.append("finish or delete " + ", ".join(blockers))
        shrink = self.replica_fix(deficit)
        if shrink:
            fixes.append(shrink)
        if all(n in q.capability and get(real, n) >= q.capability[n] for n in short):
            fixes.append(
                " and ".join(
                    f"raise queue {q.name} capability {n} from {show(n, q.capability[n])} "
                    f"to {show(n, get(committed, n) + get(minimum, n))}"
                    for n in short
                )
            )
        self.add(
            "proportion",
            "fail",
            f"{volcano}: queue {q.name} realCapability {show_res(real, short)}, committed "
            f"{show_res(committed, short)}, this gang {show_res(minimum, short)}{early}",
            f"{volcano} -- queue {q.name} can hold {show_res(real, short)}, its admitted "
            f"gangs already hold {show_res(committed, short)} and this gang needs "
            f"{show_res(minimum, short)} more, so the PodGroup stays Pending. "
            f"Fix: {'; or '.join(fixes)}.",
            same_cause="capability",
        )

    def factor_text(self) -> str:
        factor = self.factor
        return str(float(factor)) if factor.denominator in (1, 2, 4, 5, 10) else f"{factor}"

    # -- 6. fair share (allocate) --------------------------------------------------------

    def deserved(self) -> tuple[dict[str, Res], dict[str, Res]]:
        """proportion's water-filled ``deserved`` per queue with jobs, and their allocations."""
        assert self.cluster is not None
        queues: dict[str, QueueView] = {}
        request: dict[str, Res] = {}
        allocated: dict[str, Res] = {}
        for group in self.cluster.groups:
            view = self.queue_view(group.queue)
            if view is None:
                continue  # dropped from the session
            queues[view.name] = view
            alloc = group.allocated
            allocated[view.name] = add_res(allocated.get(view.name, {}), alloc)
            pending = add_res(*(p.request for p in group.pods if p.pending))
            request[view.name] = add_res(request.get(view.name, {}), alloc, pending)
        assert self.queue is not None
        ours = self.queue.name
        queues[ours] = self.queue
        own_request = self.pods.request(extras=True)
        request[ours] = add_res(request.get(ours, {}), own_request)
        allocated.setdefault(ours, {})
        total = self.cluster.total
        real = {name: self.real_capability(q, total) or {} for name, q in queues.items()}
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
                if fits_in(request.get(name, {}), new) or new == old:
                    met.add(name)
                increased = add_res(increased, exceeded(new, old))
                decreased = add_res(decreased, exceeded(old, new))
            remaining = exceeded(add_res(remaining, decreased), increased)
            empty = all(v < EPSILON for n, v in remaining.items() if n != "pods")
            if empty or remaining == before:
                break
        return deserved, allocated

    def check_fair_share(self) -> tuple[Res, Res] | None:
        if self.cluster is None:
            self.add("fair-share", "skip", "no cluster snapshot: other queues' demand unknown")
            return None
        if not self.cluster.has_nodes:
            self.add("fair-share", "skip", "the snapshot holds no Node objects")
            return None
        if self.queue is None:
            self.add("fair-share", "skip", f"queue {self.qname} unknown")
            return None
        deserved, allocated = self.deserved()
        q = self.queue
        mine = deserved[q.name]
        used = allocated[q.name]
        names = [n for n in ordered(self.minimum) if n != "pods"]
        queues = len(deserved)
        among = f"among {queues} queues with jobs" if queues > 1 else "the only queue with jobs"
        gang = self.pods.request()
        short = insufficient(add_res(used, gang), mine, gang)
        if not short:
            self.add(
                "fair-share",
                "pass",
                f"queue {q.name} deserves {show_res(mine, names)} ({among}); allocated "
                f"{show_res(used, names)} + gang {show_res(gang, names)} fit",
            )
            return mine, used
        over = sub(add_res(used, gang), mine)
        same = "capability" if set(short) <= self.short.get("capability", set()) else ""
        self.add(
            "fair-share",
            "fail",
            f"queue {q.name} deserves {show_res(mine, short)} ({among}), has "
            f"{show_res(used, short)} allocated; the gang needs {show_res(gang, short)}",
            f"Queue <{q.name}> is overused when considering task <...>, ignore it (scheduler "
            f"log only, no event) -- allocate gives queue {q.name} at most its weighted fair "
            f"share {show_res(mine, short)}; it already has {show_res(used, short)} and "
            "the default actions never reclaim from other queues. Fix: raise queue "
            f"{q.name}'s weight or guarantee, or shrink the gang by {show_res(over, short)}.",
            same_cause=same,
        )
        return mine, used

    # -- 7. placement --------------------------------------------------------------------

    @property
    def ranking(self) -> Ranking | None:
        return self.cluster.ranking if self.cluster is not None else None

    def place_others(self) -> tuple[list[Node], list[str]]:
        """The nodes once the pending pods Volcano places before ours are placed.

        Inqueue and Running gangs (and Pending ones admitted first) with pending pods
        are placed first, oldest first; a gang that cannot be placed takes nothing.
        """
        assert self.cluster is not None
        ranking = self.ranking
        nodes = list(self.cluster.nodes)
        notes: list[str] = []
        admitted = {a.name for a in self.early}
        for group in self.cluster.groups:
            pending = group.pending_pods
            if not pending or len(pending) > MAX_SIMULATED_PODS:
                continue
            if group.phase not in ("Inqueue", "Running") and group.key not in admitted:
                continue  # still Pending: allocate skips it
            if self.queue_view(group.queue) is None:
                continue  # its queue is gone: the job is dropped from the session
            tasks = [p.task() for p in pending]
            if group.ready_tasks < group.min_member:
                live = sum(1 for p in group.pods if not p.terminal)
                outcome = place_gang(
                    tasks,
                    nodes,
                    group.min_member,
                    already_ready=group.ready_tasks,
                    whole_gang=group.min_member >= live,
                    ranking=ranking,
                )
                if not outcome.ready:
                    continue  # discarded: it takes nothing, but keeps its reservation
                tasks = tasks[outcome.tried :]
                notes.append(f"{group.key} places its gang first")
            # A ready gang places its remaining pods one by one.
            placed, _, _ = place_singly(tasks, nodes, ranking)
            if placed and group.ready_tasks >= group.min_member:
                notes.append(f"{group.key} places {len(placed)} pending pod(s) first")
        return nodes, notes

    def base_after_others(self) -> tuple[list[Node], list[str]]:
        """``place_others()``, computed once per stack when the job has no object in the
        snapshot (it depends only on which Pending gangs are admitted first): fresh copies.
        """
        if self._base is None:
            cluster = self.cluster
            assert cluster is not None
            key = tuple(a.name for a in self.early)
            cached = cluster.shared.bases.get(key) if cluster.whole else None
            if cached is None:
                cached = self.place_others()
                if cluster.whole:
                    bases = cluster.shared.bases
                    bases[key] = cached
                    if len(bases) > BASES_KEPT:
                        del bases[next(iter(bases))]
            self._base = cached
        nodes, notes = self._base
        return list(nodes), list(notes)

    def after_siblings(self, gangs: Sequence[tuple[Sequence[Task], int]]) -> list[Node]:
        """``base_after_others()`` with the stack's other gangs placed first, in order."""
        nodes, _ = self.base_after_others()
        for tasks, min_member in gangs:
            place_gang(tasks, nodes, min_member, whole_gang=True, ranking=self.ranking)
        return nodes

    def roomy(self, base: Sequence[Node]) -> bool:
        return self.ranking is not None and is_roomy(self.pods.gang, base, self.ranking)

    def simulate(
        self, nodes: list[Node], gang: Sequence[Task], queue_ok: QueueGate | None
    ) -> GangOutcome:
        """Place this job's gang in the given pod order."""
        return place_gang(
            gang,
            nodes,
            self.plan.gang.min_member,
            # The submitter does not exist yet, so the job's pods are the gang and extras.
            whole_gang=self.plan.gang.min_member >= self.pods.created,
            queue_ok=queue_ok,
            ranking=self.ranking,
        )

    def check_placement(self, fair: tuple[Res, Res] | None) -> None:
        if self.cluster is None or not self.cluster.has_nodes:
            why = "no cluster snapshot" if self.cluster is None else "no Node objects"
            self.add("placement", "skip", f"{why}: where the pods land is unknown")
            self.add_submitter_skip(why)
            return
        if self.pods.created > MAX_SIMULATED_PODS:
            self.add("placement", "skip", f"{self.pods.created} pods: too many to simulate")
            self.add_submitter_skip("placement not simulated")
            return
        # When the fair-share check already failed, place without it so this check tells
        # whether the nodes themselves could take the gang.
        queue_ok = self.queue_gate(fair) if "fair-share" not in self.failed else None
        base, notes = self.base_after_others()
        prefix = ("; ".join(notes) + "; ") if notes else ""
        gang = self.pods.gang
        nodes = list(base)
        first = self.simulate(nodes, gang, queue_ok)
        # KubeRay creates the head first, but pods of the same second are ordered by UID.
        # Any order succeeds when the first placed every pod on idle room and every kind of
        # pod has as many untouched nodes as the gang has pods (see roomy).
        any_order = (
            first.ready
            and first.allocated == len(first.placed) == sum(1 for t in gang if not t.best_effort)
            and first.queue_blocked is None
            and self.roomy(base)
        )
        second = (
            self.simulate(list(base), gang[1:] + gang[:1], queue_ok)
            if len(gang) > 1 and not any_order
            else first
        )
        ok_first = first.ready or first.pipelined
        ok_second = second.ready or second.pipelined
        if not (ok_first and ok_second):
            order = "head first (KubeRay's creation order)" if not ok_first else "head last"
            failing = first if not ok_first else second
            self.add_placement_failure(
                base, failing, ok_first or ok_second, prefix, queue_ok, order
            )
            self.add("submitter", "skip", "not reached: the gang is not placed")
            return
        extras = self.pods.extras
        placed, failed, errors = place_singly(extras, nodes, self.ranking)
        if failed is not None:
            message = fit_error_message(errors, len(nodes))
            left = len(extras) - len(placed)
            fix = self.replica_cut(failed, left) or f"free room for {left} {failed.label} pod(s)"
            self.add(
                "placement",
                "fail",
                f"{prefix}the gang fits but {left} {failed.label} pod(s) above minReplicas do "
                f"not: {message}",
                f"{message} -- the gang ({self.plan.gang.min_member} pods) is placed, but {left} "
                f"{failed.label} pod(s) above minReplicas stay Pending, so the RayCluster never "
                f"reports ready and the stack waits for it. Fix: {fix}.",
            )
            self.add("submitter", "skip", "not reached: the RayCluster never becomes ready")
            return
        where = ", ".join(sorted({node for _, node in first.placed} | set(placed)))
        waiting = " (some wait for terminating pods to release room)" if first.pipelined else ""
        count = self.pods.created
        pods = f"all {count} pods fit" if count > 1 else "the pod fits"
        order = " in either pod order" if count > 1 else ""
        self.add("placement", "pass", f"{prefix}{pods} on {where}{order}{waiting}")
        self.check_submitter(nodes)

    def add_submitter_skip(self, why: str) -> None:
        if self.pods.submitter is None:
            self.add("submitter", "pass", self.no_submitter())
        else:
            self.add("submitter", "skip", why)

    def no_submitter(self) -> str:
        mode = self.plan.mode
        return f"{mode}: " + (
            "it runs in the head pod" if mode == "SidecarMode" else "no submitter pod"
        )

    def queue_gate(self, fair: tuple[Res, Res] | None) -> QueueGate | None:
        if fair is None:
            return None
        deserved, allocated = fair

        def ok(task: Task, placed: Res) -> bool:
            # not insufficient(add_res(allocated, placed, request), deserved, request): only
            # the names the pod asks for (pods never), per name, without the sums' dicts.
            for name, value in task.request.items():
                if value > 0 and name != "pods":
                    total = allocated.get(name, ZERO) + placed.get(name, ZERO) + value
                    if total > deserved.get(name, ZERO):
                        return False
            return True

        return ok

    def add_placement_failure(
        self,
        base: list[Node],
        outcome: GangOutcome,
        order_dependent: bool,
        prefix: str,
        queue_ok: QueueGate | None,
        order: str,
    ) -> None:
        gang = self.plan.gang
        pods = len(self.pods.gang) + len(self.pods.extras)
        if outcome.failed is None:
            blocked = outcome.queue_blocked
            label = blocked.label if blocked else "a pod"
            self.add(
                "placement",
                "fail",
                f"{prefix}the {label} pod is refused by queue {self.qname}'s fair share",
                f"{gang_condition(gang.min_member, pods, outcome.allocated, None, '')} -- "
                f"queue {self.qname}'s fair share runs out before the gang is complete. "
                "Fix: raise the queue's weight or guarantee, or shrink the gang.",
                same_cause="fit",
            )
            return
        failed = outcome.failed
        placed = sum(1 for task, _ in outcome.placed if task.group == failed.group)

        def fix() -> str:
            return self.group_fix(failed, None, base, queue_ok, placed)

        message = fit_error_message(outcome.fit_errors, len(base))
        volcano = gang_condition(gang.min_member, pods, outcome.allocated, failed, message)
        packable = best_fit_decreasing(self.pods.gang, base)
        free = add_res(*(n.idle for n in base if selects(failed, n)))
        need = self.pods.request()
        asked = asked_names(failed.request)
        lacking = {
            r.removeprefix("Insufficient ")
            for r in outcome.fit_errors.values()
            if r.startswith("Insufficient ")
        }
        short_names = ordered(lacking) or asked
        resources_only = all(r.startswith("Insufficient ") for r in outcome.fit_errors.values())
        aggregate = resources_only and not short_on_node(
            {n: get(need, n) for n in short_names}, free
        )
        explanation = f"the {failed.label} pod ({show_res(failed.request, asked)}) fits no node"
        if outcome.placed:
            explanation += f" once {len(outcome.placed)} pod(s) of the gang are placed"
        most = self.most_free(base, failed, short_names)
        if most:
            explanation += f"; {most}"
        if aggregate:
            explanation += (
                f" although the nodes together have {show_res(free, short_names)} free: "
                "fragmentation, Volcano places pods one at a time and never moves placed ones"
            )
        if order_dependent or packable:
            detail = "the other order fits" if order_dependent else "a tighter packing fits"
            self.add(
                "placement",
                "warn",
                f"{prefix}{order}: {message} but {detail}: the outcome depends on Volcano's pod "
                "order (creation second, then pod UID) and node scores",
                f"{volcano} -- {explanation}; whether Volcano finds a placement depends on pod "
                f"order and node scoring. Fix: {fix()}.",
            )
            return
        self.add(
            "placement",
            "fail",
            f"{prefix}{message} (the {failed.label} pod)",
            f"{volcano} -- {explanation}. {self.waiting_text()} Fix: {fix()}.",
            same_cause="fit",
        )

    def waiting_text(self) -> str:
        if self.failed & {"overcommit", "proportion", "capability", "queue"}:
            return "Even once admitted it would wait here."
        return (
            "The PodGroup is admitted (Inqueue) and keeps its reservation, blocking other "
            "gangs, while it waits."
        )

    def most_free(self, nodes: Sequence[Node], task: Task, names: Sequence[str]) -> str:
        parts = []
        for name in names:
            candidates = [n for n in nodes if selects(task, n) and untolerated(task, n) is None]
            if not candidates:
                continue
            best = max(candidates, key=lambda n: (get(n.future_idle(), name), n.name))
            value = get(best.future_idle(), name)
            if value < get(task.request, name):
                most = show(name, max(value, ZERO))
                parts.append(f"the most free {name} on a node it may use is {most} ({best.name})")
        return "; ".join(parts)

    def check_submitter(self, nodes: list[Node]) -> None:
        task = self.pods.submitter
        if task is None:
            self.add("submitter", "pass", self.no_submitter())
            return
        placed, failed, errors = place_singly([task], nodes, self.ranking)
        if failed is None:
            self.add(
                "submitter",
                "pass",
                f"the submitter pod fits on {placed[0]} after the gang (it is created once the "
                "RayCluster is ready)",
            )
            return
        message = fit_error_message(errors, len(nodes))
        self.add(
            "submitter",
            "fail",
            f"the submitter pod fits no node once the gang is placed: {message}",
            f"{message} -- the RayCluster comes up but the submitter Job's pod "
            f"({show_res(task.request, asked_names(task.request))}) cannot be "
            "placed, so the Ray job is never submitted. Fix: lower submitterPodTemplate requests, "
            "or free that much on a node the submitter may use.",
        )

    # -- fixes ---------------------------------------------------------------------------

    def worker_groups(self) -> Iterator[tuple[int, GangShare]]:
        index = 0
        for share in self.plan.gang.shares:
            if share.role == "worker":
                yield index, share
                index += 1

    def replica_fix(self, deficit: Mapping[str, Num]) -> str | None:
        """The smallest replica cut of one worker group that frees ``deficit``."""
        cluster = self.plan.item.job.spec.ray_cluster_spec
        if cluster is None or not deficit:
            return None
        scaling = cluster.enable_in_tree_autoscaling is True
        best: tuple[int, str] | None = None
        for index, share in self.worker_groups():
            per = to_res(share.per_pod)
            if share.reserved <= 0 or any(get(per, n) <= 0 for n in deficit):
                continue
            group = cluster.worker_group_specs[index]
            hosts = max(group.num_of_hosts, 1)
            pods = max(ceil_div(v, get(per, n)) for n, v in deficit.items())
            drop = ceil_div(pods, hosts)
            current = share.reserved // hosts
            if drop > current:
                continue
            text = self.replica_text(
                share.group, current, current - drop, scaling, group.min_replicas
            )
            if best is None or drop < best[0]:
                best = (drop, text)
        return best[1] if best else None

    def replica_cut(self, task: Task, pods: int) -> str | None:
        """Fewer started replicas of ``task``'s worker group, ``pods`` pods fewer."""
        cluster = self.plan.item.job.spec.ray_cluster_spec
        if cluster is None:
            return None
        for group in cluster.worker_group_specs:
            if group.group_name == task.group:
                hosts = max(group.num_of_hosts, 1)
                current = desired_worker_replicas(group) // hosts
                drop = ceil_div(pods, hosts)
                return (
                    f"reduce worker group {task.group} replicas from {current} to {current - drop}"
                )
        return None

    @staticmethod
    def replica_text(
        group: str, current: int, new: int, scaling: bool, min_replicas: int | None
    ) -> str:
        field_name = "minReplicas" if scaling else "replicas"
        text = f"reduce worker group {group} {field_name} from {current} to {new}"
        if not scaling and min_replicas and new < min_replicas:
            text += f" (and minReplicas to {new})"
        return text

    def group_fix(
        self,
        task: Task,
        fit_count: int | None,
        base: list[Node] | None = None,
        queue_ok: QueueGate | None = None,
        hint: int | None = None,
    ) -> str:
        """Fewer pods of the failing worker group, or a smaller pod, or more nodes.

        ``hint``: how many pods of the group a failed attempt placed (see ``max_members``).
        """
        cluster = self.plan.item.job.spec.ray_cluster_spec
        options = []
        if task.label.startswith("worker group") and cluster is not None:
            index, share = next(
                ((i, s) for i, s in self.worker_groups() if s.group == task.group), (None, None)
            )
            if index is not None and share is not None:
                group = cluster.worker_group_specs[index]
                hosts = max(group.num_of_hosts, 1)
                scaling = cluster.enable_in_tree_autoscaling is True
                current_pods = share.members
                fits = (
                    fit_count
                    if fit_count is not None
                    else self.max_members(task, base or [], queue_ok, hint)
                )
                if fits is not None and fits < current_pods:
                    new = fits // hosts
                    options.append(
                        self.replica_text(
                            task.group, current_pods // hosts, new, scaling, group.min_replicas
                        )
                    )
        options.append(
            f"add a node that can take a {task.label} pod "
            f"({show_res(task.request, asked_names(task.request))})"
        )
        return ", or ".join(options)

    def max_members(
        self,
        task: Task,
        base: list[Node],
        queue_ok: QueueGate | None,
        hint: int | None = None,
    ) -> int | None:
        """The most pods of ``task``'s group with which the whole gang still places.

        A binary search over the group's size, the rest of the gang unchanged, that tries
        ``hint`` (a likely answer) first.
        """
        if not base:
            return None
        members = self.pods.counts.get(task.group, 0)

        def places(size: int) -> bool:
            gang = [
                t
                for role, count, _ in self.pods.roles
                for t in [role] * (size if role.group == task.group else count)
            ]
            outcome = place_gang(
                gang,
                list(base),
                len(gang),
                whole_gang=True,
                queue_ok=queue_ok,
                ranking=self.ranking,
            )
            return outcome.ready or outcome.pipelined

        # The failed attempt placed ``hint`` pods of the group before one fit nowhere; the
        # answer is usually that many, so the search starts there: hint places and hint + 1
        # does not settle it with two attempts (the search assumes, as before, that fewer
        # pods never place worse).
        if hint is not None and 0 <= hint < members:
            if places(hint):
                if hint + 1 >= members or not places(hint + 1):
                    return hint
                low, high, found = hint + 2, members - 1, hint + 1
            else:
                low, high, found = 0, hint - 1, None
        else:
            low, high, found = 0, members - 1, None
        while low <= high:
            mid = (low + high) // 2
            if places(mid):
                found, low = mid, mid + 1
            else:
                high = mid - 1
        return found

    def static_fix(self, task: Task, nodes: Sequence[Node], reasons: Mapping[str, str]) -> str:
        """The smallest change that lets ``task`` onto some empty node, per kind of refusal."""
        fixes = []
        tainted = [
            n for n in nodes if reasons.get(n.name, "").startswith("node(s) had untolerated")
        ]
        if tainted:
            taint = untolerated(task, tainted[0])
            assert taint is not None
            fixes.append(
                f"add toleration {{key: {taint.get('key')}, operator: Exists, effect: "
                f"{taint.get('effect')}}} to the {task.label} pod template"
            )
        if "node(s) didn't match Pod's node affinity/selector" in reasons.values():
            fixes.append(f"change the {task.label} nodeSelector/affinity to match a node's labels")
        short = {r.removeprefix("Insufficient ") for r in reasons.values() if r.startswith("Insuf")}
        for name in ordered(short):
            offered = [get(n.allocatable, name) for n in nodes if get(n.allocatable, name) > 0]
            if not offered:
                fixes.append(f"add nodes that offer {name}, or drop the {name} request")
                continue
            asked = show(name, get(task.request, name))
            fixes.append(
                f"lower the {task.label} {name} request from {asked} to at most "
                f"{show(name, max(offered))} (the largest node), or add a larger node"
            )
        return "; or ".join(fixes) or "change the pod's scheduling constraints"

    # -- 8. siblings (advisory) ----------------------------------------------------------

    def check_siblings(self) -> None:
        if not self.siblings:
            self.add("siblings", "pass", f"no other job of this stack uses queue {self.qname}")
            return
        shown = [f"{s.namespace}/{s.name}" for s in self.siblings[:SIBLINGS_NAMED]]
        more = len(self.siblings) - len(shown)
        names = ", ".join(shown) + (f" and {more} more" if more else "")
        combined = add_res(self.minimum, self.siblings_minimum)
        problems: list[str] = []
        q = self.queue
        if self.cluster is not None and self.cluster.has_nodes and q is not None:
            # The gates only sum what is admitted ahead: the siblings as one.
            ahead = [_Admitted("the stack's other jobs", self.qname, self.siblings_minimum)]
            alone_oc = self.overcommit_short(self.minimum, self.early)
            together_oc = self.overcommit_short(self.minimum, [*self.early, *ahead])
            if together_oc and not alone_oc:
                problems.append(
                    "resource in cluster is overused: "
                    + ", ".join(f"overused {n}" for n in together_oc)
                )
            if q.open:
                alone_q = self.proportion_short(q, self.minimum, self.early)
                together_q = self.proportion_short(q, self.minimum, [*self.early, *ahead])
                if together_q and not alone_q:
                    problems.append(
                        "queue resource quota insufficient: "
                        + ", ".join(f"insufficient {n}" for n in together_q)
                    )
            many = len(self.siblings) > MAX_SIMULATED_SIBLINGS
            sibling_pods = [] if many else [job_pods(s) for s in self.siblings]
            small = all(p.created <= MAX_SIMULATED_PODS for p in [self.pods, *sibling_pods])
            if not problems and many:
                problems += self.siblings_by_sum(combined)
            elif not problems and small:
                gangs = [
                    (list(p.gang), s.gang.min_member)
                    for p, s in zip(sibling_pods, self.siblings, strict=True)
                ]
                alone_nodes, _ = self.base_after_others()
                together_nodes = self.after_siblings(gangs)
                alone = place_gang(
                    self.pods.gang,
                    alone_nodes,
                    self.plan.gang.min_member,
                    whole_gang=True,
                    ranking=self.ranking,
                )
                together = place_gang(
                    self.pods.gang,
                    together_nodes,
                    self.plan.gang.min_member,
                    whole_gang=True,
                    ranking=self.ranking,
                )
                if (alone.ready or alone.pipelined) and not (together.ready or together.pipelined):
                    problems.append(
                        "the nodes cannot hold all these gangs at once: "
                        + fit_error_message(together.fit_errors, len(together_nodes))
                    )
        elif q is not None and q.capability_raw:
            real = self.real_capability(q, None) or {}
            bounded = {n: v for n, v in combined.items() if n in real}
            short = insufficient(bounded, real, bounded)
            if short and not insufficient(
                {n: v for n, v in self.minimum.items() if n in real}, real, self.minimum
            ):
                problems.append(
                    f"together they need {show_res(combined, short)}, queue {q.name} "
                    f"capability is {show_res(real, short)}"
                )
        if problems:
            timeout = self.plan.settings.cluster_ready_timeout_seconds
            self.add(
                "siblings",
                "warn",
                f"with {names} (same stack, same queue {self.qname}): {'; '.join(problems)} -- "
                "Volcano admits them one after another (by priority, then age), so this job may "
                "wait for another to finish, while pulumi up waits at most "
                f"clusterReadyTimeoutSeconds ({timeout}s) for its RayCluster",
            )
        else:
            self.add(
                "siblings",
                "pass",
                f"fits together with {names} (same stack, same queue {self.qname})"
                + (
                    f" by summed resources (more than {MAX_SIMULATED_SIBLINGS} jobs in the "
                    "queue: the gangs are not placed one by one)"
                    if len(self.siblings) > MAX_SIMULATED_SIBLINGS
                    and self.cluster is not None
                    and self.cluster.has_nodes
                    and self.queue is not None
                    else ""
                ),
            )

    def siblings_by_sum(self, combined: Res) -> list[str]:
        """Too many siblings to place one gang after another for every job of the stack
        (that is quadratic in the stack's size): compare the gangs' summed minimum with
        the room the nodes have left once the pods placed before ours are placed.

        A shortfall here is certain (no placement can beat the sum); room in total does
        not prove that every gang finds nodes, which the message says.
        """
        nodes, _ = self.base_after_others()
        alone = (
            place_gang(
                self.pods.gang,
                nodes,
                self.plan.gang.min_member,
                whole_gang=True,
                ranking=self.ranking,
            )
            if self.pods.created <= MAX_SIMULATED_PODS and not self.roomy(nodes)
            else None
        )
        if alone is not None and not (alone.ready or alone.pipelined):
            return []  # it does not fit alone: the placement check already says so
        nodes, _ = self.base_after_others()
        room = add_res(*(n.future_idle() for n in nodes if not n.unschedulable))
        short = insufficient(combined, room, combined)
        if not short:
            return []
        return [
            f"the nodes cannot hold all these gangs at once: together they need "
            f"{show_res(combined, short)}, the nodes have {show_res(room, short)} left "
            f"(summed over the nodes: with more than {MAX_SIMULATED_SIBLINGS} jobs in the "
            "queue the gangs are not placed one by one)"
        ]

    # -- driver --------------------------------------------------------------------------

    def run(self) -> PreflightResult:
        self.check_snapshot()
        self.check_queue()
        self.check_gang()
        self.check_capability()
        self.check_fit()
        self.early = (
            self.admitted_before() if self.cluster is not None and self.cluster.has_nodes else []
        )
        self.check_enqueue(self.early)
        fair = self.check_fair_share()
        self.check_placement(fair)
        self.check_siblings()
        return self.result()


def preflight_job(
    plan: JobPlan,
    *,
    queues: Mapping[str, QueueDecl],
    snapshot: ClusterSnapshot | None,
    others: Sequence[JobPlan] = (),
    node_shapes: Sequence[NodeShape] = (),
    overcommit_factor: Fraction = DEFAULT_OVERCOMMIT_FACTOR,
) -> PreflightResult:
    """Predict whether Volcano (default configuration) admits and places the job's gang.

    Args:
        plan: the job's plan.
        queues: the queues this stack declares (created by it), by name.
        snapshot: what the cluster holds (Nodes, Pods, Queues, PodGroups), or None.
        others: the stack's jobs (this one is left out by namespace and name); those in
            the same queue are the advisory ``siblings`` check and never change the
            verdict. Pass the same tuple for every job of a stack: it is indexed once.
        node_shapes: declared node shapes (``raygang:nodeShapes``); used for the
            per-pod fit only when the snapshot has no Node objects.
        overcommit_factor: the overcommit plugin's factor (Volcano replaces values below
            1 with its default 1.2).

    Returns:
        The verdict, the reasons and every check.
    """
    return _Preflight(
        plan, queues, snapshot, others, node_shapes, Fraction(overcommit_factor)
    ).run()
