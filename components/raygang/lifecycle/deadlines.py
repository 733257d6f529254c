"""``activeDeadlineSeconds`` and ``preRunningDeadlineSeconds``, enforced from the facts.

KubeRay's RayJob controller (``ray-operator/controllers/ray/rayjob_controller.go`` v1.6.0)
checks both on every reconcile: ``checkActiveDeadlineAndUpdateStatusIfNeeded`` while the
job is Initializing or Running, then ``checkPreRunningDeadlineAndUpdateStatusIfNeeded``
while it is Initializing or Waiting (it has not reached Running), each counted from
``status.startTime``, which ``initRayJobStatusIfNeed`` sets as an attempt starts. A job past
either becomes Failed with reason ``DeadlineExceeded`` or ``PreRunningDeadlineExceeded``;
``DeadlineExceeded`` is never retried, ``PreRunningDeadlineExceeded`` is (backoffLimit).
KubeRay does not stop the Ray job; the failed job's cleanup (shutdownAfterJobFinishes, the
deletion rules) removes what it removes.

raygang has no controller between runs: every ``pulumi up`` (or ``raygang plan``) with live
facts or a snapshot applies both rules, counted from the attempt's RayCluster's
``creationTimestamp`` (KubeRay's startTime is set just before it creates the RayCluster),
and reports when the next run should come (``next_change_at``). Nothing in the cluster
enforces them between runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from raygang.lifecycle.facts.clock import format_time

__all__ = ["DEADLINE_REASONS", "Deadline", "next_deadline", "passed_deadline"]

#: The failure reasons raygang writes itself (KubeRay's ``JobFailedReason`` values).
DEADLINE_REASONS = ("DeadlineExceeded", "PreRunningDeadlineExceeded")


@dataclass(frozen=True)
class Deadline:
    """A deadline that has passed: the job failed at ``at`` for ``reason``."""

    reason: str
    at: datetime
    why: str


def _due(start: datetime, seconds: int | None) -> datetime | None:
    return start + timedelta(seconds=seconds) if seconds is not None else None


def passed_deadline(
    start: datetime | None,
    active: int | None,
    pre_running: int | None,
    reached_running: bool,
    now: datetime,
) -> Deadline | None:
    """The deadline a job still going has passed at ``now``, in KubeRay's order; else None.

    Args:
        start: when the current attempt started; None when nothing of it exists yet.
        active: ``spec.activeDeadlineSeconds``.
        pre_running: ``spec.preRunningDeadlineSeconds``.
        reached_running: the job has reached KubeRay's Running (its submitter exists).
        now: the current time.
    """
    if start is None:
        return None
    due = _due(start, active)
    if due is not None and now >= due:
        return Deadline(
            "DeadlineExceeded",
            due,
            f"the attempt started at {format_time(start)} and "
            f"spec.activeDeadlineSeconds {active} passed",
        )
    due = _due(start, pre_running)
    if due is not None and not reached_running and now >= due:
        return Deadline(
            "PreRunningDeadlineExceeded",
            due,
            f"the attempt started at {format_time(start)} and "
            f"spec.preRunningDeadlineSeconds {pre_running} passed before it reached Running",
        )
    return None


def next_deadline(
    start: datetime | None, active: int | None, pre_running: int | None, reached_running: bool
) -> datetime | None:
    """When a deadline of a job still going will pass; None when none can."""
    if start is None:
        return None
    dues = [_due(start, active), None if reached_running else _due(start, pre_running)]
    return min((d for d in dues if d is not None), default=None)
