"""The ``finished`` and ``failed`` phases: clean up on schedule, keep what the logs need.

KubeRay's RayJob controller handles Complete and Failed alike
(``ray-operator/controllers/ray/rayjob_controller.go`` v1.7.0): the deletion rules, the
legacy policy or ``shutdownAfterJobFinishes`` remove objects once due
(:mod:`raygang.lifecycle.cleanup`), and the Volcano adapter's ``CleanupOnCompletion``
(``batchscheduler/volcano/volcano_scheduler.go``) recomputes the PodGroup from the live
RayCluster without the submitter, or zeroes it once the cluster is gone, so a finished job
never holds queue capacity it does not use (kuberay#4473; KubeRay zeroes it on the
cluster's ``deletionTimestamp``, raygang only once the facts show the cluster and its pods
gone, :mod:`raygang.lifecycle.release`; ``CleanupOnCompletion`` is in
KubeRay from v1.6, v1.5.0 leaves the PodGroup as created). A finished job keeps its job
record and its submitter Job (for the logs); ``DeleteSelf`` keeps the record as a
tombstone, so a finished job whose objects are gone is never started again.
"""

from __future__ import annotations

from raygang.kube.errors import SpecError
from raygang.kuberay.gang import Gang, compute_gang
from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.lifecycle.cleanup import due_cleanup, later_after, later_text
from raygang.lifecycle.declared import (
    finished_cluster,
    finished_job,
    podgroup_with,
    scale_workers_to_zero,
    suspend_workers,
    with_manifest,
)
from raygang.lifecycle.facts.clock import format_time
from raygang.lifecycle.facts.model import JobFacts
from raygang.lifecycle.model import LATER, Declaration, Run
from raygang.lifecycle.release import Held, held_until_gone, workers_held_until_gone
from raygang.rayjob.spec import RayClusterSpec

__all__ = ["SCALED_TO_ZERO", "declare_finished"]

SCALED_TO_ZERO = (
    "the KubeRay operator refused suspended worker groups (before v1.7 they need its "
    "RayJobDeletionPolicy feature gate): DeleteWorkers scales them to zero instead"
)


def declare_finished(run: Run) -> Declaration:
    """Declare a finished (or failed for good) job: what its cleanup leaves, and when more goes."""
    plan, facts, seen, resources = run.plan, run.facts, run.seen, run.resources
    item = plan.item
    podgroup = resources["podgroup"]
    finished_at = seen.finished_at
    declared: dict[str, PlannedResource] = {}
    why: dict[str, str] = {}
    ignore: dict[str, tuple[str, ...]] = {}
    reasons: list[str] = []
    later: list[str] = []
    assert seen.outcome is not None and finished_at is not None
    cleanup = due_cleanup(plan, run.strategy, seen.outcome, finished_at, run.now)
    policy = cleanup.policy
    if policy is not None and policy != "DeleteNone":
        reasons.append(f"cleanup due: {cleanup.why}")
    else:
        reasons.append(f"cleanup: {cleanup.why}")
    cluster_alive = facts.cluster is not None and not facts.cluster.deleting
    held: Held | None = None
    if policy == "DeleteSelf":
        # KubeRay deletes the RayJob and garbage collection takes everything. raygang
        # keeps the job record as a tombstone: without it the next run would see no
        # object at all and start the job again (the declaration is still in the stack).
        for role in ("podgroup", "raycluster", "submitter"):
            why[role] = cleanup.why
    else:
        if facts.submitter is not None and "submitter" in resources:
            # Kept for its logs (KubeRay keeps it too). Never created again for a finished
            # job: a new submitter would run `ray job submit` once more.
            declared["submitter"] = finished_job(resources["submitter"])
            ignore["submitter"] = ("spec",)
        # A finished job's RayCluster is kept only while it exists: one deleted by hand (or
        # already being deleted) is not created again just to sit idle on the queue.
        keep_cluster = cluster_alive and policy not in ("DeleteCluster",)
        cluster_spec: RayClusterSpec | None = None
        if keep_cluster and "raycluster" in resources:
            rc = finished_cluster(resources["raycluster"])
            # An operator before v1.7 refuses suspended worker groups (its event is in the
            # facts): the same workers go by scaling each group to zero.
            refused = facts.cluster is not None and facts.cluster.suspend_refused is not None
            if policy == "DeleteWorkers":
                rc = with_manifest(rc, scale_workers_to_zero if refused else suspend_workers)
                why["raycluster"] = cleanup.why
                if refused:
                    why["raycluster"] += f"; {SCALED_TO_ZERO}"
                    reasons.append(SCALED_TO_ZERO)
            declared["raycluster"] = rc
            cluster_spec = _cluster_spec_for(plan, facts, rc)
            held = workers_held_until_gone(plan, facts) if policy == "DeleteWorkers" else None
            if held is not None:
                # Suspended or scaled to zero, worker pods still hold their nodes until
                # they are gone: the PodGroup keeps the workers' share for now.
                cluster_spec = _spec_with_workers(plan, facts, resources["raycluster"])
            elif policy == "DeleteWorkers":
                # The gang of the cluster as this run leaves it, once no worker pod holds a
                # node. KubeRay recomputes from its informer cache as the workers go.
                gone = (
                    {"replicas": 0, "min_replicas": 0, "suspend": None}
                    if refused
                    else {"suspend": True}
                )
                cluster_spec = cluster_spec.model_copy(
                    update={
                        "worker_group_specs": [
                            g.model_copy(update=gone) for g in cluster_spec.worker_group_specs
                        ]
                    }
                )
        elif facts.cluster is not None:
            why["raycluster"] = cleanup.why
        # A cluster deleted now, or already being deleted, may still have pods holding their
        # nodes' resources: its PodGroup keeps the cluster's gang until the facts show nothing
        # of it left (KubeRay's branches 5 and 6 zero it on the deletionTimestamp already).
        if cluster_spec is None:
            held = held_until_gone(plan, facts)
            if held is not None and "raycluster" in resources:
                cluster_spec = _cluster_spec_for(plan, facts, resources["raycluster"])
        if cluster_spec is not None:
            # CleanupOnCompletion branch 7: recompute from the live cluster, no submitter.
            try:
                gang = _finished_gang(plan, cluster_spec)
            except OverflowError as exc:
                raise SpecError.one(
                    item.source, "spec.rayClusterSpec.workerGroupSpecs", str(exc)
                ) from None
            declared["podgroup"] = podgroup_with(
                podgroup, gang.min_member, gang.min_resources_strings()
            )
            why["podgroup"] = "the submitter finished; the gang is recomputed from the RayCluster"
            if held is not None:
                why["podgroup"] += f"; {held.why}"
                later.append(held.later)
        else:
            # Nothing of the cluster is left: nothing is held, nothing to reserve.
            declared["podgroup"] = podgroup_with(podgroup, 0, {})
            why["podgroup"] = "the RayCluster is gone; nothing is left to reserve"
    for policy_later, due, text in cleanup.pending:
        what = later_text(policy_later, plan, facts)
        if what:
            later.append(
                f"{LATER}{what} ({text}) on the first `pulumi up` after {format_time(due)}"
                + later_after(policy_later, plan)
            )
    return Declaration(
        declared=declared,
        why=why,
        reasons=tuple(reasons),
        ignore_changes=ignore,
        later=tuple(later),
        cleanup=cleanup.policy,
        # A held PodGroup is zeroed by any `up` once the cluster is gone: from now on.
        next_change_at=min(
            [due for _, due, _ in cleanup.pending] + ([run.now] if held is not None else []),
            default=None,
        ),
    )


def _finished_gang(plan: JobPlan, cluster: RayClusterSpec) -> Gang:
    """The gang of a cluster whose submitter has finished, in the job's accounting.

    KubeRay's CleanupOnCompletion recomputes from the live RayCluster without the
    submitter (vectors S4/S5/S6 in kuberay.md §8.3). InteractiveMode has no submitter, so
    computing the job as InteractiveMode over the live spec does exactly that; in
    SidecarMode the submitter container is part of the live head spec and stays counted,
    as in KubeRay.
    """
    job = plan.item.job
    spec = job.spec.model_copy(
        update={
            "submission_mode": "InteractiveMode",
            "ray_cluster_spec": cluster,
            "submitter_pod_template": None,
        }
    )
    return compute_gang(job.model_copy(update={"spec": spec}), plan.settings.accounting)


def _cluster_spec_for(plan: JobPlan, facts: JobFacts, declared: PlannedResource) -> RayClusterSpec:
    live = facts.cluster.spec if facts.cluster is not None else None
    if live is not None:
        return live
    # The live spec could not be read: the declared one is what KubeRay would be running.
    return RayClusterSpec.model_validate(declared.manifest.get("spec") or {})


def _spec_with_workers(plan: JobPlan, facts: JobFacts, declared: PlannedResource) -> RayClusterSpec:
    """The cluster's spec with its workers, for the share DeleteWorkers keeps while they go.

    The live spec until an earlier `up` suspended or scaled its groups; from then on the
    declared one, which the workers ran under.
    """
    live = facts.cluster
    if live is not None and (live.suspended_groups or live.scaled_to_zero_groups):
        return RayClusterSpec.model_validate(declared.manifest.get("spec") or {})
    return _cluster_spec_for(plan, facts, declared)
