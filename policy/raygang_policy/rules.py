"""The pack's rules, each a pure function over the stack's resources: no policy SDK here.

Every rule judges with raygang's planning (:mod:`raygang_policy.gangs`): the gang arithmetic
(``raygang.kuberay.gang``, both accountings), KubeRay's validation (raygang's loader) and the
preflight (``raygang.preflight``, Volcano's words). A rule that needs a field whose value is
unknown at preview says it cannot judge yet (an unjudged :class:`Finding`, which the wrapper
reports as advisory); a rule never raises on malformed input, it names the field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from raygang import (
    GROUP_NAME_ANNOTATION,
    SCHEDULER,
    TASK_SPEC_ANNOTATION,
    Quantity,
    QuantityError,
    SpecError,
    format_resource_list,
    load_snapshot,
)

from raygang_policy.gangs import (
    KUBERAY_SCHEDULER_LABEL,
    Gang,
    is_podgroup,
    loose_cluster_problems,
    plan_gangs,
)
from raygang_policy.objects import UNKNOWN, Finding, StackResource, dig, unknown_paths
from raygang_policy.settings import PackSettings

__all__ = [
    "StackRule",
    "admissible",
    "kuberay_validation",
    "no_cluster_admin",
    "pod_group_annotations",
    "podgroup_gang",
    "queue_exists",
    "raygang_records",
    "submitter_not_member",
    "unneeded_token",
]

StackRule = Callable[[Sequence[StackResource], PackSettings], list[Finding]]

_CANNOT_JUDGE = (
    "cannot judge {what} yet: {fields} unknown until the update creates what they depend on"
)


def _not_yet(gang: Gang, fields: Sequence[str]) -> Finding:
    return Finding(
        _CANNOT_JUDGE.format(what=gang.source, fields=", ".join(fields)),
        gang.anchor.urn,
        judged=False,
    )


def _planned(
    resources: Sequence[StackResource], settings: PackSettings, admission: bool = False
) -> tuple[list[Gang], list[Finding]]:
    """The planned gangs, and a not-judged finding per gang with unknown fields; with
    ``admission``, also the gangs whose queue or priority is unknown are not judged."""
    gangs, _ = plan_gangs(resources, settings)
    judged: list[Gang] = []
    not_yet: list[Finding] = []
    for g in gangs:
        fields = [*g.unknown, *(g.admission_unknown if admission else ())]
        if fields:
            not_yet.append(_not_yet(g, fields))
        elif g.plan is not None:
            judged.append(g)
    return judged, not_yet


# --- KubeRay's validation -------------------------------------------------------------------


def kuberay_validation(resources: Sequence[StackResource], settings: PackSettings) -> list[Finding]:
    """What KubeRay or the API server would refuse in a gang's RayCluster, RayJob, submitter
    or PodGroup, or in any other RayCluster of the stack (raygang's loader), and the pack
    settings it could not read, field by field."""
    gangs, stack_problems = plan_gangs(resources, settings)
    findings = [Finding(p) for p in stack_problems]
    findings += [Finding(p, r.urn) for r, p in loose_cluster_problems(resources, gangs)]
    for gang in gangs:
        findings += [Finding(p, gang.anchor.urn) for p in gang.problems]
        if gang.unknown:
            findings.append(_not_yet(gang, gang.unknown))
    return findings


# --- the PodGroup's numbers -------------------------------------------------------------------


def _declared_min_member(pg: StackResource) -> tuple[int | None, str]:
    spec = pg.props.get("spec")
    if not isinstance(spec, Mapping):
        return None, f"spec: is {spec!r}, not a map with minMember and minResources"
    value = spec.get("minMember")
    if value is None:
        return None, "spec.minMember: is missing (Volcano reads it as 0: no gang at all)"
    if isinstance(value, bool) or not isinstance(value, int):
        return None, f"spec.minMember: is {value!r}, not an integer"
    return value, ""


def _declared_min_resources(pg: StackResource) -> tuple[dict[str, str] | None, list[str]]:
    raw = pg.spec.get("minResources")
    if raw is None:
        return {}, []
    if not isinstance(raw, Mapping):
        return None, [f"spec.minResources: is {raw!r}, not a map of resource quantities"]
    parsed: dict[str, Quantity] = {}
    errors: list[str] = []
    for key, value in raw.items():
        try:
            parsed[str(key)] = Quantity.parse(value)
        except (QuantityError, TypeError) as exc:
            errors.append(f"spec.minResources[{key!r}]: {exc}")
    return (None, errors) if errors else (format_resource_list(parsed), [])


def _diff(declared: Mapping[str, str], want: Mapping[str, str]) -> list[str]:
    lines = []
    for key in sorted(set(declared) | set(want)):
        have, need = declared.get(key, "missing"), want.get(key, "missing")
        if have != need:
            lines.append(f"{key} {have} (want {need})")
    return lines


def podgroup_gang(resources: Sequence[StackResource], settings: PackSettings) -> list[Finding]:
    """A declared PodGroup whose ``minMember``/``minResources`` match neither KubeRay's
    adapter nor raygang's effective accounting of the RayCluster (and submitter) it groups."""
    gangs, findings = _planned(resources, settings)
    for gang in gangs:
        pg, plan = gang.podgroup, gang.plan
        if pg is None or plan is None:
            continue
        members, member_error = _declared_min_member(pg)
        declared, resource_errors = _declared_min_resources(pg)
        errors = [member_error] if member_error else []
        errors += [] if member_error.startswith("spec:") else resource_errors
        if errors:
            findings += [Finding(f"{pg.title()}: {e}", pg.urn) for e in errors]
            continue
        assert members is not None and declared is not None
        accountings = {
            "KubeRay's adapter": plan.plan.kuberay_gang,
            "the effective accounting": plan.plan.gang,
        }
        if any(
            members == g.min_member and declared == g.min_resources_strings()
            for g in accountings.values()
        ):
            continue
        grouped = ", ".join(r.title() for r in (gang.cluster, *gang.submitters) if r)
        shown = ", ".join(f"{k} {v}" for k, v in declared.items()) or "none"
        lines = [
            f"{pg.title()} does not match the gang of {grouped}: declared minMember "
            f"{members}, minResources {shown}"
        ]
        for label, g in accountings.items():
            diff = []
            if members != g.min_member:
                diff.append(f"minMember {members} (want {g.min_member})")
            diff += _diff(declared, g.min_resources_strings())
            lines.append(f"  {label}: {g.summary()}; differs in: {'; '.join(diff)}")
        findings.append(Finding("\n".join(lines), pg.urn))
    return findings


def submitter_not_member(
    resources: Sequence[StackResource], settings: PackSettings
) -> list[Finding]:
    """A PodGroup whose ``minMember`` counts the submitter Job's pod: KubeRay creates the
    submitter only once the RayCluster is ready, and Volcano admits the RayCluster's pods only
    once ``minMember`` pods exist, so neither ever starts."""
    gangs, findings = _planned(resources, settings)
    for gang in gangs:
        pg, plan = gang.podgroup, gang.plan
        if pg is None or plan is None or not gang.submitters:
            continue
        members, _ = _declared_min_member(pg)
        ray_pods = plan.plan.kuberay_gang.min_member
        if members is None or not ray_pods < members <= ray_pods + len(gang.submitters):
            continue
        jobs = ", ".join(j.title() for j in gang.submitters)
        findings.append(
            Finding(
                f"{pg.title()}: spec.minMember {members} counts the submitter ({jobs}) as a "
                f"member: the RayCluster has {ray_pods} pods in the gang, and the submitter is "
                "created only after they run, while Volcano holds them until "
                f"{members} pods exist (the start-up deadlock KubeRay's Volcano adapter "
                f"avoids). Fix: minMember {ray_pods}; keep the submitter's resources in "
                "minResources.",
                pg.urn,
            )
        )
    return findings


# --- admission -------------------------------------------------------------------------------


def admissible(resources: Sequence[StackResource], settings: PackSettings) -> list[Finding]:
    """A gang raygang's preflight finds Volcano can never admit as declared (against the
    stack's node shapes or cluster snapshot), in Volcano's words."""
    gangs, findings = _planned(resources, settings, admission=True)
    for gang in gangs:
        result = gang.plan.preflight if gang.plan else None
        if result is None or not result.never_admitted:
            continue
        reasons = "\n  ".join(result.reasons)
        findings.append(
            Finding(
                f"{gang.source} can never be admitted as declared:\n  {reasons}", gang.anchor.urn
            )
        )
    return findings


def queue_exists(resources: Sequence[StackResource], settings: PackSettings) -> list[Finding]:
    """A gang whose queue is neither declared in the stack nor known to exist (the cluster
    snapshot's queues, ``knownQueues``, Volcano's ``default``): Volcano's webhook refuses its
    PodGroup."""
    gangs, findings = _planned(resources, settings, admission=True)
    for gang in gangs:
        plan = gang.plan
        result = plan.preflight if plan else None
        check = result.check("queue") if result else None
        if plan is None or check is None or check.status == "pass":
            continue
        name = plan.plan.queue or "default"
        if check.status == "fail":
            findings.append(Finding(f"{gang.source}: {check.message}", gang.anchor.urn))
        elif name not in settings.known_queues:
            where = "spec.queue" if gang.podgroup is not None else "metadata.labels"
            findings.append(
                Finding(
                    f"{gang.source}: {where}: queue {name} is neither declared in this stack "
                    "nor known to exist (list it in knownQueues, or give a cluster snapshot): "
                    "Volcano's webhook refuses a PodGroup whose queue does not exist",
                    gang.anchor.urn,
                )
            )
    return findings


# --- the pods' annotations ---------------------------------------------------------------------


def _snapshot_groups(settings: PackSettings) -> tuple[set[tuple[str, str]], bool]:
    """The PodGroups of the cluster snapshot as ``(namespace, name)``; and whether it was read."""
    if not settings.cluster_snapshot:
        return set(), False
    path = Path(settings.cluster_snapshot)
    try:
        snapshot = load_snapshot(path if path.is_absolute() else settings.base / path)
    except SpecError:
        return set(), False  # the validation policy reports the unreadable snapshot
    groups = set()
    for pg in snapshot.of_kind("PodGroup"):
        namespace, name = dig(pg, "metadata", "namespace"), dig(pg, "metadata", "name")
        groups.add((str(namespace or ""), str(name)))
    return groups, True


def _expected_task_specs(gang: Gang) -> dict[str, str]:
    """``role/group`` → the ``volcano.sh/task-spec`` raygang's gang gives that pod."""
    assert gang.plan is not None
    expected = {}
    for share in gang.plan.plan.kuberay_gang.shares:
        expected[f"{share.role}/{share.group if share.role == 'worker' else ''}"] = share.group
    return expected


def pod_group_annotations(
    resources: Sequence[StackResource], settings: PackSettings
) -> list[Finding]:
    """Ray pods with ``schedulerName: volcano`` but no ``scheduling.k8s.io/group-name``, or a
    group no PodGroup of the stack or the cluster snapshot provides; ``volcano.sh/task-spec``
    missing or not the group KubeRay's adapter gives that pod."""
    findings: list[Finding] = []
    declared = {(str(r.namespace), r.object_name) for r in resources if is_podgroup(r)}
    cluster_groups, have_snapshot = _snapshot_groups(settings)
    gangs, _ = plan_gangs(resources, settings)
    task_specs = {
        id(member): _expected_task_specs(g)
        for g in gangs
        if g.plan is not None and g.podgroup is not None
        for member in (g.cluster, *g.submitters)
    }
    for r in resources:
        ray = r.is_kind("ray.io", "RayCluster") or r.is_kind("ray.io", "RayJob")
        if not ray and not r.is_kind("batch", "Job"):
            continue
        if r.labels.get(KUBERAY_SCHEDULER_LABEL) == "volcano":
            continue  # KubeRay's adapter annotates these pods itself
        for t in r.pod_templates():
            scheduler = t.spec.get("schedulerName")
            group = t.annotations.get(GROUP_NAME_ANNOTATION)
            at = f"{r.title()}: {t.path}"
            if scheduler is UNKNOWN or group is UNKNOWN:
                findings.append(
                    Finding(
                        _CANNOT_JUDGE.format(what=at, fields="schedulerName or group-name"),
                        r.urn,
                        judged=False,
                    )
                )
                continue
            if scheduler != SCHEDULER or (not ray and group is None):
                continue
            if group is None:
                findings.append(
                    Finding(
                        f"{at}.metadata.annotations: schedulerName volcano without "
                        f"{GROUP_NAME_ANNOTATION}: Volcano gives each such pod a PodGroup of "
                        "its own, so the Ray pods are not a gang (some may run while the rest "
                        "wait forever)",
                        r.urn,
                    )
                )
                continue
            key = (str(r.namespace), group)
            if key not in declared and key not in cluster_groups:
                seen = (
                    "nor does the cluster snapshot hold it"
                    if have_snapshot
                    else ("and no cluster snapshot shows it")
                )
                findings.append(
                    Finding(
                        f"{at}.metadata.annotations[{GROUP_NAME_ANNOTATION}]: names PodGroup "
                        f"{group}, which this stack does not declare, {seen}: the pods stay "
                        "Pending",
                        r.urn,
                    )
                )
                continue
            expected = task_specs.get(id(r), {}).get(f"{t.role}/{t.group}")
            if expected is None:
                continue
            task = t.annotations.get(TASK_SPEC_ANNOTATION)
            if task is UNKNOWN:
                continue
            if task != expected:
                have = "is missing" if task is None else f"is {task!r}"
                findings.append(
                    Finding(
                        f"{at}.metadata.annotations[{TASK_SPEC_ANNOTATION}]: {have}; KubeRay's "
                        f"Volcano adapter gives this pod {expected!r} (the task Volcano's gang "
                        "plugin counts it in)",
                        r.urn,
                    )
                )
    return findings


# --- security (one resource at a time) -----------------------------------------------------------


def unneeded_token(resource: StackResource) -> list[Finding]:
    """A Ray or submitter pod that runs as a named ServiceAccount and mounts its token without
    needing it: only a head with the in-tree autoscaler talks to the API server (the
    autoscaler scales the RayCluster); workers and the submitter (which talks to the Ray
    dashboard over HTTP) never do. The ``default`` ServiceAccount has no RBAC rights unless
    someone grants them, so only a named one is reported."""
    findings: list[Finding] = []
    autoscaling = False
    if resource.is_kind("ray.io", "RayCluster"):
        autoscaling = resource.spec.get("enableInTreeAutoscaling") is True
    elif resource.is_kind("ray.io", "RayJob"):
        autoscaling = dig(resource.spec, "rayClusterSpec", "enableInTreeAutoscaling") is True
    for t in resource.pod_templates():
        if resource.is_kind("batch", "Job") and GROUP_NAME_ANNOTATION not in t.annotations:
            continue  # not a Ray submitter: some other Job's business
        account = t.spec.get("serviceAccountName") or t.spec.get("serviceAccount")
        mount = t.spec.get("automountServiceAccountToken")
        if account is UNKNOWN or mount is UNKNOWN:
            findings.append(
                Finding(
                    _CANNOT_JUDGE.format(
                        what=f"{resource.title()}: {t.path}",
                        fields="serviceAccountName or automountServiceAccountToken",
                    ),
                    resource.urn,
                    judged=False,
                )
            )
            continue
        if not account or account == "default" or mount is False:
            continue
        if t.role == "head" and autoscaling:
            continue
        findings.append(
            Finding(
                f"{resource.title()}: {t.path}.spec: the {t.role} pod mounts the token of "
                f"ServiceAccount {account} and never calls the Kubernetes API; set "
                "automountServiceAccountToken: false",
                resource.urn,
            )
        )
    return findings


def no_cluster_admin(resource: StackResource) -> list[Finding]:
    """A RoleBinding or ClusterRoleBinding (a companion of the jobs, say) that grants
    ``cluster-admin``: no Ray workload needs every right on the cluster."""
    rbac = "rbac.authorization.k8s.io"
    if not (resource.is_kind(rbac, "RoleBinding") or resource.is_kind(rbac, "ClusterRoleBinding")):
        return []
    ref = resource.props.get("roleRef")
    name = dig(ref, "name")
    if name is UNKNOWN:
        return [
            Finding(
                _CANNOT_JUDGE.format(what=resource.title(), fields="roleRef.name"),
                resource.urn,
                judged=False,
            )
        ]
    if name != "cluster-admin" or dig(ref, "kind") != "ClusterRole":
        return []
    subjects = resource.props.get("subjects")
    who = (
        ", ".join(f"{dig(s, 'kind')} {dig(s, 'name')}" for s in subjects if isinstance(s, Mapping))
        if isinstance(subjects, list)
        else "its subjects"
    )
    return [
        Finding(
            f"{resource.title()}: roleRef: binds ClusterRole cluster-admin to {who or 'nobody'}; "
            "grant a Role with the verbs the workload uses instead",
            resource.urn,
        )
    ]


# --- raygang's own resources --------------------------------------------------------------------

_COMPONENT = "raygang:index:RayJobGang"
_OWNED_ROLES = ("podgroup", "raycluster", "submitter")


def _component_child(r: StackResource) -> tuple[str, str] | None:
    """``(job key, role)`` for a child of a RayJobGang (URN ``...RayJobGang$kubernetes:...``,
    name ``<namespace>/<job>-<role>``)."""
    parts = r.urn.split("::")
    if len(parts) < 4 or f"{_COMPONENT}$" not in parts[2]:
        return None
    key, _, role = r.name.rpartition("-")
    return (key, role) if key else None


def raygang_records(resources: Sequence[StackResource], settings: PackSettings) -> list[Finding]:
    """raygang's own resources: one job record (ConfigMap) per RayJobGang and per job name, and
    an ownerReference to it on the job's PodGroup, RayCluster and submitter Job (so deleting
    the record takes them along, as deleting a RayJob does)."""
    del settings
    findings: list[Finding] = []
    jobs: dict[str, dict[str, list[StackResource]]] = {}
    for r in resources:
        child = _component_child(r)
        if child is not None:
            key, role = child
            jobs.setdefault(key, {}).setdefault(role, []).append(r)
    records_by_name: dict[tuple[str, object], list[StackResource]] = {}
    for key, roles in jobs.items():
        records = roles.get("record", [])
        if len(records) != 1:
            findings.append(Finding(f"RayJobGang {key}: has {len(records)} job records, not one"))
            continue
        record = records[0]
        records_by_name.setdefault((str(record.namespace), record.object_name), []).append(record)
        for role in _OWNED_ROLES:
            for owned in roles.get(role, []):
                refs = owned.metadata.get("ownerReferences")
                if refs is UNKNOWN or unknown_paths(dig(refs, 0, "name")):
                    findings.append(
                        Finding(
                            _CANNOT_JUDGE.format(
                                what=owned.title(), fields="metadata.ownerReferences"
                            ),
                            owned.urn,
                            judged=False,
                        )
                    )
                    continue
                if not isinstance(refs, list) or not any(
                    dig(ref, "kind") == "ConfigMap" and dig(ref, "name") == record.object_name
                    for ref in refs
                ):
                    findings.append(
                        Finding(
                            f"{owned.title()}: metadata.ownerReferences: has no reference to "
                            f"its job record ConfigMap {record.object_name}: deleting the job "
                            "would leave it behind",
                            owned.urn,
                        )
                    )
    for (namespace, name), records in records_by_name.items():
        if len(records) > 1:
            findings += [
                Finding(
                    f"{r.title()}: metadata.name: {len(records)} RayJobGangs write the job "
                    f"record {namespace}/{name}: one record per job",
                    r.urn,
                )
                for r in records
            ]
    return findings
