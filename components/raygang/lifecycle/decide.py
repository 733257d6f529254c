"""Converge a job from what the cluster reports: the dispatcher from facts to declaration.

KubeRay's RayJob controller moves a job through its life by watching it
(``ray-operator/controllers/ray/rayjob_controller.go`` v1.7.0, ``Reconcile``: a ``switch``
over the ``JobDeploymentStatus``). raygang has no controller: every ``pulumi up`` (and
``raygang plan``) gathers the job's facts (:mod:`raygang.lifecycle.facts.gather`) and
:func:`decide` declares the objects that should exist *now*. Objects left out of the
declared set are deleted by Pulumi; kept ones are updated. Running ``decide`` again on the
state its own decision produces declares the same objects and finds nothing left to do,
so repeated runs are safe (Ansible's idempotence).

In order: what was observed (:mod:`raygang.lifecycle.observe`), the phase it puts the job
in (:mod:`raygang.lifecycle.transition`), the attempt's objects
(:mod:`raygang.lifecycle.declared`), the phase's function (:mod:`raygang.lifecycle.phases`)
and the action lines (:mod:`raygang.lifecycle.actions`). The job record (ConfigMap
``<job>``) is declared in every phase: it is the job's memory (attempt, submission ID,
finish time and result), where KubeRay keeps the RayJob's status.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.kuberay.manifests import (
    RECORD_ATTEMPT,
    RECORD_FINISHED_AT,
    RECORD_RESULT,
    RECORD_SUBMISSION_ID,
)
from raygang.lifecycle.actions import diff
from raygang.lifecycle.deadlines import DEADLINE_REASONS
from raygang.lifecycle.declared import (
    PODGROUP_REPLACE_PATHS,
    record_data,
    run_resources,
    with_code,
    with_fields,
    with_record,
)
from raygang.lifecycle.facts.clock import format_time
from raygang.lifecycle.facts.model import JobFacts
from raygang.lifecycle.history import RECORD_HISTORY, history_json, next_history, read_history
from raygang.lifecycle.model import Declaration, Lifecycle, Phase, Run
from raygang.lifecycle.observe import fact_lines, observe
from raygang.lifecycle.phases.finished import declare_finished
from raygang.lifecycle.phases.new import declare_new
from raygang.lifecycle.phases.retrying import declare_retrying
from raygang.lifecycle.phases.running import declare_running
from raygang.lifecycle.phases.suspended import declare_suspended
from raygang.lifecycle.transition import transition
from raygang.rayjob.deletion import DeletionStrategy

__all__ = ["decide"]

# The phase's function. KubeRay handles Complete and Failed in one case, and so does
# raygang: a job failed for good is cleaned up as a finished one.
_BY_PHASE: Mapping[Phase, Callable[[Run], Declaration]] = {
    "new": declare_new,
    "running": declare_running,
    "retrying": declare_retrying,
    "suspended": declare_suspended,
    "finished": declare_finished,
    "failed": declare_finished,
}


def decide(plan: JobPlan, facts: JobFacts | None, now: datetime) -> Lifecycle:
    """Declare the objects that should exist now, given what the cluster reports.

    Args:
        plan: the job's plan (:func:`raygang.plan.plan_job`): everything a new job needs.
        facts: the job's observed objects
            (:func:`~raygang.lifecycle.facts.gather.gather_facts`); None when no facts were
            gathered, which plans the job as new.
        now: the current time (timezone-aware), for TTLs; ``--now`` pins it in tests and
            reviews.

    Returns:
        The decision: the phase, the action lines, the current attempt's ``submission_id``
        and, as ``resources``, the objects to declare (in creation order, dependencies
        pointing only at declared objects). ``plan`` is left as planned.

    Raises:
        ValueError: the job uses ``clusterSelector``, ``now`` is naive, or the facts are
            another job's.
        SpecError: a queue / priority / topology change while the job is running.
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
    strategy = item.job.deletion
    base = plan.submission_id
    planned = {r.role: r for r in plan.resources}

    if facts is None:
        # Without facts nothing can be compared: the job is planned as new. Integrations
        # should gather facts on every run once a job may have started (see the report).
        as_new = run_resources(plan, base, 1)
        values = record_data(base, base, 1, 1, None, None)
        history = _history(plan, None, values, now)
        as_new["record"] = with_record(as_new["record"], values)
        as_new["podgroup"] = with_fields(
            as_new["podgroup"], replace_on_changes=PODGROUP_REPLACE_PATHS
        )
        if job.spec.suspend:
            # KubeRay never creates a RayCluster for a RayJob applied suspended (Kueue relies
            # on it): its New case goes straight to Suspended. The suspended phase's objects,
            # then, whatever the facts: the record and the PodGroup, zeroed.
            return _suspended_without_facts(plan, as_new, base, strategy, now)
        kept, removed = _declared(plan, as_new)
        return Lifecycle(
            phase="new",
            reasons=("no cluster facts were gathered: planned as a new job",),
            attempt=1,
            submission_id=base,
            removed=removed,
            resources=kept,
            history=history,
        )

    seen = observe(plan, facts, now)
    step = transition(plan, seen)
    phase, attempt, sid = step.phase, step.attempt, step.submission_id
    reasons = fact_lines(facts) + list(seen.reasons) + list(step.reasons)
    resources = run_resources(plan, sid, attempt)
    declared: dict[str, PlannedResource] = {}
    if "queue" in planned:
        declared["queue"] = planned["queue"]
    finished_at = seen.finished_at if phase in ("finished", "failed") else None
    result = seen.outcome if phase in ("finished", "failed") else None
    record = record_data(
        sid,
        base,
        attempt,
        step.first_attempt,
        format_time(finished_at) if finished_at else None,
        result,
        seen.fail_reason if result == "failed" and seen.fail_reason in DEADLINE_REASONS else None,
    )
    history = _history(plan, facts, record, now)
    declared["record"] = with_record(resources["record"], record, facts)
    declaration = _BY_PHASE[phase](Run(plan, facts, now, seen, strategy, resources))
    declared.update(declaration.declared)
    declared = with_code(declared, resources)
    if "podgroup" in declared:
        # Declared in every phase: while the job runs a change is refused (the running
        # phase's function), before Pulumi sees it, so the option only ever acts on a job
        # that is not running; keeping it constant keeps the declared objects identical
        # across phase changes.
        declared["podgroup"] = with_fields(
            declared["podgroup"], replace_on_changes=PODGROUP_REPLACE_PATHS
        )
    actions = diff(plan, facts, declared, declaration.why, record, attempt)
    kept, removed = _declared(plan, declared)
    return Lifecycle(
        phase=phase,
        actions=(*actions, *declaration.later),
        reasons=(*reasons, *declaration.reasons),
        attempt=attempt,
        submission_id=sid,
        result=result,
        finished_at=finished_at,
        cleanup=declaration.cleanup,
        next_change_at=_earliest(declaration.next_change_at, seen.deadline_at),
        ignore_changes=dict(declaration.ignore_changes),
        removed=removed,
        resources=kept,
        history=history,
    )


def _history(
    plan: JobPlan, facts: JobFacts | None, record: dict[str, str], now: datetime
) -> tuple[dict[str, object], ...]:
    """This run's history of submissions, added to the record's values (issue 28).

    Only a job with a code package or a ``raygang.dev/resubmit`` counter keeps one, so the
    records of other jobs stay as they were.
    """
    if plan.code is None and not plan.resubmit:
        return ()
    own = facts.own_record if facts is not None else None
    entries = next_history(
        read_history(own.values.get(RECORD_HISTORY) if own is not None else None),
        attempt=int(record[RECORD_ATTEMPT]),
        submission_id=record[RECORD_SUBMISSION_ID],
        code=plan.code.sha256 if plan.code is not None else None,
        now=format_time(now),
        finished_at=record.get(RECORD_FINISHED_AT),
        result=record.get(RECORD_RESULT),
    )
    record[RECORD_HISTORY] = history_json(entries)
    return entries


def _earliest(*times: datetime | None) -> datetime | None:
    return min((t for t in times if t is not None), default=None)


def _suspended_without_facts(
    plan: JobPlan,
    as_new: Mapping[str, PlannedResource],
    base: str,
    strategy: DeletionStrategy | None,
    now: datetime,
) -> Lifecycle:
    """A job applied with ``spec.suspend: true`` and no facts: nothing of it runs yet."""
    # The suspended phase's own rule decides what is declared, on facts of nothing.
    facts = JobFacts(plan.namespace, plan.name, source="none")
    run = Run(plan, facts, now, observe(plan, facts, now), strategy, as_new)
    declaration = declare_suspended(run)
    declared = {role: as_new[role] for role in ("queue", "record") if role in as_new}
    declared["podgroup"] = with_fields(
        declaration.declared["podgroup"], replace_on_changes=PODGROUP_REPLACE_PATHS
    )
    kept, removed = _declared(plan, declared)
    return Lifecycle(
        phase="suspended",
        reasons=(
            "no cluster facts were gathered: planned as a new job",
            "spec.suspend: true: nothing is started until it is set back to false",
        ),
        attempt=1,
        submission_id=base,
        removed=removed,
        resources=kept,
    )


def _declared(
    plan: JobPlan, declared: Mapping[str, PlannedResource]
) -> tuple[tuple[PlannedResource, ...], tuple[str, ...]]:
    """The declared objects in the plan's creation order, and the planned ones left out."""
    kept = _resolve_deps(
        plan.resources, [declared[r.role] for r in plan.resources if r.role in declared]
    )
    refs = {r.ref for r in kept}
    return tuple(kept), tuple(r.ref for r in plan.resources if r.ref not in refs)


def _resolve_dep(
    ref: str,
    present: set[str],
    deps_of: Mapping[str, tuple[str, ...]],
    seen: frozenset[str],
) -> tuple[str, ...]:
    # Module-level, not a closure: a recursive closure refers to itself through its cell,
    # a reference cycle per call that only the cyclic garbage collector frees.
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
        out.append(
            resource if deps == resource.depends_on else with_fields(resource, depends_on=deps)
        )
    return out
