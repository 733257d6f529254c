"""``raygang plan`` (the default format): a readable summary per job, for people."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from raygang.kube.quantity import format_resource_list
from raygang.kube.secretkind import secret_keys
from raygang.kuberay.gang import Gang
from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.plan import Companion, PlannedCluster, PlannedJob, StackPlan, generate_name_prefix
from raygang.render.order import cluster_keys, companion_deps, users

_WAITS = {"queue": "waits for Open", "raycluster": "waits for ready"}


def _table(rows: list[list[str]], indent: str) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        indent + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _job_table(
    job: PlannedJob, companions: Sequence[Companion] = (), clusters: frozenset[str] = frozenset()
) -> list[str]:
    plan = job.plan
    gang = plan.gang
    names = sorted({k for s in gang.shares for k in s.per_pod} | set(gang.min_resources))
    prefix = generate_name_prefix(plan.item)
    lines = [
        f"RayJob {plan.namespace}/{plan.name}  ({plan.mode}, accounting {gang.accounting})",
        f"  source        {plan.item.source}",
    ]
    if prefix is not None:
        lines.append(
            f"  name          from generateName {prefix!r} and a hash of the manifest "
            "(the same on every run)"
        )
    lines += [
        f"  PodGroup      {plan.podgroup_name}  queue {plan.queue or 'default (Volcano default)'}"
        + (" (created by this stack)" if plan.queue_declared else "")
        + (f"  priorityClass {plan.priority_class}" if plan.priority_class else ""),
    ]
    workers = sum(s.members for s in gang.shares if s.role == "worker")
    lines.append(
        f"  minMember     {gang.min_member}  (1 head + {workers} workers; "
        "the submitter is reserved but never counted)"
    )
    lines += _sub_gang_lines(plan)
    lines += _gang_lines(gang, names)
    declared = (job.declared_min_member, job.declared_min_resources)
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
    lines += job.preflight.table_lines()
    lines += [f"  {line}" for line in job.lifecycle.table_lines()]
    lines.append(f"  submission    {job.submission_id}")
    if plan.code is not None:
        code = plan.code
        lines.append(
            f"  code          {code.directory or '-'}  sha256 {code.sha256}  "
            f"({len(code.files)} files, {code.size:,} bytes packed)"
        )
        if code.py_modules:
            lines.append(f"  py_modules    {', '.join(code.py_modules)}")
    lines.append(f"  dashboard     {plan.dashboard_url}")
    lines += _create_order(
        f"{plan.namespace}/{plan.name}", job.resources, companions, clusters, _WAITS
    )
    return lines


def _create_order(
    key: str,
    resources: Sequence[PlannedResource],
    companions: Sequence[Companion],
    clusters: frozenset[str],
    waits: Mapping[str, str],
    first: str = "record",
) -> list[str]:
    """A job's or a cluster's create order: its companions, then the objects this run
    declares, each with what it waits for (``first``: see :func:`companion_deps`)."""
    lines = ["  create order"]
    namespace = key.partition("/")[0]
    index = 0
    for index, companion in enumerate(companions, start=1):
        shared = users(companion, clusters, but=key)
        note = f"companion from {companion.source}" + (
            f"; shared with {', '.join(shared)}" if shared else ""
        )
        if companion.is_secret:
            keys = secret_keys(companion.manifest)
            note += f"; Secret keys {', '.join(keys) if keys else '(none)'}, values not shown"
        # A cluster-scoped companion has no namespace to show (it printed "None/").
        same = companion.namespace in (None, namespace)
        where = "" if same else f"{companion.namespace}/"
        lines.append(f"    {index}. {companion.kind}/{where}{companion.name}  ({note})")
    refs = [c.ref for c in companions]
    spaces = [c.ref for c in companions if c.is_namespace]
    for offset, resource in enumerate(resources, start=index + 1):
        wait = waits.get(resource.role, "")
        deps = list(resource.depends_on) + companion_deps(resource.role, refs, spaces, first)
        after = f"after {', '.join(deps)}" if deps else ""
        note = "; ".join(x for x in (wait, after) if x)
        lines.append(f"    {offset}. {resource.ref}" + (f"  ({note})" if note else ""))
    return lines


def _sub_gang_lines(plan: JobPlan) -> list[str]:
    """The PodGroup's sub-groups, when the job's settings ask for them (kuberay/subgangs)."""
    if not plan.settings.sub_gangs:
        return []
    if not plan.sub_gangs:
        return [
            "  sub-gangs     none: no worker group has numOfHosts > 1 (raygang:subGangs "
            "changes nothing for this job)"
        ]
    head = "  sub-gangs     "
    return [
        f"{head if i == 0 else ' ' * len(head)}{g.summary()} (subGroupPolicy)"
        for i, g in enumerate(plan.sub_gangs)
    ]


def _gang_lines(gang: Gang, names: Sequence[str]) -> list[str]:
    """The gang's pods, per pod, and its minResources: the same for a job and a cluster."""
    rows = [["role", "group", "members", "reserved", *names]]
    for share in gang.shares:
        per = format_resource_list(share.per_pod)
        rows.append(
            [share.role, share.group, str(share.members), str(share.reserved)]
            + [per.get(n, "-") for n in names]
        )
    resources = ", ".join(f"{k} {v}" for k, v in gang.min_resources_strings().items()) or "{}"
    return ["  pods (per pod)", *_table(rows, "    "), f"  minResources  {resources}"]


def _cluster_table(
    cluster: PlannedCluster,
    companions: Sequence[Companion] = (),
    clusters: frozenset[str] = frozenset(),
) -> list[str]:
    plan = cluster.plan
    gang = plan.gang
    names = sorted({k for s in gang.shares for k in s.per_pod} | set(gang.min_resources))
    state = "suspended, " if plan.item.suspended else ""
    lines = [
        f"RayCluster {plan.namespace}/{plan.name}  ({state}a cluster of its own, "
        f"accounting {gang.accounting})",
        f"  source        {plan.item.source}",
        f"  PodGroup      {plan.podgroup_name}  queue {plan.queue or 'default (Volcano default)'}"
        + (" (created by this stack)" if plan.queue_declared else "")
        + (f"  priorityClass {plan.priority_class}" if plan.priority_class else ""),
    ]
    workers = sum(s.members for s in gang.shares if s.role == "worker")
    lines.append(f"  minMember     {gang.min_member}  (1 head + {workers} workers; no submitter)")
    lines += _gang_lines(gang, names)
    declared = (cluster.declared_min_member, cluster.declared_min_resources)
    if declared != (gang.min_member, gang.min_resources_strings()):
        now = ", ".join(f"{k} {v}" for k, v in declared[1].items()) or "{}"
        lines.append(f"  declared now  minMember {declared[0]}, minResources {now}")
    lines += [f"                - {d}" for d in plan.differences]
    lines += cluster.preflight.table_lines()
    lines += [f"  action        {a}" for a in cluster.actions]
    lines.append(f"  dashboard     {plan.dashboard_url}")
    # A suspended cluster has no pods to wait for.
    waits = {} if plan.item.suspended else _WAITS
    lines += _create_order(
        f"{plan.namespace}/{plan.name}",
        cluster.resources,
        companions,
        clusters,
        waits,
        first="podgroup",
    )
    return lines


def render_table(plan: StackPlan) -> str:
    """``raygang plan`` (the default format): a readable summary per job and per RayCluster
    of its own."""
    lines: list[str] = []
    clusters = cluster_keys(plan)
    for job in plan.jobs:
        lines += _job_table(job, plan.companions_of(job), clusters)
        lines.append("")
    for cluster in plan.clusters:
        lines += _cluster_table(cluster, plan.companions_of(cluster), clusters)
        lines.append("")
    if plan.queues:
        lines.append("Queues created by this stack: " + ", ".join(q.name for q in plan.queues))
    alone = [c for c in plan.companions if not c.jobs]
    if alone:
        lines.append(
            "Objects created by this stack for no RayJob (their files declare none): "
            + ", ".join(
                f"{c.kind}/{c.namespace + '/' if c.namespace else ''}{c.name}" for c in alone
            )
        )
    lines += [f"note: {i}" for i in plan.ignored]
    return "\n".join(lines).rstrip() + "\n"
