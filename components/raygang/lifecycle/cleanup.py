"""The cleanup of a finished job: which deletion is due now, and which ones later.

KubeRay's RayJob controller cleans up a Complete or Failed job in one of three ways
(``ray-operator/controllers/ray/rayjob_controller.go`` v1.7.0): ``handleDeletionRules``
(``spec.deletionStrategy.deletionRules``, each with its own TTL, the most impactful
overdue rule first, as ``selectMostImpactfulRule``), ``handleLegacyDeletionPolicy``
(``onSuccess``/``onFailure`` after ``ttlSecondsAfterFinished``) and
``handleShutdownAfterJobFinishes`` (the RayCluster after ``ttlSecondsAfterFinished``).
:func:`due_cleanup` reaches the same state at the same due times, from the finish time
and the clock alone; the rules themselves are parsed by :mod:`raygang.rayjob.deletion`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from raygang.kuberay.jobplan import JobPlan
from raygang.lifecycle.facts.model import JobFacts
from raygang.rayjob.deletion import POLICIES, DeletionRule, DeletionStrategy

__all__ = ["Cleanup", "due_cleanup", "later_after", "later_text"]


@dataclass(frozen=True)
class Cleanup:
    """The cleanup in force for a finished job.

    Attributes:
        policy: the deletion policy due now (``DeleteCluster`` ...); None when none is.
        why: the rule or setting behind it, for the reasons and the action lines.
        pending: (policy, due time, why) of each deletion a later run will make, soonest
            first.
    """

    policy: str | None
    why: str
    pending: tuple[tuple[str, datetime, str], ...]


def due_cleanup(
    plan: JobPlan, strategy: DeletionStrategy | None, result: str, finished: datetime, now: datetime
) -> Cleanup:
    """The cleanup due at ``now`` for a finished job, and those due later.

    Precedence is KubeRay's with the RayJobDeletionPolicy gate on (the default from
    v1.7.0; off in v1.5.0): a deletionStrategy wins over shutdownAfterJobFinishes.
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
            return Cleanup(None, why, pending)
        return Cleanup(chosen.policy, chosen.describe(), pending)
    if strategy is not None:
        policy = strategy.on_success if result == "succeeded" else strategy.on_failure
        key = "onSuccess" if result == "succeeded" else "onFailure"
        why = f"spec.deletionStrategy.{key}: {policy} after ttlSecondsAfterFinished {ttl}s"
        if policy is None or policy == "DeleteNone":
            return Cleanup("DeleteNone", why, ())
        due = finished + timedelta(seconds=ttl)
        if due <= now:
            return Cleanup(policy, why, ())
        return Cleanup(None, why, ((policy, due, why),))
    if spec.shutdown_after_job_finishes:
        why = f"shutdownAfterJobFinishes, ttlSecondsAfterFinished {ttl}s"
        due = finished + timedelta(seconds=ttl)
        if due <= now:
            # KubeRay deletes only the RayCluster here; the submitter Job stays for its logs.
            return Cleanup("DeleteCluster", why, ())
        return Cleanup(None, why, (("DeleteCluster", due, why),))
    return Cleanup(
        None,
        "neither shutdownAfterJobFinishes nor a deletionStrategy is set: the RayCluster is kept",
        (),
    )


def later_text(policy: str, plan: JobPlan, facts: JobFacts) -> str:
    """What a later run's deletion will do to what is left; empty when nothing is."""
    alive = facts.cluster is not None and not facts.cluster.deleting
    if policy == "DeleteWorkers":
        return (
            f"suspend every worker group of RayCluster/{plan.name} "
            "and shrink the PodGroup to the head"
            if alive
            else ""
        )
    if policy == "DeleteCluster":
        return f"delete RayCluster/{plan.name}" if alive else ""
    if policy == "DeleteSelf":
        return f"delete every object of {plan.name} but its job record"
    return ""


def later_after(policy: str, plan: JobPlan) -> str:
    """What the run after that deletion does: a deleted cluster's PodGroup is zeroed only once
    the cluster and its pods are gone (:mod:`raygang.lifecycle.release`); empty for others."""
    if policy == "DeleteCluster":
        return (
            f"; then zero PodGroup/{plan.podgroup_name} on the next `pulumi up` once "
            f"RayCluster/{plan.name} and its pods are gone"
        )
    return ""
