"""The planned job a ``RayJobGangArgs`` gives: the one given, checked against its queue, or
the manifest planned as ``raygang plan`` plans it, refused when the gang can never be
admitted."""

from __future__ import annotations

from datetime import UTC, datetime

from raygang.component.args import RayJobGangArgs
from raygang.component.queue import VolcanoQueue
from raygang.kube.errors import SpecError
from raygang.kuberay.jobplan import JobPlan
from raygang.kuberay.manifests import QUEUE_LABEL
from raygang.loader import load_rayjob_document
from raygang.pipeline import finish_job
from raygang.plan import PlannedJob, plan_job


def check_queue(plan: JobPlan, queue: VolcanoQueue | None, source: str) -> None:
    """The queue given must be the one the label names; a declared one must be given."""
    label = f"metadata.labels[{QUEUE_LABEL!r}]"
    if queue is not None and queue.decl.name != plan.queue:
        named = (
            f"names queue {plan.queue!r}"
            if plan.queue is not None
            else "is absent (Volcano's default queue)"
        )
        raise SpecError.one(
            source,
            label,
            f"{named}, but RayJobGangArgs.queue is VolcanoQueue {queue.decl.name!r}: the "
            "PodGroup goes to the label's queue, so it would not wait for this one",
            f"{QUEUE_LABEL}: {queue.decl.name} on the RayJob, or the VolcanoQueue of "
            f"{plan.queue or 'its label'} (or none)",
        )
    if queue is None and plan.queue_declared:
        raise SpecError.one(
            source,
            label,
            f"names queue {plan.queue!r}, which the plan creates, but RayJobGangArgs.queue "
            "is not given: the PodGroup would not wait for it to be Open",
            f"RayJobGangArgs(queue=<the VolcanoQueue {plan.queue}>)",
        )


def job_from_args(args: RayJobGangArgs) -> PlannedJob:
    if args.job is not None:
        check_queue(args.job.plan, args.queue, args.job.plan.item.source)
        return args.job
    if args.manifest is None:
        raise SpecError.one(args.source, "<document>", "no manifest given", "a RayJob manifest")
    item = load_rayjob_document(args.manifest, args.source)
    declared = {args.queue.decl.name: args.queue.decl} if args.queue else {}
    job = finish_job(
        plan_job(item, args.settings, declared),
        queues=declared,
        snapshot=args.snapshot,
        now=args.now or datetime.now(UTC),
    )
    check_queue(job.plan, args.queue, args.source)
    result = job.preflight
    if result.never_admitted:
        raise SpecError.one(
            args.source,
            "spec",
            "the gang can never be admitted as declared: " + "; ".join(result.reasons),
        )
    return job
