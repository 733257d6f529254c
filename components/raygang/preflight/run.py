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
  counted as admitted before it, and the pending pods of admitted gangs are placed in
  allocate's order (:mod:`raygang.volcano.actions.others`): queues by priority, then
  share (allocated / deserved), ordered anew after each job; in a queue, gangs not yet
  ready first, then the smaller dominant share, then age. A queue at its deserved share
  is skipped, and each pod must fit in its queue's deserved share, so a capped gang
  takes no room. The gangs whose turn comes before this job's are placed first. This
  job's own PodGroup and pods (from an earlier ``up``) are left out: the gang is judged
  as if created anew.
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
scheduling gates, pod and PodGroup priority (a job order key) and preemption (not in the
default actions anyway), pending pods of other schedulers, the helm chart's ``binpack``
scores, non-zero default requests in node scoring, and node choice among equal scores
(Volcano picks at random; we pick by name).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from raygang.kube.snapshot import ClusterSnapshot
from raygang.kuberay.jobplan import JobPlan
from raygang.preflight.checks.admission import (
    check_capability,
    check_gang,
    check_queue,
    check_snapshot,
)
from raygang.preflight.checks.enqueue import check_enqueue
from raygang.preflight.checks.fairshare import check_fair_share
from raygang.preflight.checks.fit import check_fit
from raygang.preflight.checks.placement import check_placement
from raygang.preflight.checks.siblings import check_siblings
from raygang.preflight.evaluation import Evaluation
from raygang.preflight.result import Check, CheckStatus, NodeShape, Phase, PreflightResult, Verdict
from raygang.preflight.stack import StackView, stack_view
from raygang.preflight.verdict import result_of
from raygang.volcano.actions.enqueue import enqueue
from raygang.volcano.conf import DEFAULT_OVERCOMMIT_FACTOR
from raygang.volcano.queue import QueueDecl

__all__ = [
    "DEFAULT_OVERCOMMIT_FACTOR",
    "Check",
    "CheckStatus",
    "NodeShape",
    "Phase",
    "PreflightResult",
    "StackView",
    "Verdict",
    "preflight_job",
    "stack_view",
]


def run(ev: Evaluation) -> PreflightResult:
    """Every check, in Volcano's order of stages, then the verdict."""
    check_snapshot(ev)
    check_queue(ev)
    check_gang(ev)
    check_capability(ev)
    check_fit(ev)
    if ev.cluster is not None and ev.cluster.has_nodes:
        ev.enqueued = enqueue(ev.session, ev.qname, ev.plan.gang.min_resources)
    check_enqueue(ev)
    fair = check_fair_share(ev)
    check_placement(ev, fair)
    check_siblings(ev)
    return result_of(ev)


def preflight_job(
    plan: JobPlan,
    *,
    queues: Mapping[str, QueueDecl],
    snapshot: ClusterSnapshot | None,
    others: Sequence[JobPlan] = (),
    node_shapes: Sequence[NodeShape] = (),
    overcommit_factor: Fraction = DEFAULT_OVERCOMMIT_FACTOR,
    stack: StackView | None = None,
) -> PreflightResult:
    """Predict whether Volcano (default configuration) admits and places the job's gang.

    Args:
        plan: the job's plan.
        queues: the queues this stack declares (created by it), by name.
        snapshot: what the cluster holds (Nodes, Pods, Queues, PodGroups), or None.
        others: the stack's jobs (this one is left out by namespace and name); those in
            the same queue are the advisory ``siblings`` check and never change the
            verdict.
        node_shapes: declared node shapes (``raygang:nodeShapes``); used for the
            per-pod fit only when the snapshot has no Node objects.
        overcommit_factor: the overcommit plugin's factor (Volcano replaces values below
            1 with its default 1.2).
        stack: what every job of the planning pass sees alike (:func:`stack_view` of the
            same ``snapshot``, ``queues`` and ``others``: the snapshot read once per
            pass); when None, it is read for this job alone.

    Returns:
        The verdict, the reasons and every check.
    """
    evaluation = Evaluation(
        plan,
        queues,
        node_shapes,
        Fraction(overcommit_factor),
        stack if stack is not None else stack_view(snapshot, queues, others),
    )
    return run(evaluation)
