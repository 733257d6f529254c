"""The gangs of a stack, each planned by raygang as the RayJob KubeRay would see.

A gang is one of:

* a PodGroup the stack declares, with the RayCluster whose pods name it
  (``scheduling.k8s.io/group-name``) and the Jobs (submitters) whose pods name it: what
  raygang's own stacks declare, and what a hand-written program or a Helm chart may;
* a RayJob or a RayCluster labelled ``ray.io/scheduler-name: volcano``, whose PodGroup
  KubeRay's Volcano adapter creates itself.

Each becomes a RayJob document (the RayCluster's spec as ``rayClusterSpec``; the submitter
Job's pod template as ``submitterPodTemplate`` in K8sJobMode, else InteractiveMode, whose gang
has no submitter), read by raygang's loader (KubeRay's validation) and planned by
``plan_everything`` (the gang in both accountings and the preflight against the node shapes or
the snapshot). Nothing here computes a gang or judges admission: raygang does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from raygang import (
    GROUP_NAME_ANNOTATION,
    PRIORITY_LABEL,
    QUEUE_LABEL,
    PlannedJob,
    Problem,
    SpecError,
    load_documents,
    plan_everything,
    settings_from_getter,
)

from raygang_policy.objects import UNKNOWN, StackResource, dig, unknown_paths
from raygang_policy.settings import PackSettings

__all__ = [
    "KUBERAY_SCHEDULER_LABEL",
    "Gang",
    "gangs_of",
    "is_podgroup",
    "is_queue",
    "loose_cluster_problems",
    "plan_gangs",
]

#: The label by which KubeRay's Volcano adapter groups a RayCluster or RayJob itself.
KUBERAY_SCHEDULER_LABEL = "ray.io/scheduler-name"

# A placeholder entrypoint: a K8sJobMode RayJob needs one, and the gang does not depend on it.
_ENTRYPOINT = "true"


def is_podgroup(r: StackResource) -> bool:
    """A Volcano PodGroup."""
    return r.is_kind("scheduling.volcano.sh", "PodGroup")


def is_queue(r: StackResource) -> bool:
    """A Volcano Queue."""
    return r.is_kind("scheduling.volcano.sh", "Queue")


@dataclass(frozen=True, slots=True)
class Gang:
    """One gang of the stack and what raygang made of it.

    Attributes:
        anchor: the resource the gang's findings are reported on (the PodGroup, or the
            RayJob / RayCluster KubeRay groups itself).
        podgroup: the declared PodGroup; None when KubeRay creates it.
        cluster: the RayCluster (None for a RayJob).
        submitters: the Jobs whose pods name the PodGroup.
        document: the RayJob raygang plans.
        unknown: fields of the gang's numbers (the pods, minMember, minResources) whose
            values are not known yet; when any, the gang is not planned.
        admission_unknown: the queue or priority, not known yet: the gang's numbers are
            judged, its queue and admission are not.
        problems: what raygang's loader or planner refused, each on the declared field.
        plan: raygang's plan of the gang (gang, KubeRay's gang, preflight); None when it
            could not be planned.
    """

    anchor: StackResource
    podgroup: StackResource | None
    cluster: StackResource | None
    submitters: tuple[StackResource, ...]
    document: Mapping[str, Any]
    unknown: tuple[str, ...] = ()
    admission_unknown: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    plan: PlannedJob | None = field(default=None)

    @property
    def source(self) -> str:
        """How raygang names this gang in messages."""
        return self.anchor.title()


def _same_namespace(a: StackResource, b: StackResource) -> bool:
    return a.namespace == b.namespace


def _names_group(r: StackResource, group: object) -> bool:
    return any(t.annotations.get(GROUP_NAME_ANNOTATION) == group for t in r.pod_templates())


def _unknown_identity(r: StackResource) -> list[str]:
    """``metadata.name`` / ``namespace`` of ``r`` when unknown (the gang is named after them)."""
    return [
        f"{r.title()}: metadata.{key}"
        for key in ("name", "namespace")
        if r.metadata.get(key) is UNKNOWN
    ]


def _podgroup_gang(pg: StackResource, resources: Sequence[StackResource]) -> Gang | None:
    name = pg.object_name
    members = [
        r
        for r in resources
        if r is not pg
        and _same_namespace(r, pg)
        and isinstance(name, str)
        and _names_group(r, name)
    ]
    clusters = [r for r in members if r.is_kind("ray.io", "RayCluster")]
    jobs = tuple(r for r in members if r.is_kind("batch", "Job"))
    if not clusters:
        return None  # not a Ray gang: nothing of raygang's to judge it by
    cluster = clusters[0]
    numbers = {k: v for k, v in pg.spec.items() if k not in ("queue", "priorityClassName")}
    unknown = [f"{pg.title()}: {p}" for p in unknown_paths(numbers, "spec")]
    unknown += [f"{cluster.title()}: {p}" for p in unknown_paths(cluster.props.get("spec"), "spec")]
    unknown += _unknown_identity(cluster)
    for job in jobs:
        unknown += [
            f"{job.title()}: {p}"
            for p in unknown_paths(dig(job.props, "spec", "template"), "spec.template")
        ]
    problems: list[str] = []
    if len(clusters) > 1:
        others = ", ".join(c.title() for c in clusters[1:])
        problems.append(
            f"{pg.title()}: metadata.name: is named by the pods of {len(clusters)} RayClusters "
            f"({cluster.title()}, {others}): one PodGroup gangs one RayCluster"
        )
    labels: dict[str, object] = {}
    admission_unknown: list[str] = []
    queue = pg.spec.get("queue")
    if queue is UNKNOWN:
        # A PodGroup whose queue is another resource's output (raygang's, until the Queue
        # exists): the queue its RayCluster's label names, where KubeRay's adapter takes it.
        queue = cluster.labels.get(QUEUE_LABEL)
    if queue is UNKNOWN:
        admission_unknown.append(f"{pg.title()}: spec.queue")
    elif queue:
        labels[QUEUE_LABEL] = queue
    priority = pg.spec.get("priorityClassName")
    if priority is UNKNOWN:
        admission_unknown.append(f"{pg.title()}: spec.priorityClassName")
    elif priority:
        labels[PRIORITY_LABEL] = priority
    spec: dict[str, object] = {"rayClusterSpec": cluster.props.get("spec")}
    if jobs:
        template = dig(jobs[0].props, "spec", "template")
        spec |= {
            "submissionMode": "K8sJobMode",
            "entrypoint": _ENTRYPOINT,
            "submitterPodTemplate": {"spec": dig(template, "spec")},
        }
    else:
        spec["submissionMode"] = "InteractiveMode"
    document = _rayjob(cluster, labels, spec)
    return Gang(
        pg, pg, cluster, jobs, document, tuple(unknown), tuple(admission_unknown), tuple(problems)
    )


def _rayjob(
    named: StackResource, labels: Mapping[str, object], spec: Mapping[str, object]
) -> dict[str, Any]:
    metadata: dict[str, object] = {"name": named.object_name}
    if named.namespace:
        metadata["namespace"] = named.namespace
    if labels:
        metadata["labels"] = dict(labels)
    return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": metadata, "spec": dict(spec)}


def _kuberay_gang(r: StackResource) -> Gang:
    labels = {k: v for k, v in r.labels.items() if k in (QUEUE_LABEL, PRIORITY_LABEL)}
    if r.is_kind("ray.io", "RayJob"):
        keep = ("apiVersion", "kind", "metadata", "spec")
        document = {k: v for k, v in r.props.items() if k in keep}
        cluster = None
    else:
        document = _rayjob(
            r, labels, {"submissionMode": "InteractiveMode", "rayClusterSpec": r.props.get("spec")}
        )
        cluster = r
    unknown = [f"{r.title()}: {p}" for p in unknown_paths(r.props.get("spec"), "spec")]
    unknown += _unknown_identity(r)
    admission = [f"{r.title()}: metadata.labels.{p}" for p in unknown_paths(labels)]
    if admission:
        metadata = dict(document.get("metadata") or {})
        metadata["labels"] = {k: v for k, v in r.labels.items() if v is not UNKNOWN}
        document = {**document, "metadata": metadata}
    return Gang(r, None, cluster, (), document, tuple(unknown), tuple(admission))


def gangs_of(resources: Sequence[StackResource]) -> list[Gang]:
    """Every gang of the stack, unplanned, in the order the stack declares them."""
    gangs: list[Gang] = []
    for r in resources:
        if is_podgroup(r):
            gang = _podgroup_gang(r, resources)
            if gang is not None:
                gangs.append(gang)
        elif (r.is_kind("ray.io", "RayJob") or r.is_kind("ray.io", "RayCluster")) and (
            r.labels.get(KUBERAY_SCHEDULER_LABEL) == "volcano"
        ):
            gangs.append(_kuberay_gang(r))
    return gangs


def _where(gang: Gang, problem: Problem) -> str:
    """A problem of the RayJob raygang planned, on the field the stack declared."""
    path = problem.path
    if gang.cluster is not None and path.startswith("spec.rayClusterSpec"):
        return f"{gang.cluster.title()}: spec{path.removeprefix('spec.rayClusterSpec')}"
    if gang.submitters and path.startswith("spec.submitterPodTemplate"):
        rest = path.removeprefix("spec.submitterPodTemplate")
        return f"{gang.submitters[0].title()}: spec.template{rest}"
    if gang.podgroup is not None and path == f"metadata.labels[{QUEUE_LABEL}]":
        return f"{gang.podgroup.title()}: spec.queue"
    if gang.podgroup is not None and path == f"metadata.labels[{PRIORITY_LABEL}]":
        return f"{gang.podgroup.title()}: spec.priorityClassName"
    return f"{gang.anchor.title()}: {path}"


def _problem_text(gang: Gang, problem: Problem) -> str:
    text = f"{_where(gang, problem)}: {problem.message}"
    return text + (f" (accepted: {problem.accepted})" if problem.accepted else "")


def loose_cluster_problems(
    resources: Sequence[StackResource], gangs: Sequence[Gang]
) -> list[tuple[StackResource, str]]:
    """What KubeRay would refuse in the RayClusters no gang holds (a RayCluster not scheduled
    by Volcano, or one whose spec is too broken to name its PodGroup), each on its field."""
    held = {id(g.cluster) for g in gangs}
    found: list[tuple[StackResource, str]] = []
    for r in resources:
        if not r.is_kind("ray.io", "RayCluster") or id(r) in held:
            continue
        if unknown_paths(r.props.get("spec")) or _unknown_identity(r):
            continue  # judged once known: a cluster outside any gang has nothing to wait for
        spec = {"submissionMode": "InteractiveMode", "rayClusterSpec": r.props.get("spec")}
        gang = Gang(r, None, r, (), _rayjob(r, {}, spec))
        try:
            load_documents([(gang.source, gang.document)])
        except SpecError as exc:
            found += [(r, _problem_text(gang, p)) for p in exc.problems]
    return found


def plan_gangs(
    resources: Sequence[StackResource], settings: PackSettings
) -> tuple[list[Gang], list[str]]:
    """Every gang of the stack, planned by raygang.

    Returns:
        the gangs (each with its plan, or its problems, or its unknown fields) and the
        stack-wide problems (a malformed Queue, the settings, the snapshot).
    """
    stack_problems = list(settings.problems)
    queue_docs: list[tuple[str, object]] = [
        (r.title(), dict(r.props)) for r in resources if is_queue(r) and not unknown_paths(r.props)
    ]
    try:
        load_documents(queue_docs)
    except SpecError as exc:
        stack_problems += [str(p) for p in exc.problems]
        queue_docs = []
    try:
        raygang = settings_from_getter(settings.raygang_setting, "the policy pack's settings")
    except SpecError as exc:
        return [], [*stack_problems, *(str(p) for p in exc.problems)]
    planned: list[Gang] = []
    for gang in gangs_of(resources):
        if gang.unknown or gang.problems:
            planned.append(gang)
            continue
        source = gang.source
        try:
            docs = load_documents([*queue_docs, (source, gang.document)])
            plan = plan_everything(docs, raygang, base=settings.base)
        except SpecError as exc:
            mine = [p for p in exc.problems if p.source == source]
            theirs = [str(p) for p in exc.problems if p.source != source]
            stack_problems += [t for t in theirs if t not in stack_problems]
            problems = tuple(_problem_text(gang, p) for p in mine)
            planned.append(dataclasses.replace(gang, problems=problems or tuple(theirs)))
            continue
        planned.append(dataclasses.replace(gang, plan=plan.jobs[0]))
    return planned, stack_problems
