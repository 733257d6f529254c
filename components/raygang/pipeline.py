"""The whole planning pass, shared by ``raygang plan`` and the Pulumi program.

inputs → plan (:mod:`raygang.plan`) → for each job, the lifecycle's decision from the
cluster's facts (:mod:`raygang.lifecycle`) and the preflight against Volcano's rules
(:mod:`raygang.preflight.run`) → one :class:`~raygang.plan.PlannedJob` per job, made once.
Both entry points call :func:`plan_everything`, so the offline plan and what ``pulumi up``
registers come from one code path.

Internal: ``raygang`` exports ``plan_everything``, ``preflight_gate``, ``Gate``,
``plan_program`` and ``ProgramPlan``; this module may change without notice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from raygang.kube.errors import Problem, SpecError
from raygang.kube.kubeyaml import Limits
from raygang.kube.snapshot import ClusterSnapshot, load_snapshot
from raygang.kuberay.clusterplan import ClusterPlan
from raygang.kuberay.jobplan import JobPlan
from raygang.lifecycle.decide import decide
from raygang.lifecycle.facts.clock import parse_now
from raygang.lifecycle.facts.gather import gather_facts
from raygang.lifecycle.facts.live import LiveCluster
from raygang.lifecycle.raycluster import cluster_actions, declared_cluster_resources
from raygang.loader import Documents
from raygang.plan import (
    PRIVILEGE_SETTING,
    PlannedCluster,
    PlannedJob,
    StackPlan,
    plan_clusters,
    plan_stack,
    privileged_companions,
    unsupported_sub_gangs,
)
from raygang.preflight.result import Check, PreflightResult, parse_node_shapes
from raygang.preflight.run import NodeShape, StackView, preflight_job, stack_view
from raygang.settings import StackSettings, settings_from_getter
from raygang.volcano.queue import QueueDecl

__all__ = [
    "Gate",
    "ProgramPlan",
    "finish_cluster",
    "finish_job",
    "plan_everything",
    "plan_program",
    "preflight_gate",
    "provider_cluster",
    "resolve_now",
    "resolve_snapshot",
]

_NOT_SCHEDULING = ("finished", "failed", "suspended")


def resolve_now(text: str | None) -> datetime:
    """``--now`` / ``raygang:now`` when given, else the current UTC time.

    Raises:
        SpecError: a timestamp that is not RFC 3339.
    """
    if not text:
        return datetime.now(UTC)
    try:
        return parse_now(text)
    except ValueError as exc:
        raise SpecError.one(
            "--now / raygang:now", "now", str(exc), "an RFC 3339 time, e.g. 2026-11-29T10:00:00Z"
        ) from None


def resolve_snapshot(
    path: str | None, base: Path, max_mib: int | None = None
) -> ClusterSnapshot | None:
    """Load the cluster snapshot named by ``--cluster`` / ``raygang:clusterSnapshot``, read
    with bounds sized for ``max_mib`` (``--snapshot-max-mib`` / ``raygang:snapshotMaxMiB``)
    when given, else the reader's defaults."""
    if not path:
        return None
    candidate = Path(path)
    return load_snapshot(
        candidate if candidate.is_absolute() else base / candidate,
        Limits.sized(max_mib * 1024 * 1024) if max_mib else None,
    )


def finish_job(
    plan: JobPlan,
    *,
    queues: Mapping[str, QueueDecl],
    snapshot: ClusterSnapshot | None,
    now: datetime,
    others: Sequence[JobPlan] = (),
    node_shapes: Sequence[NodeShape] = (),
    stack: StackView | None = None,
) -> PlannedJob:
    """One planned job's record: its plan, the lifecycle's decision and the preflight's.

    The lifecycle decides from the plan and the job's facts; the preflight judges the plan
    (the objects of the attempt it would run differ from the planned ones only in their
    submission ID and attempt annotation, which no scheduling rule reads), unless the job
    is finished, failed or suspended. Neither is written into the plan.

    ``stack`` is what every job of the planning pass sees alike
    (:func:`~raygang.preflight.stack.stack_view`: the snapshot read once per pass); None
    judges the job alone.

    Raises:
        SpecError: the facts make the job's declared change impossible (a queue change
            while it runs, say).
    """
    facts = gather_facts(snapshot, plan.namespace, plan.name) if snapshot is not None else None
    try:
        lifecycle = decide(plan, facts, now)
    except ValueError as exc:
        if isinstance(exc, SpecError):
            raise
        raise SpecError([Problem(plan.item.source, "spec", str(exc))]) from None
    phase = lifecycle.phase
    if phase in _NOT_SCHEDULING:
        # The gang has run or is parked: admission no longer matters, and judging a
        # zeroed PodGroup would only produce noise.
        result = PreflightResult(
            verdict="unknown",
            reasons=(),
            checks=(
                Check("lifecycle", "skip", f"job is {phase}: nothing is waiting to be admitted"),
            ),
        )
    else:
        result = preflight_job(
            plan,
            queues=queues,
            snapshot=snapshot,
            others=others,
            node_shapes=node_shapes,
            stack=stack,
        )
    return PlannedJob(plan, lifecycle, result)


def finish_cluster(
    plan: ClusterPlan,
    *,
    queues: Mapping[str, QueueDecl],
    snapshot: ClusterSnapshot | None,
    others: Sequence[JobPlan] = (),
    node_shapes: Sequence[NodeShape] = (),
    stack: StackView | None = None,
) -> PlannedCluster:
    """One RayCluster's record: its plan, what this run declares and the preflight's.

    The preflight judges the cluster's gang as a job's (:attr:`ClusterPlan.gang_job`),
    unless the cluster is suspended: its pods are gone and its PodGroup zeroed.
    """
    if plan.item.suspended:
        result = PreflightResult(
            verdict="unknown",
            reasons=(),
            checks=(
                Check(
                    "lifecycle",
                    "skip",
                    "RayCluster is suspended: nothing is waiting to be admitted",
                ),
            ),
        )
    else:
        result = preflight_job(
            plan.gang_job,
            queues=queues,
            snapshot=snapshot,
            others=others,
            node_shapes=node_shapes,
            stack=stack,
        )
    return PlannedCluster(plan, declared_cluster_resources(plan), cluster_actions(plan), result)


@dataclass(frozen=True)
class Gate:
    """What the preflight means for a run: ``raygang plan`` and ``pulumi preview`` alike.

    Attributes:
        errors: one message per job that can never be admitted (``raygang:preflight:
            error``): the preview fails, and ``raygang plan`` exits 3.
        warnings: one message per other stuck job, or per never-admitted job under
            ``warn``, and per companion granting cluster-wide rights or intercepting
            admission (whatever the mode): printed, nothing fails.
    """

    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def preflight_gate(plan: StackPlan, mode: str) -> Gate:
    """Judge a finished plan's preflight verdicts under ``error``, ``warn`` or ``off``."""
    errors: list[str] = []
    # Not the preflight's: named whatever its mode (raygang:refusePrivilegedCompanions
    # makes them errors when the stack is planned).
    warnings = [
        f"{p.source}: {p.path}: {p.message} ({PRIVILEGE_SETTING}: true refuses it)"
        for p in privileged_companions(plan.companions)
    ]
    # Not the preflight's either: the numbers a RayCluster's PodGroup carries are KubeRay's
    # (raygang.kuberay.clusterplan), whatever the accounting asked for.
    warnings += [
        f"RayCluster {c.plan.namespace}/{c.plan.name}: {c.plan.differences[0]}"
        for c in plan.clusters
        if c.plan.differences
    ]
    if mode == "off":
        return Gate((), tuple(warnings))
    judged = [(f"{j.plan.namespace}/{j.plan.name}", j.preflight) for j in plan.jobs]
    judged += [(f"RayCluster {c.plan.namespace}/{c.plan.name}", c.preflight) for c in plan.clusters]
    for name, result in judged:
        if result.verdict != "stuck":
            continue
        reasons = "\n  ".join(result.reasons)
        if result.never_admitted and mode == "error":
            errors.append(f"{name} can never be admitted as declared:\n  {reasons}")
        else:
            warnings.append(f"preflight says {name} is stuck:\n  {reasons}")
    return Gate(tuple(errors), tuple(warnings))


def plan_everything(
    docs: Documents,
    settings: StackSettings,
    *,
    base: Path,
    snapshot: ClusterSnapshot | None = None,
    now: datetime | None = None,
    podgroup_fields: frozenset[str] | None = None,
) -> StackPlan:
    """Plan a stack's documents completely: gang, lifecycle and preflight.

    Args:
        docs: the loaded RayJobs and Queues.
        settings: the stack's settings.
        base: the project directory, for a relative ``raygang:clusterSnapshot``.
        snapshot: a cluster snapshot; when None, ``settings.cluster_snapshot`` is read.
        now: the clock; when None, ``settings.now`` or the current time.
        podgroup_fields: the ``spec`` fields of the installed PodGroup CRD
            (:func:`raygang.live_podgroup_fields`); None when unknown, and then a
            ``subGroupPolicy`` is assumed to be kept (Volcano v1.14 and later).

    Raises:
        SpecError: every problem found, in every job.
    """
    plans = _plan_everything(docs, settings, base, snapshot, now)
    if podgroup_fields is not None:
        problems = unsupported_sub_gangs([j.plan for j in plans.jobs], podgroup_fields)
        if problems:
            raise SpecError(problems)
    return plans


def _plan_everything(
    docs: Documents,
    settings: StackSettings,
    base: Path,
    snapshot: ClusterSnapshot | None,
    now: datetime | None,
) -> StackPlan:
    problems: list[Problem] = []
    try:
        plans = plan_stack(docs.jobs, docs.queues, settings, docs.companions, docs.packages)
    except SpecError as exc:
        problems.extend(exc.problems)
    try:
        clusters = plan_clusters(docs.clusters, docs.queues, settings, docs.companions)
    except SpecError as exc:
        problems.extend(exc.problems)
    if problems:
        raise SpecError(problems)
    # A RayCluster's gang competes with the jobs' in its queue, as a job's does.
    gangs = (*plans, *(c.gang_job for c in clusters))
    if snapshot is None:
        snapshot = resolve_snapshot(settings.cluster_snapshot, base, settings.snapshot_max_mib)
    clock = now or resolve_now(settings.now)
    shapes = parse_node_shapes(settings.node_shapes) if settings.node_shapes else ()
    declared = {q.name: q for q in docs.queues}
    # Read once per pass: the snapshot with the stack's queues, the stack's jobs by queue.
    view = stack_view(snapshot, declared, gangs)
    jobs: list[PlannedJob] = []
    for plan in plans:
        try:
            jobs.append(
                finish_job(
                    plan,
                    queues=declared,
                    snapshot=snapshot,
                    now=clock,
                    # The whole stack: preflight leaves the job itself out.
                    others=gangs,
                    node_shapes=shapes,
                    stack=view,
                )
            )
        except SpecError as exc:
            problems.extend(exc.problems)
    if problems:
        raise SpecError(problems)
    finished = tuple(
        finish_cluster(
            cluster,
            queues=declared,
            snapshot=snapshot,
            others=gangs,
            node_shapes=shapes,
            stack=view,
        )
        for cluster in clusters
    )
    return StackPlan(tuple(jobs), docs.queues, docs.ignored, docs.companions, finished)


@dataclass(frozen=True)
class ProgramPlan:
    """What a Pulumi program plans before it registers anything (:func:`plan_program`).

    Attributes:
        settings: the settings the plan was made with.
        plan: the whole planning pass.
        gate: what the preflight means for the run (errors fail the preview).
    """

    settings: StackSettings
    plan: StackPlan
    gate: Gate


def plan_program(
    get: Callable[[str], object],
    source: str,
    load: Callable[[StackSettings, frozenset[tuple[str, str]] | None], Documents],
    *,
    base: Path,
    kube: Callable[[str], str | None] | None = None,
) -> ProgramPlan:
    """The planning a Pulumi program does: settings, documents, live facts, plan, gate.

    One flow for the repository's stack program (``__main__.py``) and the component
    package (:mod:`raygang.component.package`), so the two register the same objects for
    the same input; each only says where its settings and documents come from and words
    the errors for its own users.

    Args:
        get: the value of a ``raygang:*`` key (without the prefix), or None when unset.
        source: what names the settings in messages (``stack dev config``).
        load: reads the documents the settings name; called with the (API group, kind)
            pairs the cluster's discovery reports cluster-scoped when the facts are read
            live from the cluster (no snapshot given), so companions of those kinds get no
            namespace; with None otherwise.
        base: the directory a relative ``raygang:clusterSnapshot`` is read from.
        kube: the value of a ``kubernetes:*`` key of the stack's config (without the
            prefix), or None when unset: live facts are read from the cluster its
            ``kubeconfig`` and ``context`` name, the one the default kubernetes provider
            deploys to (:func:`provider_cluster`).

    Raises:
        SpecError: every problem of the settings and the documents; a ``kubernetes:cluster``
            override with live facts.
        RuntimeError: live facts without the kubernetes client or credentials.
    """
    settings = settings_from_getter(get, source)
    live = settings.live_facts and not settings.cluster_snapshot
    if not live:
        docs = load(settings, None)
        snapshot, fields = None, None
    else:
        context, kubeconfig = provider_cluster(kube or (lambda _key: None))
        # One connection for the three reads: a credential plugin (aws eks get-token, ...)
        # runs once per program run.
        cluster = LiveCluster.connect(context=context, kubeconfig=kubeconfig)
        docs = load(settings, cluster.cluster_scoped())
        # Facts from the cluster itself, as KubeRay's controller reads them each loop; and
        # the installed PodGroup CRD's fields, so sub-gangs are refused where it lacks them.
        snapshot = cluster.snapshot(sorted({job.namespace for job in docs.jobs}))
        fields = cluster.podgroup_fields()
    plan = plan_everything(docs, settings, base=base, snapshot=snapshot, podgroup_fields=fields)
    return ProgramPlan(settings, plan, preflight_gate(plan, settings.preflight))


def provider_cluster(kube: Callable[[str], str | None]) -> tuple[str | None, str | None]:
    """Where live facts are read: the kubernetes provider's ``kubeconfig`` and ``context``.

    The provider's third setting, ``cluster``, deploys to another cluster of the kubeconfig
    than its context's; facts read from the context's cluster would then decide on another
    cluster's jobs, so it is refused.

    Args:
        kube: the value of a ``kubernetes:*`` key (without the prefix), or None when unset.

    Returns:
        ``(context, kubeconfig)``, as :func:`raygang.live_snapshot` takes them.

    Raises:
        SpecError: ``kubernetes:cluster`` is set.
    """
    if kube("cluster"):
        raise SpecError.one(
            "the kubernetes provider's config",
            "kubernetes:cluster",
            "live facts are read from the cluster of kubernetes:context, and cannot follow a "
            "kubernetes:cluster override",
            "kubernetes:context naming a context of that cluster",
        )
    return kube("context"), kube("kubeconfig")
