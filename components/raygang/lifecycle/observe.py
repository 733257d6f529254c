"""What was observed: a job's facts boiled down to the attempt, its outcome and the reasons.

KubeRay's RayJob controller reads a finish from the submitter Job's ``Complete`` or
``Failed`` condition (K8sJobMode) or from the exit of the head pod's submitter container
(SidecarMode) (``ray-operator/controllers/ray/rayjob_controller.go`` v1.7.0,
``checkSubmitterAndUpdateStatusIfNeeded``), and keeps the rest of what it knows in the
RayJob's status. raygang has no status to keep: the job record (ConfigMap ``<job>``) holds
the attempt, the submission ID and the finish, so a job whose Job or head pod is gone
(cleaned up, TTL, deleted by hand) is never started again by mistake.
"""

from __future__ import annotations

from datetime import datetime

from raygang.kuberay.jobplan import JobPlan
from raygang.lifecycle.deadlines import (
    DEADLINE_REASONS,
    Deadline,
    next_deadline,
    passed_deadline,
)
from raygang.lifecycle.facts.clock import format_time
from raygang.lifecycle.facts.model import ClusterFacts, JobFacts
from raygang.lifecycle.model import Observed

__all__ = ["fact_lines", "observe"]


def observe(plan: JobPlan, facts: JobFacts, now: datetime) -> Observed:
    """The attempt the objects belong to, whether it has started and how it ended.

    An object of an earlier attempt (an interrupted retry) is stale: its finish is not the
    current attempt's. A finish without a time starts its TTLs at ``now``.
    """
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
    if (
        record is not None
        and record.result == "failed"
        and record.reason in DEADLINE_REASONS
        and (record.attempt or 1) == attempt
    ):
        # raygang failed it on a deadline: a submitter that finishes later does not
        # overturn that, as a KubeRay job never leaves Failed.
        outcome, finished_at = "failed", record.finished_at
        fail_reason = record.reason or ""
        outcome_reason = f"the job record says attempt {attempt} failed ({fail_reason})"
    elif mode == "K8sJobMode" and sub is not None and sub_current and sub.outcome is not None:
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
    deadline_at = None
    if outcome is None:
        current = cluster if cluster is not None and cluster_current else None
        passed, deadline_at = _deadlines(plan, current, sub is not None and sub_current, now)
        if passed is not None:
            outcome, finished_at = "failed", passed.at
            fail_reason, outcome_reason = passed.reason, passed.why
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
    return Observed(
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
        deadline_at=deadline_at,
    )


def _deadlines(
    plan: JobPlan, cluster: ClusterFacts | None, submitter_exists: bool, now: datetime
) -> tuple[Deadline | None, datetime | None]:
    """KubeRay's deadlines of a job still going: the one passed, else when the next falls.

    They count from the attempt's RayCluster; KubeRay's Running is reached once the
    submitter exists (SidecarMode: the cluster is ready; InteractiveMode: ready, with a
    ``spec.jobId``).
    """
    spec = plan.item.job.spec
    start = cluster.created_at if cluster is not None else None
    ready = cluster is not None and cluster.state == "ready"
    reached_running = (
        submitter_exists
        or (plan.mode == "SidecarMode" and ready)
        or (plan.mode == "InteractiveMode" and ready and bool(spec.job_id))
    )
    active, pre_running = spec.active_deadline_seconds, spec.pre_running_deadline_seconds
    passed = passed_deadline(start, active, pre_running, reached_running, now)
    if passed is not None:
        return passed, None
    return None, next_deadline(start, active, pre_running, reached_running)


def fact_lines(facts: JobFacts) -> list[str]:
    """One line per observed object, then the notes of what could not be read."""
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
