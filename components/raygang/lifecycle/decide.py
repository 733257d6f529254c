"""Converge a job from what the cluster reports: complete, clean up, suspend, retry.

KubeRay's RayJob controller moves a job through its life by watching it. raygang has no
controller: every ``pulumi up`` (and ``raygang plan``) gathers the job's facts
(:mod:`raygang.lifecycle.facts`) and :func:`decide` declares the objects that should exist *now*.
Objects left out of the declared set are deleted by Pulumi; kept ones are updated. Running
``decide`` again on the state its own decision produces declares the same objects and
finds nothing left to do, so repeated runs are safe (Ansible's idempotence).

What follows KubeRay v1.7.0 (``rayjob_controller.go``, and the Volcano adapter's
``CleanupOnCompletion``) and where raygang does better is commented at each site. In short:

* A finished job keeps its job record and its submitter Job (for the logs). Its PodGroup is
  recomputed from the live RayCluster without the submitter, or zeroed once the cluster is
  gone, so a finished job never holds queue capacity it does not use (kuberay#4473).
* ``shutdownAfterJobFinishes`` + ``ttlSecondsAfterFinished`` and ``deletionStrategy``
  (legacy ``onSuccess``/``onFailure`` and ``deletionRules``) remove what KubeRay removes, at
  the same due times; the most impactful overdue rule wins.
* ``spec.suspend`` removes the RayCluster and the submitter and zeroes the PodGroup.
* A failed submitter with ``spec.backoffLimit`` retries left starts a new attempt: a fresh
  RayCluster and Job (replaced through ``replaceOnChanges`` on ``raygang.dev/attempt``) and
  a new submission ID ``<id>-a<N>``.
* A queue or priority change, which KubeRay silently ignores, replaces the PodGroup when the
  job is not running and is refused while it runs.

Where raygang departs from KubeRay, because the declaration in the stack outlives the objects:

* The job record (ConfigMap ``<job>``) is the job's memory: attempt, submission ID, finish
  time and result. ``DeleteSelf`` keeps it as a tombstone, and a finished job whose objects
  are gone is never started again.
* The submission ID identifies a run. While the job runs it is pinned (a spec edit updates
  the RayCluster and the gang, never submits twice); a spec edit *after* the finish is a new
  run on fresh objects, where KubeRay would ignore the edit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError

from raygang.kube.errors import Problem, SpecError, field_path
from raygang.kube.quantity import Quantity, QuantityError
from raygang.kube.tree import copy_tree
from raygang.kuberay import manifests, submitter
from raygang.kuberay.gang import Gang, compute_gang
from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.lifecycle.facts import (
    ATTEMPT_ANNOTATION,
    RECORD_ATTEMPT,
    RECORD_BASE_SUBMISSION_ID,
    RECORD_FINISHED_AT,
    RECORD_FIRST_ATTEMPT,
    RECORD_RESULT,
    RECORD_SUBMISSION_ID,
    JobFacts,
    PodGroupFacts,
    format_time,
)
from raygang.rayjob.deletion import (
    POLICIES,
    DeletionRule,
    DeletionStrategy,
    parse_deletion_strategy,
)
from raygang.rayjob.spec import RayClusterSpec

__all__ = [
    "ATTEMPT_REPLACE_PATH",
    "PHASES",
    "PODGROUP_REPLACE_PATHS",
    "POLICIES",
    "DeletionRule",
    "DeletionStrategy",
    "Lifecycle",
    "attempt_submission_id",
    "decide",
    "parse_deletion_strategy",
]


#: Every phase :func:`decide` reports.
PHASES = ("new", "running", "retrying", "finished", "failed", "suspended")

#: Pulumi property path of the attempt annotation (bracketed: the key has dots and a slash).
ATTEMPT_REPLACE_PATH = f'metadata.annotations["{ATTEMPT_ANNOTATION}"]'

#: PodGroup fields Volcano and KubeRay read only at creation: a change must replace it.
PODGROUP_REPLACE_PATHS = ("spec.queue", "spec.priorityClassName", "spec.networkTopology")


# KubeRay never retries these: the deadline would only expire again.
_NO_RETRY_REASONS = ("DeadlineExceeded",)

_LATER = "later: "


# --- the decision ----------------------------------------------------------------------
@dataclass(frozen=True)
class Lifecycle:
    """What the cluster reports about a job and what this ``pulumi up`` does about it.

    Attributes:
        phase: one of :data:`PHASES`.
        actions: what this run changes, one line each, followed by ``later: ...`` lines
            for changes a later run will make (with the time from which it will).
        reasons: the facts behind the decision.
        attempt: the attempt the declared objects belong to (1 for the first).
        submission_id: the Ray submission ID of that attempt.
        result: ``succeeded`` or ``failed`` once the job has finished for good.
        finished_at: when it finished.
        cleanup: the cleanup in force for a finished job (e.g. ``DeleteCluster``).
        next_change_at: the earliest time a later run will change something.
        removed: ``Kind/name`` of the planned objects this run does not declare.
        ignore_changes: Pulumi ``ignoreChanges`` paths per role: a finished submitter
            Job's spec must never be replaced, or it would run again.
    """

    phase: str
    actions: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    attempt: int = 1
    submission_id: str = ""
    result: str | None = None
    finished_at: datetime | None = None
    cleanup: str | None = None
    next_change_at: datetime | None = None
    removed: tuple[str, ...] = ()
    ignore_changes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def changes(self) -> tuple[str, ...]:
        """The actions this run takes, without the ``later:`` ones."""
        return tuple(a for a in self.actions if not a.startswith(_LATER))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view: ``phase``, ``actions`` and the rest in camelCase."""
        out: dict[str, Any] = {
            "phase": self.phase,
            "actions": list(self.actions),
            "reasons": list(self.reasons),
            "attempt": self.attempt,
            "submissionId": self.submission_id,
        }
        if self.result is not None:
            out["result"] = self.result
        if self.finished_at is not None:
            out["finishedAt"] = format_time(self.finished_at)
        if self.cleanup is not None:
            out["cleanup"] = self.cleanup
        if self.next_change_at is not None:
            out["nextChangeAt"] = format_time(self.next_change_at)
        if self.removed:
            out["removed"] = list(self.removed)
        return out

    def table_lines(self) -> list[str]:
        """Lines for ``raygang plan``'s table, e.g. ``lifecycle: finished (succeeded ...)``."""
        head = f"lifecycle: {self.phase}"
        detail = []
        if self.result is not None and self.finished_at is not None:
            detail.append(f"{self.result} at {format_time(self.finished_at)}")
        detail.append(f"attempt {self.attempt}")
        if self.submission_id:
            detail.append(f"submission {self.submission_id}")
        lines = [f"{head} ({', '.join(detail)})"]
        lines += [f"  why: {r}" for r in self.reasons]
        lines += [f"  - {a}" for a in self.actions] or ["  - nothing to change"]
        return lines


def attempt_submission_id(base: str, run_attempt: int, user_set: bool = False) -> str:
    """The submission ID of an attempt within a run.

    The first attempt keeps the planned ID. Later ones get ``-a<N>``: the ID the failed
    attempt used may still be known to a Ray cluster's job table, and the submitter's
    ``ray job status`` guard would then follow the failed job instead of submitting again.
    A user-set ``spec.jobId`` is kept, as KubeRay does (its retries reuse ``spec.jobId``);
    the retry runs on a fresh RayCluster, which has never seen that ID.

    Args:
        base: the planned submission ID.
        run_attempt: 1 for the run's first attempt.
        user_set: the ID is the user's ``spec.jobId``.
    """
    if run_attempt <= 1 or user_set:
        return base
    return f"{base}-a{run_attempt}"


@dataclass(frozen=True)
class _Observed:
    """The facts, boiled down to what the decision needs."""

    attempt: int
    first_attempt: int
    base_before: str | None
    running_sid: str | None
    outcome: str | None
    finished_at: datetime | None
    outcome_reason: str
    fail_reason: str
    started: bool
    stale: tuple[str, ...]
    reasons: tuple[str, ...]


def _observe(plan: JobPlan, facts: JobFacts, now: datetime) -> _Observed:
    mode = plan.mode
    record = facts.own_record
    attempt = facts.attempt
    first = record.first_attempt if record and record.first_attempt else 1
    first = min(first, attempt)
    reasons: list[str] = []
    sub = facts.submitter
    cluster = facts.cluster
    sub_current = sub is not None and (sub.attempt or 1) == attempt
    cluster_current = cluster is not None and (cluster.attempt or 1) == attempt
    stale = []
    if sub is not None and not sub_current:
        stale.append(f"Job/{sub.name} (attempt {sub.attempt or 1})")
    if cluster is not None and not cluster_current:
        stale.append(f"RayCluster/{cluster.name} (attempt {cluster.attempt or 1})")

    outcome: str | None = None
    finished_at: datetime | None = None
    outcome_reason = ""
    fail_reason = ""
    if mode == "K8sJobMode" and sub is not None and sub_current and sub.outcome is not None:
        cond = sub.finished_condition
        outcome, finished_at = sub.outcome, sub.finished_at
        fail_reason = cond.reason if cond is not None else ""
        outcome_reason = f"submitter Job {sub.name} is {cond.type if cond else '?'}" + (
            f" ({cond.reason})" if cond is not None and cond.reason else ""
        )
    elif (
        mode == "SidecarMode"
        and cluster is not None
        and cluster_current
        and cluster.head_submitter is not None
        and cluster.head_submitter.outcome is not None
    ):
        side = cluster.head_submitter
        outcome, finished_at = side.outcome, side.finished_at
        fail_reason = side.reason
        outcome_reason = (
            f"the submitter container of head pod {side.pod} exited with code {side.exit_code}"
        )
    elif record is not None and record.result is not None and (record.attempt or 1) == attempt:
        # The Job or the head pod may be gone (cleaned up, TTL, deleted by hand); the record
        # remembers the finish, so the job is never started again by mistake.
        outcome, finished_at = record.result, record.finished_at
        outcome_reason = f"the job record says attempt {attempt} {record.result}"
    if outcome is not None and finished_at is None:
        if record is not None and record.finished_at is not None:
            finished_at = record.finished_at
        else:
            # No time anywhere: start the TTL now; the record keeps this time for later runs.
            finished_at = now
            reasons.append("no finish time was reported; counting TTLs from now")
    if outcome is not None:
        outcome_reason += f" at {format_time(finished_at or now)}"

    started = bool(
        (cluster is not None and cluster_current and not cluster.deleting)
        or (sub is not None and sub_current and not sub.deleting)
    )
    running_sid: str | None = None
    if sub is not None and sub_current and sub.submission_id:
        running_sid = sub.submission_id
    elif cluster is not None and cluster_current and cluster.submission_id:
        running_sid = cluster.submission_id
    elif record is not None and (record.attempt or 1) == attempt and record.submission_id:
        running_sid = record.submission_id
    base_before = record.base_submission_id if record is not None else None

    if (
        mode == "SidecarMode"
        and cluster is not None
        and not facts.pods_observed
        and outcome is None
    ):
        reasons.append(
            "SidecarMode: the snapshot holds no Pods, so the submitter container's exit "
            "cannot be seen; add pods to the snapshot"
        )
    return _Observed(
        attempt=attempt,
        first_attempt=first,
        base_before=base_before,
        running_sid=running_sid,
        outcome=outcome,
        finished_at=finished_at,
        outcome_reason=outcome_reason,
        fail_reason=fail_reason,
        started=started,
        stale=tuple(stale),
        reasons=tuple(reasons),
    )


def _fact_lines(facts: JobFacts) -> list[str]:
    lines: list[str] = []
    if facts.submitter is not None:
        sub = facts.submitter
        cond = sub.finished_condition
        state = f"{cond.type} ({cond.reason})" if cond is not None else f"active {sub.active}"
        lines.append(f"Job {sub.name}: {state}, submission {sub.submission_id or '?'}")
    if facts.cluster is not None:
        c = facts.cluster
        state = "being deleted" if c.deleting else f"state {c.state or 'not reported yet'}"
        lines.append(f"RayCluster {c.name}: {state}")
    if facts.podgroup is not None:
        pg = facts.podgroup
        resources = ", ".join(f"{k} {v}" for k, v in sorted((pg.min_resources or {}).items()))
        lines.append(
            f"PodGroup {pg.name}: phase {pg.phase or '?'}, minMember {pg.min_member}"
            + (f", {resources}" if resources else "")
        )
    lines += list(facts.notes)
    return lines


def _replace(resource: PlannedResource, **changes: Any) -> PlannedResource:
    return dataclasses.replace(resource, **changes)


def _with_manifest(resource: PlannedResource, edit: Any) -> PlannedResource:
    manifest = copy_tree(dict(resource.manifest))
    edit(manifest)
    return _replace(resource, manifest=manifest)


def _annotations(manifest: dict[str, Any]) -> dict[str, Any]:
    meta = manifest.setdefault("metadata", {})
    if not isinstance(meta.get("annotations"), dict):
        meta["annotations"] = {}
    annotations: dict[str, Any] = meta["annotations"]
    return annotations


def _run_resources(plan: JobPlan, sid: str, attempt: int) -> dict[str, PlannedResource]:
    """The planned objects for one attempt: rebuilt when its submission ID differs."""
    item, settings = plan.item, plan.settings
    out = {r.role: r for r in plan.resources}
    if sid != plan.submission_id:
        try:
            if "raycluster" in out:
                out["raycluster"] = _replace(
                    out["raycluster"], manifest=manifests.raycluster_manifest(item, settings, sid)
                )
            if "submitter" in out:
                out["submitter"] = _replace(
                    out["submitter"],
                    manifest=manifests.submitter_job_manifest(
                        item, settings, sid, plan.dashboard_address
                    ),
                )
        except submitter.SubmitterError as exc:
            raise SpecError([Problem(item.source, "spec", str(exc))]) from None
    if attempt >= 2:
        # Attempt 1 carries no annotation, so objects created before the lifecycle existed
        # are not replaced by adopting it.
        for role in ("raycluster", "submitter"):
            if role in out:
                resource = out[role]
                out[role] = _with_manifest(
                    _replace(
                        resource,
                        replace_on_changes=tuple(
                            dict.fromkeys((*resource.replace_on_changes, ATTEMPT_REPLACE_PATH))
                        ),
                    ),
                    lambda m: _annotations(m).__setitem__(ATTEMPT_ANNOTATION, str(attempt)),
                )
    return out


def _podgroup_with(
    resource: PlannedResource, min_member: int, min_resources: Mapping[str, str]
) -> PlannedResource:
    def edit(manifest: dict[str, Any]) -> None:
        spec = manifest.setdefault("spec", {})
        spec["minMember"] = min_member
        spec["minResources"] = dict(min_resources)

    return _with_manifest(resource, edit)


def _suspend_workers(manifest: dict[str, Any]) -> None:
    for group in manifest.get("spec", {}).get("workerGroupSpecs") or []:
        if isinstance(group, dict):
            group["suspend"] = True


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


@dataclass(frozen=True)
class _Cleanup:
    policy: str | None
    why: str
    pending: tuple[tuple[str, datetime, str], ...]


def _cleanup(
    plan: JobPlan, strategy: DeletionStrategy | None, result: str, finished: datetime, now: datetime
) -> _Cleanup:
    """The cleanup due at ``now`` for a finished job, and those due later.

    Precedence is KubeRay's with the RayJobDeletionPolicy gate on (its default): a
    deletionStrategy wins over shutdownAfterJobFinishes.
    """
    spec = plan.item.job.spec
    ttl = spec.ttl_seconds_after_finished
    if strategy is not None and strategy.rules:
        matched = [r for r in strategy.rules if r.matches(result)]
        overdue = [r for r in matched if finished + timedelta(seconds=r.ttl_seconds) <= now]
        chosen: DeletionRule | None = None
        for rule in overdue:
            # Declaratively, the most impactful overdue rule is the state the rules have
            # converged to: lesser rules are already implied (DeleteCluster removes the
            # workers too), which is what KubeRay's "skip completed rules" reaches.
            if chosen is None or POLICIES[rule.policy] > POLICIES[chosen.policy]:
                chosen = rule
        level = POLICIES[chosen.policy] if chosen is not None else 0
        pending = tuple(
            sorted(
                (
                    (r.policy, finished + timedelta(seconds=r.ttl_seconds), r.describe())
                    for r in matched
                    if finished + timedelta(seconds=r.ttl_seconds) > now
                    and POLICIES[r.policy] > level
                ),
                key=lambda p: (p[1], -POLICIES[p[0]]),
            )
        )
        if chosen is None:
            why = (
                "no deletion rule is due yet"
                if matched
                else f"no deletion rule matches a {result} job"
            )
            return _Cleanup(None, why, pending)
        return _Cleanup(chosen.policy, chosen.describe(), pending)
    if strategy is not None:
        policy = strategy.on_success if result == "succeeded" else strategy.on_failure
        key = "onSuccess" if result == "succeeded" else "onFailure"
        why = f"spec.deletionStrategy.{key}: {policy} after ttlSecondsAfterFinished {ttl}s"
        if policy is None or policy == "DeleteNone":
            return _Cleanup("DeleteNone", why, ())
        due = finished + timedelta(seconds=ttl)
        if due <= now:
            return _Cleanup(policy, why, ())
        return _Cleanup(None, why, ((policy, due, why),))
    if spec.shutdown_after_job_finishes:
        why = f"shutdownAfterJobFinishes, ttlSecondsAfterFinished {ttl}s"
        due = finished + timedelta(seconds=ttl)
        if due <= now:
            # KubeRay deletes only the RayCluster here; the submitter Job stays for its logs.
            return _Cleanup("DeleteCluster", why, ())
        return _Cleanup(None, why, (("DeleteCluster", due, why),))
    return _Cleanup(
        None,
        "neither shutdownAfterJobFinishes nor a deletionStrategy is set: the RayCluster is kept",
        (),
    )


def _normal_queue(value: str | None) -> str:
    # An unset or empty queue is Volcano's "default" queue (the CRD and webhook default).
    return value or "default"


def _scheduling_changes(
    declared: PlannedResource, live: PodGroupFacts
) -> list[tuple[str, str, object, object]]:
    """(spec field, label, live value, declared value) for every field KubeRay never re-syncs."""
    spec = declared.manifest.get("spec") or {}
    changes: list[tuple[str, str, object, object]] = []
    queue = _normal_queue(spec.get("queue"))
    if queue != _normal_queue(live.queue):
        changes.append(("queue", manifests.QUEUE_LABEL, _normal_queue(live.queue), queue))
    priority = spec.get("priorityClassName") or ""
    if priority != (live.priority_class or ""):
        changes.append(
            ("priorityClassName", manifests.PRIORITY_LABEL, live.priority_class or "", priority)
        )
    topology = spec.get("networkTopology") or None
    if (dict(topology) if topology else None) != (
        dict(live.network_topology) if live.network_topology else None
    ):
        changes.append(
            ("networkTopology", manifests.TOPOLOGY_MODE_LABEL, live.network_topology, topology)
        )
    return changes


def _refuse_running_changes(
    plan: JobPlan, changes: Sequence[tuple[str, str, object, object]], pg: str
) -> None:
    problems = [
        Problem(
            plan.item.source,
            field_path(["metadata", "labels", label]),
            f"changes PodGroup {plan.namespace}/{pg} spec.{spec_field} from {old!r} to {new!r} "
            "while the job is running; Volcano reads it only when the PodGroup is created, so the "
            "PodGroup would have to be replaced under the running pods",
            "finish or suspend the job first (spec.suspend: true), then change it; "
            f"or keep {old!r}",
        )
        for spec_field, label, old, new in changes
    ]
    raise SpecError(problems)


def _same_resources(live: Mapping[str, str] | None, declared: Mapping[str, str]) -> bool:
    """quotav1.Equals: the same names, numerically equal (``1Gi`` == ``1024Mi``)."""
    live = live or {}
    if set(live) != set(declared):
        return False
    try:
        return all(Quantity.parse(live[k]) == Quantity.parse(v) for k, v in declared.items())
    except QuantityError:
        return dict(live) == dict(declared)


def _gang_text(min_member: int, resources: Mapping[str, str]) -> str:
    parts = [f"minMember {min_member}"] + [f"{k} {v}" for k, v in sorted(resources.items())]
    return ", ".join(parts) if resources else f"minMember {min_member}, minResources {{}}"


def _diff(
    plan: JobPlan,
    facts: JobFacts,
    declared: Mapping[str, PlannedResource],
    why: Mapping[str, str],
    record_data: Mapping[str, str],
    attempt: int,
) -> list[str]:
    """One line per object this run changes, comparing the declared objects to the facts."""
    out: list[str] = []
    name = plan.name
    rec = declared.get("record")
    if rec is not None:
        if facts.own_record is None:
            out.append(f"create ConfigMap/{name} (job record)")
        else:
            old = facts.own_record.values
            changed = [
                f"{_short(k)} {old.get(k, '-')} -> {v}"
                for k, v in record_data.items()
                if old.get(k) != v
            ]
            changed += [
                f"{_short(k)} {old[k]} -> -"
                for k in (RECORD_FINISHED_AT, RECORD_RESULT)
                if k in old and k not in record_data
            ]
            if changed:
                out.append(f"update job record ConfigMap/{name}: " + ", ".join(changed))
    pg = declared.get("podgroup")
    live_pg = facts.podgroup
    if pg is None and live_pg is not None:
        out.append(f"delete PodGroup/{live_pg.name} ({why.get('podgroup', 'no longer declared')})")
    elif pg is not None:
        spec = pg.manifest.get("spec") or {}
        member, resources = int(spec.get("minMember", 0)), dict(spec.get("minResources") or {})
        if live_pg is None:
            out.append(f"create PodGroup/{pg.name} ({_gang_text(member, resources)})")
        else:
            for spec_field, _, was, wanted in _scheduling_changes(pg, live_pg):
                out.append(
                    f"replace PodGroup/{pg.name}: spec.{spec_field} {was!r} -> {wanted!r} "
                    "(Volcano reads it only at creation)"
                )
            if live_pg.min_member != member or not _same_resources(
                live_pg.min_resources, resources
            ):
                out.append(
                    f"set PodGroup/{pg.name} to {_gang_text(member, resources)} (was "
                    f"{_gang_text(live_pg.min_member, live_pg.min_resources or {})})"
                    + (f": {why['podgroup']}" if "podgroup" in why else "")
                )
    rc = declared.get("raycluster")
    live_rc = facts.cluster
    if rc is None and live_rc is not None and not live_rc.deleting:
        out.append(
            f"delete RayCluster/{live_rc.name} ({why.get('raycluster', 'no longer declared')})"
        )
    elif rc is not None:
        if live_rc is None:
            out.append(f"create RayCluster/{rc.name}")
        elif (live_rc.attempt or 1) != attempt:
            out.append(f"replace RayCluster/{rc.name} for attempt {attempt} (fresh pods)")
        elif live_rc.deleting:
            out.append(f"create RayCluster/{rc.name} again once its deletion completes")
        else:
            groups = rc.manifest.get("spec", {}).get("workerGroupSpecs") or []
            if (
                groups
                and all(g.get("suspend") is True for g in groups)
                and not live_rc.workers_suspended
            ):
                out.append(
                    f"suspend every worker group of RayCluster/{rc.name} "
                    f"({why.get('raycluster', '')})"
                )
            elif live_rc.spec is not None and _parsed_cluster(rc) not in (None, live_rc.spec):
                # Compared as parsed models, so defaults the API server filled in and fields
                # raygang does not read make no difference.
                out.append(f"update RayCluster/{rc.name} (its spec changed)")
    job = declared.get("submitter")
    live_job = facts.submitter
    if job is None and live_job is not None:
        out.append(f"delete Job/{live_job.name} ({why.get('submitter', 'no longer declared')})")
    elif job is not None:
        sid = _declared_sid(job)
        if live_job is None:
            out.append(f"create Job/{job.name} (submits {sid})")
        elif (live_job.attempt or 1) != attempt or (
            sid and live_job.submission_id and live_job.submission_id != sid
        ):
            out.append(f"replace Job/{job.name} (submits {sid}, attempt {attempt})")
    return out


def _parsed_cluster(resource: PlannedResource) -> RayClusterSpec | None:
    try:
        return RayClusterSpec.model_validate(resource.manifest.get("spec") or {})
    except ValidationError:
        return None


def _declared_sid(resource: PlannedResource) -> str | None:
    template = resource.manifest.get("spec", {}).get("template", {})
    for container in template.get("spec", {}).get("containers") or []:
        for env in container.get("env") or []:
            if env.get("name") == "RAY_JOB_SUBMISSION_ID":
                return str(env.get("value"))
    return None


def _finished_job(resource: PlannedResource) -> PlannedResource:
    """The kept submitter Job of a finished job: never awaited, never replaced.

    ``pulumi.com/replaceUnready`` would make the provider replace a Failed Job on every
    run (it is never "ready"), running the submitter again; a wait for completion would
    time out on it. Both go, and waiting only for the Job to exist makes the metadata update
    instant (while its deletion, later, is still awaited).
    """

    def edit(manifest: dict[str, Any]) -> None:
        annotations = _annotations(manifest)
        annotations.pop(manifests.REPLACE_UNREADY, None)
        annotations.pop(manifests.TIMEOUT, None)
        annotations.pop(manifests.SKIP_AWAIT, None)
        annotations[manifests.WAIT_FOR] = manifests.WAIT_FOR_EXISTS

    return _with_manifest(resource, edit)


def _finished_cluster(resource: PlannedResource) -> PlannedResource:
    """The kept RayCluster of a finished job: its readiness no longer matters.

    Without this, any later update of it (DeleteWorkers, a label) would block ``pulumi up``
    until ``status.state`` is ``ready`` again, which a cluster whose head has gone after the
    job ended never reaches.
    """

    def edit(manifest: dict[str, Any]) -> None:
        annotations = _annotations(manifest)
        annotations.pop(manifests.WAIT_FOR, None)
        annotations.pop(manifests.TIMEOUT, None)
        annotations[manifests.SKIP_AWAIT] = "true"

    return _with_manifest(resource, edit)


def _resolve_dep(
    ref: str,
    present: set[str],
    deps_of: Mapping[str, tuple[str, ...]],
    seen: frozenset[str],
) -> tuple[str, ...]:
    # Module-level, not a closure: a recursive closure is a reference cycle per call,
    # left for a garbage collection that planning does not run (raygang.batch).
    if ref in present:
        return (ref,)
    if ref in seen:
        return ()
    return tuple(
        d for dep in deps_of.get(ref, ()) for d in _resolve_dep(dep, present, deps_of, seen | {ref})
    )


def _resolve_deps(
    planned: Sequence[PlannedResource], kept: list[PlannedResource]
) -> list[PlannedResource]:
    """Point dependencies on removed objects at what those depended on."""
    present = {r.ref for r in kept}
    deps_of = {r.ref: r.depends_on for r in planned}
    out = []
    for resource in kept:
        deps = tuple(
            dict.fromkeys(
                d
                for dep in resource.depends_on
                for d in _resolve_dep(dep, present, deps_of, frozenset())
            )
        )
        out.append(resource if deps == resource.depends_on else _replace(resource, depends_on=deps))
    return out


def decide(plan: JobPlan, facts: JobFacts | None, now: datetime) -> JobPlan:
    """Declare the objects that should exist now, given what the cluster reports.

    Args:
        plan: the job's plan (:func:`raygang.plan.plan_job`): everything a new job needs.
        facts: the job's observed objects (:func:`raygang.lifecycle.facts.gather_facts`); None
            when no facts were gathered, which plans the job as new.
        now: the current time (timezone-aware), for TTLs; ``--now`` pins it in tests and
            reviews.

    Returns:
        A new plan whose ``resources`` are the objects to declare (in creation order,
        dependencies pointing only at declared objects), whose ``submission_id`` is the
        current attempt's, and whose ``lifecycle`` is a :class:`Lifecycle`.

    Raises:
        ValueError: the job uses ``clusterSelector``, ``now`` is naive, or the facts are
            another job's.
        SpecError: a malformed ``deletionStrategy``, or a queue / priority / topology change
            while the job is running.
    """
    item = plan.item
    job = item.job
    if job.spec.cluster_selector or job.spec.ray_cluster_spec is None:
        raise ValueError(
            f"gang scheduling does not support RayJob {job.namespace}/{job.name} referencing an "
            "existing RayCluster (spec.clusterSelector); give it a spec.rayClusterSpec"
        )
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware, e.g. parse_now('2026-11-29T10:15:00Z')")
    if facts is not None and (facts.namespace, facts.name) != (plan.namespace, plan.name):
        raise ValueError(
            f"facts of {facts.namespace}/{facts.name} cannot decide job "
            f"{plan.namespace}/{plan.name}"
        )
    strategy = parse_deletion_strategy(item)
    base = plan.submission_id
    user_id = bool(job.spec.job_id)
    planned = {r.role: r for r in plan.resources}
    pg_name = plan.podgroup_name

    if facts is None:
        # Without facts nothing can be compared: the job is planned as new. Integrations
        # should gather facts on every run once a job may have started (see the report).
        as_new = _run_resources(plan, base, 1)
        as_new["record"] = _with_record(
            as_new["record"], _record_data(base, base, 1, 1, None, None)
        )
        as_new["podgroup"] = _replace(as_new["podgroup"], replace_on_changes=PODGROUP_REPLACE_PATHS)
        return _finish(
            plan,
            as_new,
            base,
            Lifecycle(
                phase="new",
                reasons=("no cluster facts were gathered: planned as a new job",),
                attempt=1,
                submission_id=base,
            ),
        )

    seen = _observe(plan, facts, now)
    reasons = _fact_lines(facts) + list(seen.reasons)
    attempt, first = seen.attempt, seen.first_attempt
    spec_changed = seen.base_before is not None and seen.base_before != base
    backoff = job.spec.backoff_limit
    run_attempt = attempt - first + 1
    phase: str
    sid: str
    if seen.outcome is not None and spec_changed:
        # The spec that ran is not the spec declared now: a new run, on fresh objects (the
        # attempt counter moves on so the RayCluster and Job are replaced; the new run's
        # retries count from here). KubeRay ignores spec edits of a finished RayJob; with
        # raygang the declaration is the job, so a changed declaration runs again.
        phase, attempt, first = "new", attempt + 1, attempt + 1
        sid = attempt_submission_id(base, 1, user_id)
        reasons.append(
            f"the spec changed after submission {seen.running_sid or seen.base_before} "
            f"{seen.outcome}: starting a new run as {sid}"
        )
    elif (
        seen.outcome == "failed"
        and run_attempt <= backoff
        and seen.fail_reason not in _NO_RETRY_REASONS
        and plan.mode != "InteractiveMode"
    ):
        # KubeRay: retry while status.failed < backoffLimit + 1, with fresh cluster and IDs.
        attempt += 1
        sid = attempt_submission_id(base, attempt - first + 1, user_id)
        phase = "retrying"
        reasons.append(
            f"{seen.outcome_reason}; attempt {run_attempt} of {backoff + 1} "
            f"(spec.backoffLimit {backoff}): starting attempt {attempt - first + 1} as {sid}"
        )
    elif seen.outcome is not None:
        phase = "finished" if seen.outcome == "succeeded" else "failed"
        sid = seen.running_sid or attempt_submission_id(base, run_attempt, user_id)
        if seen.outcome == "failed":
            reasons.append(
                f"{seen.outcome_reason}; no retries left (attempt {run_attempt}, "
                f"spec.backoffLimit {backoff})"
            )
        else:
            reasons.append(seen.outcome_reason)
    elif seen.started:
        # While it runs, the submission ID is pinned to the one running: a spec edit updates
        # the RayCluster and the gang, and never submits the job a second time.
        phase = "running"
        sid = seen.running_sid or attempt_submission_id(base, run_attempt, user_id)
        if spec_changed:
            reasons.append(
                f"the spec changed while submission {sid} runs: the RayCluster and the gang "
                "follow it, the running Ray job is not submitted again"
            )
    elif seen.stale:
        phase = "retrying"
        sid = attempt_submission_id(base, run_attempt, user_id)
        reasons.append(
            f"attempt {attempt} is not in place yet: {', '.join(seen.stale)} "
            "belong to an earlier one"
        )
    else:
        phase = "new"
        sid = attempt_submission_id(base, run_attempt, user_id)

    if job.spec.suspend:
        if phase in ("finished", "failed"):
            # KubeRay suspends only Initializing or Running jobs.
            reasons.append("spec.suspend is ignored: the job has already finished")
        else:
            phase = "suspended"

    resources = _run_resources(plan, sid, attempt)
    declared: dict[str, PlannedResource] = {}
    if "queue" in planned:
        declared["queue"] = planned["queue"]
    why: dict[str, str] = {}
    finished_at = seen.finished_at if phase in ("finished", "failed") else None
    result = seen.outcome if phase in ("finished", "failed") else None
    record_data = _record_data(
        sid, base, attempt, first, format_time(finished_at) if finished_at else None, result
    )
    declared["record"] = _with_record(resources["record"], record_data, facts)
    cleanup: _Cleanup | None = None
    ignore: dict[str, tuple[str, ...]] = {}
    later: list[str] = []
    podgroup = resources["podgroup"]

    if phase in ("new", "running", "retrying"):
        declared["podgroup"] = podgroup
        if "raycluster" in resources:
            declared["raycluster"] = resources["raycluster"]
        if "submitter" in resources:
            declared["submitter"] = resources["submitter"]
    elif phase == "suspended":
        # KubeRay's Suspending: the cluster and the submitter go, the PodGroup is zeroed
        # (kuberay#4939) so the queue's capacity is released while the job waits.
        declared["podgroup"] = _podgroup_with(podgroup, 0, {})
        why.update(
            raycluster="spec.suspend: true",
            submitter="spec.suspend: true",
            podgroup="spec.suspend: true releases the queue capacity",
        )
    else:
        assert seen.outcome is not None and finished_at is not None
        cleanup = _cleanup(plan, strategy, seen.outcome, finished_at, now)
        policy = cleanup.policy
        if policy is not None and policy != "DeleteNone":
            reasons.append(f"cleanup due: {cleanup.why}")
        else:
            reasons.append(f"cleanup: {cleanup.why}")
        cluster_alive = facts.cluster is not None and not facts.cluster.deleting
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
                declared["submitter"] = _finished_job(resources["submitter"])
                ignore["submitter"] = ("spec",)
            # A finished job's RayCluster is kept only while it exists: one deleted by hand (or
            # already being deleted) is not created again just to sit idle on the queue.
            keep_cluster = cluster_alive and policy not in ("DeleteCluster",)
            cluster_spec: RayClusterSpec | None = None
            if keep_cluster and "raycluster" in resources:
                rc = _finished_cluster(resources["raycluster"])
                if policy == "DeleteWorkers":
                    rc = _with_manifest(rc, _suspend_workers)
                    why["raycluster"] = cleanup.why
                declared["raycluster"] = rc
                cluster_spec = _cluster_spec_for(plan, facts, rc)
                if policy == "DeleteWorkers":
                    # The gang of the cluster as this run leaves it. KubeRay recomputes from
                    # its informer cache and catches up one reconcile later; one `up` here
                    # converges at once.
                    cluster_spec = cluster_spec.model_copy(
                        update={
                            "worker_group_specs": [
                                g.model_copy(update={"suspend": True})
                                for g in cluster_spec.worker_group_specs
                            ]
                        }
                    )
            elif facts.cluster is not None:
                why["raycluster"] = cleanup.why
            if cluster_spec is not None:
                # CleanupOnCompletion branch 7: recompute from the live cluster, no submitter.
                try:
                    gang = _finished_gang(plan, cluster_spec)
                except OverflowError as exc:
                    raise SpecError.one(
                        item.source, "spec.rayClusterSpec.workerGroupSpecs", str(exc)
                    ) from None
                declared["podgroup"] = _podgroup_with(
                    podgroup, gang.min_member, gang.min_resources_strings()
                )
                why["podgroup"] = (
                    "the submitter finished; the gang is recomputed from the RayCluster"
                )
            else:
                # Branches 5 and 6: no cluster (or one being deleted) holds nothing.
                declared["podgroup"] = _podgroup_with(podgroup, 0, {})
                why["podgroup"] = "the RayCluster is gone; nothing is left to reserve"
        for policy_later, due, text in cleanup.pending:
            what = _later_text(policy_later, plan, facts)
            if what:
                later.append(
                    f"{_LATER}{what} ({text}) on the first `pulumi up` after {format_time(due)}"
                )

    if "podgroup" in declared:
        # Declared in every phase: while the job runs a change is refused below, before
        # Pulumi sees it, so the option only ever acts on a job that is not running; keeping
        # it constant keeps the declared objects identical across phase changes.
        declared["podgroup"] = _replace(
            declared["podgroup"], replace_on_changes=PODGROUP_REPLACE_PATHS
        )
    if phase == "running" and facts.podgroup is not None:
        changes = _scheduling_changes(declared["podgroup"], facts.podgroup)
        if changes:
            _refuse_running_changes(plan, changes, pg_name)

    actions = _diff(plan, facts, declared, why, record_data, attempt) + later
    next_change = min((due for _, due, _ in cleanup.pending), default=None) if cleanup else None
    lifecycle = Lifecycle(
        phase=phase,
        actions=tuple(actions),
        reasons=tuple(reasons),
        attempt=attempt,
        submission_id=sid,
        result=result,
        finished_at=finished_at,
        cleanup=cleanup.policy if cleanup else None,
        next_change_at=next_change,
        ignore_changes=ignore,
    )
    return _finish(plan, declared, sid, lifecycle)


def _later_text(policy: str, plan: JobPlan, facts: JobFacts) -> str:
    alive = facts.cluster is not None and not facts.cluster.deleting
    if policy == "DeleteWorkers":
        return (
            f"suspend every worker group of RayCluster/{plan.name} "
            "and shrink the PodGroup to the head"
            if alive
            else ""
        )
    if policy == "DeleteCluster":
        return (
            f"delete RayCluster/{plan.name} and zero PodGroup/{plan.podgroup_name}" if alive else ""
        )
    if policy == "DeleteSelf":
        return f"delete every object of {plan.name} but its job record"
    return ""


def _short(key: str) -> str:
    """A record annotation's name without the ``raygang.dev/`` prefix, for action lines."""
    return key.rpartition("/")[2]


def _record_data(
    sid: str, base: str, attempt: int, first: int, finished_at: str | None, result: str | None
) -> dict[str, str]:
    data = {
        RECORD_SUBMISSION_ID: sid,
        RECORD_BASE_SUBMISSION_ID: base,
        RECORD_ATTEMPT: str(attempt),
        RECORD_FIRST_ATTEMPT: str(first),
    }
    if finished_at is not None and result is not None:
        data[RECORD_FINISHED_AT] = finished_at
        data[RECORD_RESULT] = result
    return data


def _with_record(
    resource: PlannedResource, values: Mapping[str, str], facts: JobFacts | None = None
) -> PlannedResource:
    """The record with this run's lifecycle values in its annotations.

    A record written by an earlier raygang kept its values in ``data``, and the
    pulumi-kubernetes provider replaces a ConfigMap whose ``data`` changes: a new UID, and
    the garbage collector deletes what the old one owned (the PodGroup, the RayCluster, the
    Job). So such a record keeps its old ``data`` as observed, unchanged from then on, and
    the upgrade is an in-place update; its values are read from the annotations first.
    """
    legacy = facts.own_record.legacy_data if facts and facts.own_record else {}

    def edit(manifest: dict[str, Any]) -> None:
        _annotations(manifest).update(values)
        if legacy:
            manifest["data"] = dict(legacy)

    return _with_manifest(resource, edit)


def _finish(
    plan: JobPlan, declared: Mapping[str, PlannedResource], sid: str, lifecycle: Lifecycle
) -> JobPlan:
    kept = [declared[r.role] for r in plan.resources if r.role in declared]
    kept = _resolve_deps(plan.resources, kept)
    refs = {r.ref for r in kept}
    removed = tuple(r.ref for r in plan.resources if r.ref not in refs)
    # What the PodGroup holds now is read from its manifest (JobPlan.declared_min_member).
    lifecycle = dataclasses.replace(lifecycle, removed=removed)
    return dataclasses.replace(plan, resources=tuple(kept), submission_id=sid, lifecycle=lifecycle)
