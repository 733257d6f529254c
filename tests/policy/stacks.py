"""Stacks as a policy sees them, built from raygang's own plans: what the tests judge."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from raygang import load_files, plan_everything, read_stack_file
from raygang_policy.objects import UNKNOWN, StackResource

REPO = Path(__file__).resolve().parents[2]


def type_token(doc: Mapping[str, Any]) -> str:
    """``kubernetes:<apiVersion>:<Kind>`` as the kubernetes provider registers it."""
    version = str(doc["apiVersion"])
    return f"kubernetes:{version if '/' in version else 'core/' + version}:{doc['kind']}"


def resource(doc: Mapping[str, Any], name: str | None = None, parent: str = "") -> StackResource:
    """One Kubernetes object as a top-level resource (or a child of ``parent``'s type chain)."""
    token = type_token(doc)
    pname = name or str(doc["metadata"]["name"])
    chain = f"{parent}${token}" if parent else token
    return StackResource(
        token, f"urn:pulumi:test::proj::{chain}::{pname}", pname, copy.deepcopy(doc)
    )


def shipped_stack(stack: str) -> list[StackResource]:
    """A shipped stack's resources as `pulumi preview` registers them: queues, then each job's
    record, PodGroup, RayCluster and submitter as children of its RayJobGang, owned by the
    record (UID unknown at preview), the PodGroup's queue unknown (the Queue's output)."""
    settings = read_stack_file(REPO / "stacks" / f"Pulumi.{stack}.yaml")
    docs = load_files(
        [Path(m) for m in settings.manifests], settings.jobs, settings.queues, base=REPO
    )
    plan = plan_everything(docs, settings, base=REPO)
    queues: dict[str, StackResource] = {}
    children: list[StackResource] = []
    for job in plan.jobs:
        key = f"{job.plan.namespace}/{job.plan.name}"
        for planned in job.resources:
            doc = copy.deepcopy(dict(planned.manifest))
            if planned.role == "queue":
                queues.setdefault(doc["metadata"]["name"], resource(doc))
                continue
            if planned.role == "podgroup":
                # The PodGroup's queue is the VolcanoQueue's output: unknown at preview.
                doc["spec"] = {**doc["spec"], "queue": UNKNOWN}
            if planned.owned:
                doc["metadata"] = dict(doc["metadata"])
                doc["metadata"]["ownerReferences"] = [
                    {"apiVersion": "v1", "kind": "ConfigMap", "name": job.plan.name, "uid": UNKNOWN}
                ]
            children.append(resource(doc, f"{key}-{planned.role}", "raygang:index:RayJobGang"))
    return [*queues.values(), *children]


def find(resources: Iterable[StackResource], kind: str) -> StackResource:
    """The first resource of that kind."""
    return next(r for r in resources if r.kind == kind)
