"""``raygang plan --format json``: the plan as one JSON document, written as it is produced."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any, TextIO

from raygang.kube._indentjson import write_indented
from raygang.kube.quantity import format_resource_list
from raygang.kube.secretkind import secret_keys
from raygang.kuberay.gang import Gang
from raygang.kuberay.jobplan import PlannedResource
from raygang.plan import Companion, PlannedCluster, PlannedJob, StackPlan, generate_name_prefix
from raygang.render.order import cluster_keys, companion_deps, users


def _resources_of(
    resources: Sequence[PlannedResource], companions: Sequence[Companion], first: str = "record"
) -> list[dict[str, Any]]:
    """A job's or a cluster's objects in creation order: its companions, then those this run
    declares (``first``: its first object in the namespace, see :func:`companion_deps`)."""
    refs = [c.ref for c in companions]
    rows: list[dict[str, Any]] = [
        {
            "apiVersion": c.api_version,
            "kind": c.kind,
            "name": c.name,
            "namespace": c.namespace,
            "dependsOn": [],
            "companion": True,
        }
        for c in companions
    ]
    spaces = [c.ref for c in companions if c.is_namespace]
    for r in resources:
        deps = list(r.depends_on) + companion_deps(r.role, refs, spaces, first)
        rows.append(
            {
                "apiVersion": r.api_version,
                "kind": r.kind,
                "name": r.name,
                "namespace": r.namespace,
                "dependsOn": deps,
            }
        )
    return rows


def _companion_document(companion: Companion, clusters: frozenset[str]) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "apiVersion": companion.api_version,
        "kind": companion.kind,
        "name": companion.name,
        "namespace": companion.namespace,
        "source": companion.source,
        # Who depends on it: RayJobs as namespace/name, RayClusters of their own as
        # "RayCluster namespace/name", as a queue's "jobs" names its users.
        "jobs": users(companion, clusters),
    }
    if companion.is_secret:
        doc["secretKeys"] = secret_keys(companion.manifest)
    return doc


def _gang_fields(gang: Gang, kuberay: Gang) -> dict[str, Any]:
    """A job's or a cluster's pods, its gang and KubeRay's, as the JSON document has them."""
    return {
        "pods": [
            {
                "role": share.role,
                "group": share.group,
                "members": share.members,
                "reserved": share.reserved,
                "perPod": format_resource_list(share.per_pod),
            }
            for share in gang.shares
        ],
        "gang": {"minMember": gang.min_member, "minResources": gang.min_resources_strings()},
        "kuberay": {
            "minMember": kuberay.min_member,
            "minResources": kuberay.min_resources_strings(),
        },
    }


def _job_document(job: PlannedJob, companions: Sequence[Companion] = ()) -> dict[str, Any]:
    plan = job.plan
    gang = plan.gang
    podgroup: dict[str, Any] = {
        "name": plan.podgroup_name,
        "minMember": job.declared_min_member,
        "minResources": job.declared_min_resources,
        "queue": plan.queue,
        "priorityClassName": plan.priority_class,
    }
    if plan.settings.sub_gangs:
        # Only when asked: without sub-gangs the document is what it always was.
        declared = job.resource("podgroup")
        spec = declared.manifest.get("spec", {}) if declared is not None else {}
        podgroup["subGroupPolicy"] = list(spec.get("subGroupPolicy") or [])
    doc: dict[str, Any] = {
        "name": plan.name,
        "namespace": plan.namespace,
        "generateName": generate_name_prefix(plan.item),
        "source": plan.item.source,
        "mode": plan.mode,
        "accounting": str(gang.accounting),
        "podGroup": podgroup,
        **_gang_fields(gang, plan.kuberay_gang),
        "differences": list(gang.differences),
        "submissionId": job.submission_id,
        "dashboardUrl": plan.dashboard_url,
        "lifecycle": job.lifecycle.to_dict(),
        "preflight": job.preflight.to_dict(),
        "resources": _resources_of(job.resources, companions),
    }
    if plan.code is not None:
        doc["codePackage"] = _code_document(job)
    return doc


def _code_document(job: PlannedJob) -> dict[str, Any]:
    """The job's code package (issue 28): its directory, hash, size and ConfigMaps."""
    code = job.plan.code
    assert code is not None
    return {
        "directory": code.directory,
        "sha256": code.sha256,
        "bytes": code.size,
        "files": len(code.files),
        "configMaps": [r.name for r in job.plan.resources if r.role.startswith("code-")],
        "pyModules": list(code.py_modules),
    }


def _cluster_document(
    cluster: PlannedCluster, companions: Sequence[Companion] = ()
) -> dict[str, Any]:
    plan = cluster.plan
    gang = plan.gang
    return {
        "name": plan.name,
        "namespace": plan.namespace,
        "source": plan.item.source,
        "suspended": plan.item.suspended,
        "accounting": str(gang.accounting),
        "podGroup": {
            "name": plan.podgroup_name,
            "minMember": cluster.declared_min_member,
            "minResources": cluster.declared_min_resources,
            "queue": plan.queue,
            "priorityClassName": plan.priority_class,
        },
        **_gang_fields(gang, plan.kuberay_gang),
        "differences": list(plan.differences),
        "actions": list(cluster.actions),
        "dashboardUrl": plan.dashboard_url,
        "preflight": cluster.preflight.to_dict(),
        "resources": _resources_of(cluster.resources, companions, first="podgroup"),
    }


def plan_document(plan: StackPlan) -> dict[str, Any]:
    """The plan as the JSON document ``raygang plan --format json`` prints.

    RayClusters of their own are under ``rayClusters``, present only when the plan has one
    (and in their queue's and their companions' ``jobs`` lists, as
    ``RayCluster <namespace>/<name>``).
    """
    users: dict[str, list[str]] = {}
    for job in plan.jobs:
        if job.plan.queue is not None:
            users.setdefault(job.plan.queue, []).append(f"{job.plan.namespace}/{job.plan.name}")
    for cluster in plan.clusters:
        if cluster.plan.queue is not None:
            users.setdefault(cluster.plan.queue, []).append(
                f"RayCluster {cluster.plan.namespace}/{cluster.plan.name}"
            )
    declared = {q.name for q in plan.queues}
    queues = [
        {"name": q.name, "declared": True, "jobs": users.get(q.name, [])} for q in plan.queues
    ]
    queues += [
        {"name": name, "declared": False, "jobs": jobs}
        for name, jobs in sorted(users.items())
        if name not in declared
    ]
    document: dict[str, Any] = {
        "jobs": [_job_document(j, plan.companions_of(j)) for j in plan.jobs],
    }
    if plan.clusters:
        document["rayClusters"] = [
            _cluster_document(c, plan.companions_of(c)) for c in plan.clusters
        ]
    document["queues"] = queues
    clusters = cluster_keys(plan)
    document["companions"] = [_companion_document(c, clusters) for c in plan.companions]
    return document


def write_json(plan: StackPlan, out: TextIO | io.TextIOBase) -> None:
    """``raygang plan --format json``, written to ``out`` as it is produced.

    The text of ``json.dump(document, out, indent=2)``, by the job record's writer
    (:mod:`raygang.kube._indentjson`), one job (queue, companion) at a time: a text of the
    whole document would be held besides the plan.
    """
    write_indented(plan_document(plan), out)
    out.write("\n")


def render_json(plan: StackPlan) -> str:
    """``raygang plan --format json`` as a string (:func:`write_json`'s text)."""
    out = io.StringIO()
    write_json(plan, out)
    return out.getvalue()
