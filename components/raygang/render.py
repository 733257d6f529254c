"""Printing a plan: a table for people, JSON for programs, YAML manifests for kubectl.

All three are deterministic: the same plan gives the same bytes, whatever the key order
of the input.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from raygang.batch import batch_collection
from raygang.kube.jsontext import dumps_indented
from raygang.kube.quantity import format_resource_list
from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.plan import StackPlan

__all__ = ["plan_document", "render_json", "render_table", "render_yaml", "write_manifests"]

_WAITS = {"queue": "waits for Open", "raycluster": "waits for ready"}


def _job_document(plan: JobPlan) -> dict[str, Any]:
    gang = plan.gang
    return {
        "name": plan.name,
        "namespace": plan.namespace,
        "source": plan.item.source,
        "mode": plan.mode,
        "accounting": str(gang.accounting),
        "podGroup": {
            "name": plan.podgroup_name,
            "minMember": plan.declared_min_member,
            "minResources": plan.declared_min_resources,
            "queue": plan.queue,
            "priorityClassName": plan.priority_class,
        },
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
        "gang": {
            "minMember": gang.min_member,
            "minResources": gang.min_resources_strings(),
        },
        "kuberay": {
            "minMember": plan.kuberay_gang.min_member,
            "minResources": plan.kuberay_gang.min_resources_strings(),
        },
        "differences": list(gang.differences),
        "submissionId": plan.submission_id,
        "dashboardUrl": plan.dashboard_url,
        "lifecycle": plan.lifecycle.to_dict() if plan.lifecycle is not None else None,
        "preflight": plan.preflight.to_dict() if plan.preflight is not None else None,
        "resources": [
            {
                "apiVersion": r.api_version,
                "kind": r.kind,
                "name": r.name,
                "namespace": r.namespace,
                "dependsOn": list(r.depends_on),
            }
            for r in plan.resources
        ],
    }


def plan_document(plan: StackPlan) -> dict[str, Any]:
    """The plan as the JSON document ``raygang plan --format json`` prints."""
    users: dict[str, list[str]] = {}
    for job in plan.jobs:
        if job.queue is not None:
            users.setdefault(job.queue, []).append(f"{job.namespace}/{job.name}")
    declared = {q.name for q in plan.queues}
    queues = [
        {"name": q.name, "declared": True, "jobs": users.get(q.name, [])} for q in plan.queues
    ]
    queues += [
        {"name": name, "declared": False, "jobs": jobs}
        for name, jobs in sorted(users.items())
        if name not in declared
    ]
    return {"jobs": [_job_document(j) for j in plan.jobs], "queues": queues}


def render_json(plan: StackPlan) -> str:
    """``raygang plan --format json``."""
    with batch_collection():
        return dumps_indented(plan_document(plan)) + "\n"


def _stream(plan: StackPlan) -> Iterator[PlannedResource]:
    seen: set[str] = set()
    for job in plan.jobs:
        for resource in job.resources:
            key = f"{resource.namespace}/{resource.ref}"
            if key not in seen:
                seen.add(key)
                yield resource
    for queue in plan.queues:
        if f"None/Queue/{queue.name}" not in seen:
            seen.add(f"None/Queue/{queue.name}")
            yield PlannedResource("queue", queue.manifest())


def _dump(manifest: object) -> str:
    # No line folding: a long submitter command stays one line, so diffs stay readable.
    return yaml.safe_dump(
        manifest, sort_keys=True, default_flow_style=False, allow_unicode=True, width=2**31 - 1
    )


def render_yaml(plan: StackPlan) -> str:
    """The manifests, one YAML document each, in creation order (no ownerReferences)."""
    with batch_collection():
        return "".join(f"---\n{_dump(dict(r.manifest))}" for r in _stream(plan))


def write_manifests(plan: StackPlan, out: Path) -> list[Path]:
    """Write one file per manifest into ``out``, numbered in creation order."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for index, resource in enumerate(_stream(plan), start=1):
        ns = resource.namespace or "cluster"
        path = out / f"{index:03d}-{resource.kind.lower()}-{ns}-{resource.name}.yaml"
        path.write_text(_dump(dict(resource.manifest)), encoding="utf-8")
        written.append(path)
    return written


def _table(rows: list[list[str]], indent: str) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        indent + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _job_table(plan: JobPlan) -> list[str]:
    gang = plan.gang
    names = sorted({k for s in gang.shares for k in s.per_pod} | set(gang.min_resources))
    lines = [
        f"RayJob {plan.namespace}/{plan.name}  ({plan.mode}, accounting {gang.accounting})",
        f"  source        {plan.item.source}",
        f"  PodGroup      {plan.podgroup_name}  queue {plan.queue or 'default (Volcano default)'}"
        + (" (created by this stack)" if plan.queue_declared else "")
        + (f"  priorityClass {plan.priority_class}" if plan.priority_class else ""),
    ]
    workers = sum(s.members for s in gang.shares if s.role == "worker")
    lines.append(
        f"  minMember     {gang.min_member}  (1 head + {workers} workers; "
        "the submitter is reserved but never counted)"
    )
    rows = [["role", "group", "members", "reserved", *names]]
    for share in gang.shares:
        per = format_resource_list(share.per_pod)
        rows.append(
            [share.role, share.group, str(share.members), str(share.reserved)]
            + [per.get(n, "-") for n in names]
        )
    lines.append("  pods (per pod)")
    lines += _table(rows, "    ")
    resources = ", ".join(f"{k} {v}" for k, v in gang.min_resources_strings().items()) or "{}"
    lines.append(f"  minResources  {resources}")
    declared = (plan.declared_min_member, plan.declared_min_resources)
    if declared != (gang.min_member, gang.min_resources_strings()):
        now = ", ".join(f"{k} {v}" for k, v in declared[1].items()) or "{}"
        lines.append(f"  declared now  minMember {declared[0]}, minResources {now} (lifecycle)")
    kuberay = plan.kuberay_gang
    if gang is not kuberay:
        if (
            kuberay.min_member == gang.min_member
            and kuberay.min_resources_strings() == gang.min_resources_strings()
        ):
            lines.append("  vs kuberay    identical")
        else:
            theirs = (
                ", ".join(f"{k} {v}" for k, v in kuberay.min_resources_strings().items()) or "{}"
            )
            lines.append(f"  vs kuberay    minMember {kuberay.min_member}, {theirs}")
            lines += [f"                - {d}" for d in gang.differences]
    if plan.preflight is not None:
        lines += plan.preflight.table_lines()
    if plan.lifecycle is not None:
        lines += [f"  {line}" for line in plan.lifecycle.table_lines()]
    lines.append(f"  submission    {plan.submission_id}")
    lines.append(f"  dashboard     {plan.dashboard_url}")
    lines.append("  create order")
    for index, resource in enumerate(plan.resources, start=1):
        wait = _WAITS.get(resource.role, "")
        after = f"after {', '.join(resource.depends_on)}" if resource.depends_on else ""
        note = "; ".join(x for x in (wait, after) if x)
        lines.append(f"    {index}. {resource.ref}" + (f"  ({note})" if note else ""))
    return lines


def render_table(plan: StackPlan) -> str:
    """``raygang plan`` (the default format): a readable summary per job."""
    lines: list[str] = []
    for job in plan.jobs:
        lines += _job_table(job)
        lines.append("")
    if plan.queues:
        lines.append("Queues created by this stack: " + ", ".join(q.name for q in plan.queues))
    lines += [f"note: {i}" for i in plan.ignored]
    return "\n".join(lines).rstrip() + "\n"
