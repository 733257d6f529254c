"""The action lines of a run: what it changes, object by object, compared to the facts.

A controller acts and then reports; raygang reports before Pulumi acts, one line per
object the declared set changes (creates, updates, replaces or deletes), from the job
record to the submitter Job. The PodGroup's gang is compared as KubeRay's Volcano adapter
compares it before updating (``quotav1.Equals`` in ``syncPodGroup``,
``ray-operator/controllers/ray/batchscheduler/volcano/volcano_scheduler.go`` v1.7.0), and
the RayCluster's spec as parsed models, so what the API server defaults makes no difference.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from raygang.kube.quantity import Quantity, QuantityError
from raygang.kuberay.jobplan import JobPlan, PlannedResource
from raygang.kuberay.manifests import RECORD_FINISHED_AT, RECORD_RESULT
from raygang.lifecycle.facts.model import JobFacts
from raygang.lifecycle.scheduling import scheduling_changes
from raygang.rayjob.spec import RayClusterSpec

__all__ = ["diff"]


def _same_resources(live: Mapping[str, str] | None, declared: Mapping[str, str]) -> bool:
    """quotav1.Equals: the same names, numerically equal (``1Gi`` == ``1024Mi``)."""
    live = live or {}
    if set(live) != set(declared):
        return False
    try:
        return all(Quantity.parse(live[k]) == Quantity.parse(v) for k, v in declared.items())
    except QuantityError:
        return dict(live) == dict(declared)


def _gang_text(min_member: int, resources: Mapping[str, str]) -> str:
    parts = [f"minMember {min_member}"] + [f"{k} {v}" for k, v in sorted(resources.items())]
    return ", ".join(parts) if resources else f"minMember {min_member}, minResources {{}}"


def diff(
    plan: JobPlan,
    facts: JobFacts,
    declared: Mapping[str, PlannedResource],
    why: Mapping[str, str],
    record_data: Mapping[str, str],
    attempt: int,
) -> list[str]:
    """One line per object this run changes, comparing the declared objects to the facts."""
    out: list[str] = []
    name = plan.name
    rec = declared.get("record")
    if rec is not None:
        if facts.own_record is None:
            out.append(f"create ConfigMap/{name} (job record)")
        else:
            old = facts.own_record.values
            changed = [
                f"{_short(k)} {old.get(k, '-')} -> {v}"
                for k, v in record_data.items()
                if old.get(k) != v
            ]
            changed += [
                f"{_short(k)} {old[k]} -> -"
                for k in (RECORD_FINISHED_AT, RECORD_RESULT)
                if k in old and k not in record_data
            ]
            if changed:
                out.append(f"update job record ConfigMap/{name}: " + ", ".join(changed))
    pg = declared.get("podgroup")
    live_pg = facts.podgroup
    if pg is None and live_pg is not None:
        out.append(f"delete PodGroup/{live_pg.name} ({why.get('podgroup', 'no longer declared')})")
    elif pg is not None:
        spec = pg.manifest.get("spec") or {}
        member, resources = int(spec.get("minMember", 0)), dict(spec.get("minResources") or {})
        if live_pg is None:
            out.append(f"create PodGroup/{pg.name} ({_gang_text(member, resources)})")
        else:
            for spec_field, _, was, wanted in scheduling_changes(pg, live_pg):
                out.append(
                    f"replace PodGroup/{pg.name}: spec.{spec_field} {was!r} -> {wanted!r} "
                    "(Volcano reads it only at creation)"
                )
            if live_pg.min_member != member or not _same_resources(
                live_pg.min_resources, resources
            ):
                out.append(
                    f"set PodGroup/{pg.name} to {_gang_text(member, resources)} (was "
                    f"{_gang_text(live_pg.min_member, live_pg.min_resources or {})})"
                    + (f": {why['podgroup']}" if "podgroup" in why else "")
                )
    rc = declared.get("raycluster")
    live_rc = facts.cluster
    if rc is None and live_rc is not None and not live_rc.deleting:
        out.append(
            f"delete RayCluster/{live_rc.name} ({why.get('raycluster', 'no longer declared')})"
        )
    elif rc is not None:
        if live_rc is None:
            out.append(f"create RayCluster/{rc.name}")
        elif (live_rc.attempt or 1) != attempt:
            out.append(f"replace RayCluster/{rc.name} for attempt {attempt} (fresh pods)")
        elif live_rc.deleting:
            out.append(f"create RayCluster/{rc.name} again once its deletion completes")
        else:
            groups = rc.manifest.get("spec", {}).get("workerGroupSpecs") or []
            if (
                groups
                and all(g.get("suspend") is True for g in groups)
                and not live_rc.workers_suspended
            ):
                out.append(
                    f"suspend every worker group of RayCluster/{rc.name} "
                    f"({why.get('raycluster', '')})"
                )
            elif (
                groups
                and all(g.get("replicas") == 0 and g.get("minReplicas") == 0 for g in groups)
                and not live_rc.workers_scaled_to_zero
            ):
                out.append(
                    f"scale every worker group of RayCluster/{rc.name} to zero "
                    f"({why.get('raycluster', '')})"
                )
            elif live_rc.spec is not None and _parsed_cluster(rc) not in (None, live_rc.spec):
                # Compared as parsed models, so defaults the API server filled in and fields
                # raygang does not read make no difference.
                out.append(f"update RayCluster/{rc.name} (its spec changed)")
    job = declared.get("submitter")
    live_job = facts.submitter
    if job is None and live_job is not None:
        out.append(f"delete Job/{live_job.name} ({why.get('submitter', 'no longer declared')})")
    elif job is not None:
        sid = _declared_sid(job)
        if live_job is None:
            out.append(f"create Job/{job.name} (submits {sid})")
        elif (live_job.attempt or 1) != attempt or (
            sid and live_job.submission_id and live_job.submission_id != sid
        ):
            out.append(f"replace Job/{job.name} (submits {sid}, attempt {attempt})")
    return out


def _parsed_cluster(resource: PlannedResource) -> RayClusterSpec | None:
    try:
        return RayClusterSpec.model_validate(resource.manifest.get("spec") or {})
    except ValidationError:
        return None


def _declared_sid(resource: PlannedResource) -> str | None:
    template = resource.manifest.get("spec", {}).get("template", {})
    for container in template.get("spec", {}).get("containers") or []:
        for env in container.get("env") or []:
            if env.get("name") == "RAY_JOB_SUBMISSION_ID":
                return str(env.get("value"))
    return None


def _short(key: str) -> str:
    """A record annotation's name without the ``raygang.dev/`` prefix, for action lines."""
    return key.rpartition("/")[2]
