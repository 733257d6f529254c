"""The companion objects: checked, placed in a namespace, and tied to their file's jobs.

A companion (a ConfigMap, ServiceAccount, PVC, custom resource ...) belongs to its file: it
is created once, every RayJob and every RayCluster of its own of the file depends on it, and
without a namespace it goes to the namespace of the file's RayJobs and RayClusters
(``default`` when they have none, as kubectl would put both). A file whose RayJobs and
RayClusters are in several namespaces must name the companion's namespace. The same object
declared identically in two files is created once, for the jobs and clusters of both;
declared differently, it is an error. Stack config holds RayJobs and RayClusters only.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from raygang.kube.errors import MapKey, Problem, describe_hidden, describe_value, field_path
from raygang.kube.names import dns_problem, name_rules
from raygang.kube.objectnames import (
    API_VERSION_RULES,
    KIND_RULES,
    api_version_problem,
    kind_problem,
    object_name_problem,
    object_name_rules,
)
from raygang.kube.secretkind import SECRET_VALUE_FIELDS, is_core_secret
from raygang.loader.lists import list_without_items
from raygang.plan import CLUSTER_SCOPED_KINDS, Companion
from raygang.rayjob.raycluster import RayClusterInput
from raygang.rayjob.spec import RayJobInput

__all__ = ["canonical", "companion_problems", "companions", "group_of"]


def companion_problems(doc: Mapping[str, Any], source: str) -> list[Problem]:
    problems = []
    api = doc.get("apiVersion")
    if not isinstance(api, str) or not api:
        problems.append(
            Problem(source, "apiVersion", "is required but missing", "e.g. v1 or apps/v1")
        )
    elif (why := api_version_problem(api)) is not None:
        problems.append(Problem(source, "apiVersion", why, API_VERSION_RULES))
    kind = doc.get("kind")
    if not isinstance(kind, str):
        problems.append(
            Problem(source, "kind", f"{describe_value(kind)} is not a kind", "a string")
        )
    elif (why := kind_problem(kind)) is not None:
        problems.append(Problem(source, "kind", why, KIND_RULES))
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if not isinstance(name, str) or not name:
        generate = meta.get("generateName") if isinstance(meta, Mapping) else None
        why = (
            f"is missing; metadata.generateName ({generate!r}) is accepted on RayJobs only, "
            "since nothing could refer to a companion by a name made at creation"
            if generate
            else "is required but missing"
        )
        problems.append(Problem(source, "metadata.name", why, "the object's name"))
    elif isinstance(api, str) and isinstance(kind, str):
        group = api.rpartition("/")[0]
        if (why := object_name_problem(group, kind, name)) is not None:
            problems.append(Problem(source, "metadata.name", why, object_name_rules(group, kind)))
    namespace = meta.get("namespace") if isinstance(meta, Mapping) else None
    if namespace is not None and (not isinstance(namespace, str) or not namespace):
        problems.append(
            Problem(
                source,
                "metadata.namespace",
                f"{describe_value(namespace)} is not a namespace",
                "a namespace name, or none for the namespace of the file's RayJobs",
            )
        )
    elif isinstance(namespace, str) and (why := dns_problem(namespace, "DNS-1123 label", 63)):
        problems.append(
            Problem(source, "metadata.namespace", why, name_rules("DNS-1123 label", 63))
        )
    if list_without_items(doc):
        problems.append(
            Problem(
                source,
                "items",
                f"{describe_hidden(doc['items'])} is not a list",
                "a list of objects, as `kubectl get -o yaml` prints a List",
            )
        )
    if is_core_secret(doc):
        problems += _secret_value_problems(doc, source)
    return problems


_SECRET_ACCEPTED = {
    "data": "a map of keys to base64-encoded strings",
    "stringData": "a map of keys to strings",
}


def _secret_value_problems(doc: Mapping[str, Any], source: str) -> list[Problem]:
    """A Secret's value fields: maps of strings, described without a value in messages."""
    problems = []
    for name in SECRET_VALUE_FIELDS:
        value = doc.get(name)
        if value is None:
            continue
        if not isinstance(value, Mapping):
            problems.append(
                Problem(
                    source, name, f"{describe_hidden(value)} is not a map", _SECRET_ACCEPTED[name]
                )
            )
            continue
        for key, item in value.items():
            if item is not None and not isinstance(item, str):
                problems.append(
                    Problem(
                        source,
                        field_path([name, MapKey(str(key))]),
                        f"{describe_hidden(item)} is not a string",
                        _SECRET_ACCEPTED[name],
                    )
                )
    return problems


def group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def _users_word(users: Sequence[RayJobInput | RayClusterInput]) -> str:
    """What a file's companions serve, in words: its RayJobs, its RayClusters, or both."""
    kinds = {isinstance(u, RayClusterInput) for u in users}
    if kinds == {True}:
        return "RayClusters"
    return "RayJobs and RayClusters" if kinds == {False, True} else "RayJobs"


def companions(
    found: Sequence[tuple[str, str, Mapping[str, Any]]],
    jobs_by_group: Mapping[str, Sequence[RayJobInput | RayClusterInput]],
    cluster_scoped: Collection[tuple[str, str]] = (),
) -> tuple[list[Companion], list[Problem]]:
    """Companions with their namespace and users; one per object, whichever files declare it.

    ``jobs_by_group`` holds each file's RayJobs and RayClusters of their own, in input order:
    a RayCluster of its own takes its file's companions exactly as a RayJob does, and
    :attr:`Companion.jobs` names both by ``namespace/name`` (unique between the two:
    :func:`~raygang.loader.rayclusters.cluster_clashes` refuses a RayCluster named as a
    RayJob of its namespace).

    ``cluster_scoped`` adds (group, kind) pairs to the documented list
    (:data:`~raygang.plan.CLUSTER_SCOPED_KINDS`): what the API server's discovery reports
    when live facts are on.
    """
    problems: list[Problem] = []
    by_key: dict[tuple[str, str, str, str], Companion] = {}
    for source, group, doc in found:
        if group.startswith("stack config"):
            problems.append(
                Problem(
                    source,
                    "kind",
                    f"{doc['kind']} is not a RayJob or a RayCluster: raygang:jobs holds those only",
                    "a RayJob or a RayCluster here; other objects in a file named by "
                    "raygang:manifests",
                )
            )
            continue
        jobs = jobs_by_group.get(group, ())
        meta = dict(doc["metadata"])
        scope = (group_of(doc["apiVersion"]), doc["kind"])
        if "namespace" not in meta and not (
            scope in CLUSTER_SCOPED_KINDS or scope in cluster_scoped
        ):
            spaces = sorted({j.namespace for j in jobs}) or ["default"]
            if len(spaces) > 1:
                users = _users_word(jobs)
                problems.append(
                    Problem(
                        source,
                        "metadata.namespace",
                        f"is missing, and the {users} of this file are in several namespaces ("
                        + ", ".join(spaces)
                        + ")",
                        f"the namespace of the {users} that use it",
                    )
                )
                continue
            meta["namespace"] = spaces[0]
        companion = Companion(
            source, {**doc, "metadata": meta}, tuple(f"{j.namespace}/{j.name}" for j in jobs)
        )
        known = by_key.get(companion.key)
        if known is None:
            by_key[companion.key] = companion
        elif canonical(known.manifest) != canonical(companion.manifest):
            where = f"{companion.namespace}/" if companion.namespace else ""
            problems.append(
                Problem(
                    source,
                    "metadata.name",
                    f"{companion.kind} {where}{companion.name} is also declared differently in "
                    f"{known.source}; one of them would overwrite the other",
                    "one declaration per object, or another name",
                )
            )
        else:
            jobs_of_both = tuple(dict.fromkeys((*known.jobs, *companion.jobs)))
            by_key[companion.key] = Companion(known.source, known.manifest, jobs_of_both)
    return list(by_key.values()), problems


def canonical(manifest: Mapping[str, Any]) -> str:
    return json.dumps(manifest, sort_keys=True, separators=(",", ":"))
