"""The phase a job is in, from what was observed, and the attempt and submission ID it runs.

KubeRay's RayJob controller moves a job from phase to phase as it watches it
(``ray-operator/controllers/ray/rayjob_controller.go`` v1.7.0): a finished submitter
makes it Complete or Failed, ``checkBackoffLimitAndUpdateStatusIfNeeded`` makes a failure
with ``spec.backoffLimit`` retries left Retrying, and ``updateStatusToSuspendingIfNeeded``
suspends an Initializing or Running job whose ``spec.suspend`` is set. raygang keeps no
status, so :func:`transition` derives the phase from the facts on every run. Where it
departs from KubeRay, because the declaration in the stack outlives the objects: the
submission ID is pinned while the job runs (a spec edit updates the RayCluster and the
gang, never submits twice), and a spec edit *after* the finish is a new run on fresh
objects, where KubeRay would ignore the edit.
"""

from __future__ import annotations

from dataclasses import dataclass

from raygang.kuberay.jobplan import JobPlan
from raygang.lifecycle.model import Observed, Phase

__all__ = ["Transition", "attempt_submission_id", "transition"]

# KubeRay never retries these: the deadline would only expire again.
_NO_RETRY_REASONS = ("DeadlineExceeded",)


@dataclass(frozen=True)
class Transition:
    """The phase this run puts the job in, and the attempt it declares.

    Attributes:
        phase: the phase.
        attempt: the attempt the declared objects belong to (1 for the first).
        first_attempt: the first attempt of the current run; retries count from it.
        submission_id: the Ray submission ID of that attempt.
        reasons: why, after the facts' own lines.
    """

    phase: Phase
    attempt: int
    first_attempt: int
    submission_id: str
    reasons: tuple[str, ...] = ()


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


def transition(plan: JobPlan, seen: Observed) -> Transition:
    """The phase the observed job is in, and the attempt and submission ID this run declares."""
    job = plan.item.job
    base = plan.submission_id
    user_id = bool(job.spec.job_id)
    reasons: list[str] = []
    attempt, first = seen.attempt, seen.first_attempt
    spec_changed = seen.base_before is not None and seen.base_before != base
    backoff = job.spec.backoff_limit
    run_attempt = attempt - first + 1
    phase: Phase
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
    return Transition(
        phase=phase, attempt=attempt, first_attempt=first, submission_id=sid, reasons=tuple(reasons)
    )
