"""The lifecycle's data: the phases, what a run observed, and the decision it reports.

raygang's phases stand for KubeRay's ``JobDeploymentStatus`` values
(``ray-operator/apis/ray/v1/rayjob_types.go`` v1.7.0; the controller's loop over them is
``ray-operator/controllers/ray/rayjob_controller.go``): ``new`` for New, ``running`` for
Initializing and Running (an object of the attempt exists), ``retrying`` for Retrying,
``finished`` and ``failed`` for Complete and Failed, ``suspended`` for Suspending and
Suspended; ValidationFailed has none, as raygang refuses an invalid RayJob when it plans
it. Each is derived from the facts on every run (:mod:`raygang.lifecycle.transition`),
where KubeRay keeps it in the RayJob's status. A phase function
(:mod:`raygang.lifecycle.phases`) is given a :class:`Run` and returns a
:class:`Declaration`; :func:`raygang.lifecycle.decide.decide` reports the outcome as a
:class:`Lifecycle`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.lifecycle.facts.clock import format_time
from raygang.lifecycle.facts.model import JobFacts
from raygang.rayjob.deletion import DeletionStrategy

__all__ = ["LATER", "PHASES", "Declaration", "Lifecycle", "Observed", "Phase", "Run"]

#: A phase :func:`~raygang.lifecycle.decide.decide` reports.
Phase = Literal["new", "running", "retrying", "finished", "failed", "suspended"]

#: Every phase :func:`~raygang.lifecycle.decide.decide` reports.
PHASES: tuple[Phase, ...] = ("new", "running", "retrying", "finished", "failed", "suspended")

#: The prefix of an action a later run takes.
LATER = "later: "


@dataclass(frozen=True, slots=True)
class Lifecycle:
    """What the cluster reports about a job and what this ``pulumi up`` does about it.

    The decision of one run, made once by :func:`~raygang.lifecycle.decide.decide` from the
    job's plan and its facts: the plan itself stays as planned (the objects a new job
    needs), and ``resources`` are the objects this run declares.

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
        resources: the objects this run declares, in creation order, edited for the
            attempt and the phase; their dependencies point only at declared objects.
        history: the record's submissions, oldest first (:mod:`raygang.lifecycle.history`;
            only for a job with a code package or a resubmit counter).
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
    resources: tuple[PlannedResource, ...] = ()
    history: tuple[Mapping[str, Any], ...] = ()

    def resource(self, role: str) -> PlannedResource | None:
        """The declared object with that role, if this run declares one."""
        return next((r for r in self.resources if r.role == role), None)

    @property
    def changes(self) -> tuple[str, ...]:
        """The actions this run takes, without the ``later:`` ones."""
        return tuple(a for a in self.actions if not a.startswith(LATER))

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
        if self.history:
            out["history"] = [dict(e) for e in self.history]
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
        lines += [f"  history: {_history_line(e)}" for e in self.history]
        return lines


def _history_line(entry: Mapping[str, Any]) -> str:
    """``attempt 1  <id>  code <hash12>  submitted <t>  succeeded at <t>``."""
    parts = [f"attempt {entry.get('attempt')}", str(entry.get("submissionId"))]
    if entry.get("codePackage"):
        parts.append(f"code {str(entry['codePackage'])[:12]}")
    parts.append(f"submitted {entry.get('submittedAt')}")
    if entry.get("result"):
        parts.append(f"{entry['result']} at {entry.get('finishedAt')}")
    return "  ".join(parts)


@dataclass(frozen=True, slots=True)
class Observed:
    """The facts, boiled down to what the decision needs (:mod:`raygang.lifecycle.observe`).

    Attributes:
        attempt: the latest attempt any object reports.
        first_attempt: the first attempt of the current run (retries count from it).
        base_before: the base submission ID the last run applied; None without a record.
        running_sid: the submission ID of the current attempt, as its objects report it.
        outcome: ``succeeded`` or ``failed`` once the current attempt has finished.
        finished_at: when it finished.
        outcome_reason: how the outcome was seen, for the reasons.
        fail_reason: the reason of the failure (a Job condition's, or the container's).
        started: an object of the current attempt exists and is not being deleted.
        stale: ``Kind/name (attempt N)`` of objects left from an earlier attempt.
        reasons: what was noticed on the way, for the reasons.
        deadline_at: when a deadline of the job, still going, will pass
            (:mod:`raygang.lifecycle.deadlines`); None when none can.
    """

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
    deadline_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Run:
    """What a phase function is given: the job, its facts and the objects of its attempt.

    Attributes:
        plan: the job's plan.
        facts: what the cluster reports.
        now: the current time.
        seen: the facts boiled down.
        strategy: the parsed ``spec.deletionStrategy``; None when unset.
        resources: the planned objects of the attempt this run declares, by role
            (:func:`raygang.lifecycle.declared.run_resources`).
    """

    plan: JobPlan
    facts: JobFacts
    now: datetime
    seen: Observed
    strategy: DeletionStrategy | None
    resources: Mapping[str, PlannedResource]


@dataclass(frozen=True, slots=True)
class Declaration:
    """What a phase function returns: the objects it declares and why.

    The queue and the job record are declared in every phase, by the dispatcher.

    Attributes:
        declared: the PodGroup, RayCluster and submitter Job to declare, by role; a role
            left out is deleted.
        why: per role, why an object is deleted or changed, for the action lines.
        reasons: facts behind the decision, after those of the phase choice.
        ignore_changes: Pulumi ``ignoreChanges`` paths per role.
        later: ``later: ...`` lines for changes a later run will make.
        cleanup: the cleanup in force (e.g. ``DeleteCluster``).
        next_change_at: the earliest time a later run will change something.
    """

    declared: Mapping[str, PlannedResource]
    why: Mapping[str, str] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    ignore_changes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    later: tuple[str, ...] = ()
    cleanup: str | None = None
    next_change_at: datetime | None = None
