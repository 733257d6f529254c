"""Semantic checks on a RayJob, reported all together with the structural ones.

Structural problems (wrong types, missing fields, bad quantities) are found when the model
is built (:mod:`raygang.rayjob.spec`). This module refuses what KubeRay's validation, Volcano's
CRDs and webhooks, or Kubernetes' own pod and Job validation would refuse later: at apply
time or, worse, silently at run time, while the PodGroup holds queue capacity.

The checks read the *raw* manifest through tolerant accessors (a value of the wrong type
reads as absent), so they run even when the structural validation failed, and
:func:`load_rayjob` can report both kinds of problem of one document in one go.

Decisions documented here:

* A ``volcano.sh/queue-name`` label with an empty value is refused. KubeRay would copy it
  into ``PodGroup.spec.queue: ""``, which Volcano's CRD refuses (the DNS-1123 pattern does
  not match ""); omitting the label gives Volcano's ``default`` queue.
* A queue referenced by a job but declared nowhere is accepted: it is assumed to exist.
* ``metadata.generateName`` is refused: every derived name (``ray-<job>-pg``, the
  RayCluster, the submitter Job) must be known at preview time.
* Job names are capped at 47 characters, KubeRay's limit for RayJob names, which also keeps
  ``<job>-head-svc`` and the RayCluster name within their limits.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from raygang.kube import goquote, goyaml
from raygang.kube.bashsyntax import bash_syntax_error
from raygang.kube.core import INT32_MAX
from raygang.kube.errors import Problem, SpecError, describe_value
from raygang.kube.names import (
    KEY_RULES,
    LABEL_VALUE_RULES,
    MAX_LABEL_VALUE,
    dns_problem,
    label_key_problem,
    label_value_problem,
    name_rules,
)
from raygang.kube.quantity import Quantity, QuantityError, parse_manifest_quantity
from raygang.rayjob.deletion import deletion_strategy_problems
from raygang.rayjob.spec import RayJobInput, parse_rayjob

__all__ = [
    "MAX_JOB_NAME",
    "check_rayjob",
    "dns_problem",
    "label_key_problem",
    "label_value_problem",
    "load_rayjob",
    "manifest_problems",
    "name_rules",
]


_JOB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")

_VERSION = re.compile(r"v?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?")

# KubeRay's MaxRayJobNameLength. raygang names the RayCluster and the submitter Job after
# the job, and derives <job>-head-svc (a 63-character DNS-1035 label) and ray-<job>-pg.
MAX_JOB_NAME = 47

# The job record ConfigMap keeps the manifest in an annotation, and an object's annotations
# hold at most 256 KiB. This is the quick refusal of a far too large input; the plan checks
# the record's exact size (raygang.plan).
MAX_MANIFEST_BYTES = 256 * 1024

SUPPORTED_MODES = ("K8sJobMode", "SidecarMode", "InteractiveMode")

QUEUE_LABEL = "volcano.sh/queue-name"

PRIORITY_LABEL = "ray.io/priority-class-name"

TIER_LABEL = "volcano.sh/network-topology-highest-tier-allowed"

MODE_LABEL = "volcano.sh/network-topology-mode"

FT_ANNOTATION = "ray.io/ft-enabled"

EXTERNAL_STORAGE_ANNOTATION = "ray.io/external-storage-namespace"

SIDECAR_CONTAINER = "ray-job-submitter"

MANAGED_BY = ("ray.io/kuberay-operator", "kueue.x-k8s.io/multikueue")

AUTOSCALER_V2_ENV = "RAY_enable_autoscaler_v2"

FLOAT32_MAX = 3.4028234663852886e38


# --- tolerant accessors: a value of the wrong type reads as absent ----------------------
def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _str_map(value: object) -> dict[str, str]:
    return {k: v for k, v in _map(value).items() if isinstance(k, str) and isinstance(v, str)}


def _quantity(value: object) -> Quantity | None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    try:
        return parse_manifest_quantity(value)
    except QuantityError:
        return None


def _env(container: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for entry in _list(container.get("env")):
        name, value = _str(_map(entry).get("name")), _str(_map(entry).get("value"))
        if name is not None:
            out[name] = value or ""
    return out


def _version_below(text: str, major: int, minor: int, patch: int) -> bool | None:
    match = _VERSION.match(text.strip())
    if not match:
        return None
    found = (int(match[1]), int(match[2]), int(match[3] or 0))
    return found < (major, minor, patch)


class _Checker:
    """Collects problems for one document."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.out: list[Problem] = []

    def bad(self, path: str, message: str, accepted: str = "") -> None:
        self.out.append(Problem(self.source, path, message, accepted))

    def whole(self, path: str, value: object, low: int, what: str = "") -> int | None:
        """Check an int32 field: ``low`` to INT32_MAX."""
        number = _int(value)
        if number is not None and not low <= number <= INT32_MAX:
            side = f"less than {low}" if number < low else f"more than {INT32_MAX} (int32)"
            self.bad(
                path,
                f"{describe_value(number)} is {side}{what}",
                f"a whole number from {low} to {INT32_MAX}",
            )
            return None
        return number


# --- metadata --------------------------------------------------------------------------
def _check_metadata(c: _Checker, meta: Mapping[str, Any]) -> None:
    name = meta.get("name")
    generate = _str(meta.get("generateName"))
    if name is None or name == "":
        if generate is not None:
            c.bad(
                "metadata.name",
                f"is missing and metadata.generateName ({generate!r}) is not supported: "
                "raygang derives fixed names from it (RayCluster <name>, PodGroup "
                "ray-<name>-pg, Service <name>-head-svc) that must be known at preview",
                f"metadata.name: {name_rules('DNS-1035 label', MAX_JOB_NAME)}",
            )
        else:
            c.bad(
                "metadata.name",
                "is required but missing",
                name_rules("DNS-1035 label", MAX_JOB_NAME),
            )
    elif isinstance(name, str):
        why = dns_problem(name, "DNS-1035 label", MAX_JOB_NAME)
        if why:
            c.bad(
                "metadata.name",
                f"{why}; KubeRay caps RayJob names at {MAX_JOB_NAME} and raygang derives the "
                "RayCluster <name>, <name>-head-svc and ray-<name>-pg from it",
                name_rules("DNS-1035 label", MAX_JOB_NAME),
            )
    if "namespace" in meta and isinstance(meta["namespace"], str):
        why = dns_problem(meta["namespace"], "DNS-1123 label", 63)
        if why:
            c.bad(
                "metadata.namespace",
                why,
                name_rules("DNS-1123 label", 63) + "; omit it for the default namespace",
            )
    _check_labels(c, "metadata.labels", meta.get("labels"))
    _check_annotation_keys(c, "metadata.annotations", meta.get("annotations"))
    labels = _str_map(meta.get("labels"))
    _check_scheduling_labels(c, labels)


def _check_labels(c: _Checker, path: str, raw: object) -> None:
    for key, value in _map(raw).items():
        if not isinstance(key, str):
            continue
        where = f"{path}[{key!r}]"
        why = label_key_problem(key)
        if why:
            c.bad(where, f"label key {why}", KEY_RULES)
        if isinstance(value, str):
            why = label_value_problem(value)
            if why:
                c.bad(where, f"label value {why}", LABEL_VALUE_RULES)


def _check_annotation_keys(c: _Checker, path: str, raw: object) -> None:
    for key in _map(raw):
        if isinstance(key, str) and (why := label_key_problem(key)):
            c.bad(f"{path}[{key!r}]", f"annotation key {why}", KEY_RULES)


def _check_scheduling_labels(c: _Checker, labels: Mapping[str, str]) -> None:
    if QUEUE_LABEL in labels:
        queue = labels[QUEUE_LABEL]
        where = f"metadata.labels[{QUEUE_LABEL!r}]"
        if queue == "":
            c.bad(
                where,
                "is empty: KubeRay would set the PodGroup's spec.queue to \"\", which Volcano's "
                "CRD refuses",
                "a queue name, or no label at all for Volcano's default queue",
            )
        else:
            why = dns_problem(queue, "DNS-1123 subdomain", MAX_LABEL_VALUE)
            if why:
                c.bad(
                    where,
                    f"queue name {why}",
                    name_rules("DNS-1123 subdomain", MAX_LABEL_VALUE)
                    + " (a queue name travels as a label value)",
                )
    priority = labels.get(PRIORITY_LABEL)
    if priority:
        why = dns_problem(priority, "DNS-1123 subdomain", MAX_LABEL_VALUE)
        if why:
            c.bad(
                f"metadata.labels[{PRIORITY_LABEL!r}]",
                f"PriorityClass name {why}",
                name_rules("DNS-1123 subdomain", MAX_LABEL_VALUE),
            )
    tier = labels.get(TIER_LABEL)
    # KubeRay parses the tier with strconv.Atoi, and only when the mode label is set. A
    # sign is never in a valid label value, which the label check reports on its own.
    atoi_fails = tier is not None and not (tier.isdigit() and tier.isascii())
    if MODE_LABEL in labels and tier is not None and atoi_fails and not label_value_problem(tier):
        c.bad(
            f"metadata.labels[{TIER_LABEL!r}]",
            f"failed to convert {TIER_LABEL} label to int: {tier!r} is not an integer",
            "a whole number such as 1 or 2",
        )
    if MODE_LABEL in labels and labels[MODE_LABEL] not in ("hard", "soft"):
        c.bad(
            f"metadata.labels[{MODE_LABEL!r}]",
            f"{labels[MODE_LABEL]!r} is not a network topology mode (Volcano's CRD would "
            "refuse it)",
            "hard or soft",
        )


# --- pods ------------------------------------------------------------------------------
def _is_extended(name: str) -> bool:
    """Kubernetes' ``!isOvercommitAllowed``: extended resources and hugepages."""
    domain = name.split("/", 1)[0] if "/" in name else ""
    native = not domain or domain == "kubernetes.io" or domain.endswith(".kubernetes.io")
    return not native or name.startswith("hugepages-")


def _check_resources(c: _Checker, path: str, resources: Mapping[str, Any]) -> None:
    """Kubernetes' ValidateResourceRequirements on one container."""
    parsed: dict[str, dict[str, Quantity]] = {}
    for part in ("requests", "limits"):
        parsed[part] = {}
        for name, value in _map(resources.get(part)).items():
            if not isinstance(name, str):
                continue
            q = _quantity(value)
            if q is None:
                continue
            where = f"{path}.{part}[{name!r}]"
            if q < Quantity.zero():
                c.bad(where, f"{describe_value(value)} is negative", "0 or more")
                continue
            if (
                _is_extended(name)
                and not name.startswith("hugepages-")
                and q.value.denominator != 1
            ):
                c.bad(where, f"{describe_value(value)} is not a whole number", "a whole number")
            parsed[part][name] = q
    requests, limits = parsed["requests"], parsed["limits"]
    for name, request in requests.items():
        where = f"{path}.requests[{name!r}]"
        limit = limits.get(name)
        if limit is not None and request > limit:
            c.bad(
                where,
                f"request {request} is more than the limit {limit}",
                f"a request <= limits[{name!r}]",
            )
        elif _is_extended(name) and limit is None:
            c.bad(
                where,
                f"{name} is an extended resource, which cannot be overcommitted: Kubernetes "
                "requires a limit for it",
                f"limits[{name!r}] equal to the request (or only the limit)",
            )
        elif _is_extended(name) and limit is not None and request != limit:
            c.bad(
                where,
                f"request {request} differs from the limit {limit}; {name} cannot be overcommitted",
                "a request equal to the limit",
            )


def _check_template(c: _Checker, path: str, template: Mapping[str, Any]) -> None:
    """A pod template: its metadata (pods with invalid labels are never created) and spec."""
    meta = _map(template.get("metadata"))
    _check_labels(c, f"{path}.metadata.labels", meta.get("labels"))
    _check_annotation_keys(c, f"{path}.metadata.annotations", meta.get("annotations"))
    _check_pod(c, f"{path}.spec", _map(template.get("spec")))


def _check_pod(c: _Checker, path: str, pod: Mapping[str, Any]) -> None:
    """What Kubernetes' pod validation would refuse in a template's ``spec``."""
    seen: dict[str, str] = {}
    for key in ("initContainers", "containers"):
        for index, container in enumerate(_list(pod.get(key))):
            if not isinstance(container, Mapping):
                continue
            where = f"{path}.{key}[{index}]"
            name = _str(container.get("name"))
            if name is not None:
                why = dns_problem(name, "DNS-1123 label", 63)
                if why:
                    c.bad(
                        f"{where}.name", f"container name {why}", name_rules("DNS-1123 label", 63)
                    )
                elif name in seen:
                    c.bad(
                        f"{where}.name",
                        f"{name!r} is already the name of {seen[name]}",
                        "a container name unique within the pod (init containers included)",
                    )
                seen.setdefault(name, where)
            image = container.get("image")
            # Pods need an image; the Pod API allows omitting it only for templates that
            # a controller completes, which KubeRay and the Job controller do not.
            if image is None or image == "":
                c.bad(f"{where}.image", "is required but missing", "a container image")
            for port_index, port in enumerate(_list(container.get("ports"))):
                number = _int(_map(port).get("containerPort"))
                if number is not None and not 1 <= number <= 65535:
                    c.bad(
                        f"{where}.ports[{port_index}].containerPort",
                        f"{number} is not a port number",
                        "a whole number from 1 to 65535",
                    )
            _check_resources(c, f"{where}.resources", _map(container.get("resources")))


# --- the RayCluster spec ----------------------------------------------------------------
def _check_group_params(c: _Checker, path: str, group: Mapping[str, Any], name: str) -> None:
    """KubeRay's validateRayGroupResources and validateRayGroupLabels."""
    params = _str_map(group.get("rayStartParams"))
    if any(params.get(k) for k in ("num-cpus", "num-gpus", "memory", "resources")) and _map(
        group.get("resources")
    ):
        c.bad(
            f"{path}.resources",
            f"resource fields should not be set in both rayStartParams and resources for "
            f"{name} group",
            "either rayStartParams (num-cpus, num-gpus, memory, resources) or resources",
        )
    if "labels" in params:
        c.bad(
            f"{path}.rayStartParams['labels']",
            f"rayStartParams['labels'] is not supported for {name} group",
            f"{path}.labels",
        )
    _check_labels(c, f"{path}.labels", group.get("labels"))


def _check_cluster(
    c: _Checker, cluster: Mapping[str, Any], mode: str, meta: Mapping[str, Any]
) -> None:
    base = "spec.rayClusterSpec"
    scaling = cluster.get("enableInTreeAutoscaling") is True
    head = _map(cluster.get("headGroupSpec"))
    head_pod = _map(_map(head.get("template")).get("spec"))
    head_path = f"{base}.headGroupSpec.template.spec"
    head_containers = _list(head_pod.get("containers"))
    head0 = _map(head_containers[0]) if head_containers else {}
    head_env = _env(head0)
    annotations = _str_map(meta.get("annotations"))

    if cluster.get("suspend") is True:
        c.bad(
            f"{base}.suspend",
            "a suspended RayCluster never creates its pods, while the PodGroup keeps its "
            "queue capacity",
            "remove it; suspend the job with spec.suspend: true instead",
        )
    managed = _str(cluster.get("managedBy"))
    if managed is not None and managed != MANAGED_BY[0]:
        c.bad(
            f"{base}.managedBy",
            f"{managed!r}: the KubeRay operator does not reconcile a RayCluster managed by "
            "another controller, so its pods would never be created",
            f"{MANAGED_BY[0]}, or no managedBy",
        )
    if head:
        _check_group_params(c, f"{base}.headGroupSpec", head, "Head")
        _check_template(c, f"{base}.headGroupSpec.template", _map(head.get("template")))
        _check_dashboard_port(c, head_path, head0)
    if mode == "SidecarMode":
        for index, container in enumerate(head_containers):
            if _map(container).get("name") == SIDECAR_CONTAINER:
                c.bad(
                    f"{head_path}.containers[{index}].name",
                    f"{SIDECAR_CONTAINER!r} is the name of the submitter container SidecarMode "
                    "appends to the head pod",
                    "another container name",
                )
        policy = head_pod.get("restartPolicy")
        if policy not in (None, "Never"):
            c.bad(
                f"{head_path}.restartPolicy",
                f"restartPolicy for head Pod should be Never or unset when using SidecarMode; "
                f"got {describe_value(policy)}",
                "Never, or no restartPolicy",
            )

    _check_fault_tolerance(c, cluster, head, head_env, annotations)
    _check_autoscaler(c, cluster, head_pod, head_env, scaling)
    _check_auth(c, cluster)

    group_base = f"{base}.workerGroupSpecs"
    seen: dict[str, int] = {}
    members: int | None = 1  # the head; None once the sum is out of range (reported)
    for index, raw_group in enumerate(_list(cluster.get("workerGroupSpecs"))):
        if not isinstance(raw_group, Mapping):
            continue
        path = f"{group_base}[{index}]"
        name = raw_group.get("groupName")
        if isinstance(name, str):
            why = "must not be empty" if not name else label_value_problem(name)
            if why:
                c.bad(
                    f"{path}.groupName",
                    f"{why} (KubeRay puts the group name in the ray.io/group pod label)",
                    "a name of " + LABEL_VALUE_RULES.replace(" (or empty)", ""),
                )
            elif name in seen:
                c.bad(
                    f"{path}.groupName",
                    f"{name!r} is already used by {group_base}[{seen[name]}]",
                    "a name unique among the worker groups",
                )
            seen.setdefault(name, index)
        count = _check_group(c, path, raw_group, scaling, str(name))
        if count is not None and members is not None:
            if count > INT32_MAX - members:
                c.bad(
                    path,
                    f"minMember would be {members} + {count} pods of worker group {name} = "
                    f"{members + count}, more than {INT32_MAX}, the largest int32 (the type of "
                    "the PodGroup's minMember)",
                    f"at most {INT32_MAX} pods in the gang, the head included: at most "
                    f"{INT32_MAX - members} from this group",
                )
                members = None
            else:
                members += count


def _product_problem(
    c: _Checker, path: str, what: str, replicas: int, hosts: int, name: str
) -> bool:
    """Refuse ``replicas × numOfHosts`` beyond int32, before it is computed (Go wraps it)."""
    if replicas <= INT32_MAX // hosts:
        return False
    c.bad(
        path,
        f"{what} {replicas} × numOfHosts {hosts} = {replicas * hosts} pods in worker group "
        f"{name}, more than {INT32_MAX}, the largest int32 (the type of the PodGroup's "
        "minMember and of KubeRay's replica counts)",
        f"{what} × numOfHosts at most {INT32_MAX}: with numOfHosts {hosts}, {what} at most "
        f"{INT32_MAX // hosts}",
    )
    return True


def _group_pods(
    c: _Checker, path: str, group: Mapping[str, Any], scaling: bool, name: str
) -> int | None:
    """The group's pods in ``minMember`` (KubeRay's clamped count), every product checked.

    Returns None when a number is out of range (already reported).
    """
    replicas, low, high = (_int(group.get(k)) for k in ("replicas", "minReplicas", "maxReplicas"))
    hosts = _int(group.get("numOfHosts"))
    hosts = 1 if hosts is None else hosts
    numbers = [n for n in (replicas, low, high) if n is not None]
    if group.get("suspend") is True:
        return 0
    if not 1 <= hosts <= INT32_MAX or any(not 0 <= n <= INT32_MAX for n in numbers):
        return None  # reported by the field checks
    low_n = low or 0
    high_n = INT32_MAX if high is None else high
    clamped = low_n if scaling or replicas is None or replicas < low_n else min(replicas, high_n)
    # KubeRay multiplies the resources by the raw count: replicas, or minReplicas with
    # autoscaling; minMember uses the clamped one. Both must fit.
    raw, raw_what = (low_n, "minReplicas") if scaling else (replicas or 0, "replicas")
    if _product_problem(c, f"{path}.{raw_what}", raw_what, raw, hosts, name):
        return None
    if clamped != raw and _product_problem(
        c, f"{path}.replicas", "replicas within [minReplicas, maxReplicas]", clamped, hosts, name
    ):
        return None
    return clamped * hosts


def _check_group(
    c: _Checker, path: str, group: Mapping[str, Any], scaling: bool, name: str
) -> int | None:
    """One worker group; returns its pods in ``minMember`` (None when out of range)."""
    # replicas outside [min, max] pass KubeRay's validation: it clamps them.
    c.whole(f"{path}.replicas", group.get("replicas"), 0)
    low = c.whole(f"{path}.minReplicas", group.get("minReplicas"), 0)
    high = c.whole(f"{path}.maxReplicas", group.get("maxReplicas"), 0)
    if low is not None and high is not None and low > high:
        c.bad(
            f"{path}.minReplicas",
            f"minReplicas {low} is greater than maxReplicas {high}",
            "minReplicas <= maxReplicas",
        )
    c.whole(f"{path}.numOfHosts", group.get("numOfHosts"), 1, " (a group needs at least one host)")
    if group.get("suspend") is True and scaling:
        c.bad(
            f"{path}.suspend",
            f"worker group {name} cannot be suspended with Autoscaler enabled",
            "remove suspend, or set enableInTreeAutoscaling: false",
        )
    _check_group_params(c, path, group, name)
    _check_template(c, f"{path}.template", _map(group.get("template")))
    return _group_pods(c, path, group, scaling, name)


def _check_dashboard_port(c: _Checker, head_path: str, head0: Mapping[str, Any]) -> None:
    ports = _list(head0.get("ports"))
    if ports and not any(_map(p).get("name") == "dashboard" for p in ports):
        c.bad(
            f"{head_path}.containers[0].ports",
            "declares ports but none named dashboard: KubeRay would never find the head "
            "Service's dashboard port and the job would never be submitted",
            "a port named dashboard (usually containerPort 8265), or no ports at all",
        )


def _check_fault_tolerance(
    c: _Checker,
    cluster: Mapping[str, Any],
    head: Mapping[str, Any],
    head_env: Mapping[str, str],
    annotations: Mapping[str, str],
) -> None:
    """KubeRay's GCS fault tolerance rules in ValidateRayClusterSpec."""
    base = "spec.rayClusterSpec"
    options = cluster.get("gcsFaultToleranceOptions")
    params = _str_map(head.get("rayStartParams"))
    env_path = f"{base}.headGroupSpec.template.spec.containers[0].env"
    if annotations.get(FT_ANNOTATION) and options is not None:
        c.bad(
            f"{base}.gcsFaultToleranceOptions",
            f"the {FT_ANNOTATION} annotation and gcsFaultToleranceOptions are both set",
            "only gcsFaultToleranceOptions",
        )
    enabled = options is not None or annotations.get(FT_ANNOTATION, "").lower() == "true"
    if not enabled and "RAY_REDIS_ADDRESS" in head_env:
        c.bad(
            env_path,
            "RAY_REDIS_ADDRESS is set, which implicitly enables GCS fault tolerance, but "
            "gcsFaultToleranceOptions is not set",
            "gcsFaultToleranceOptions to enable GCS fault tolerance",
        )
    if options is not None:
        for found, where, instead in (
            (params.get("redis-password"), "rayStartParams['redis-password']", "redisPassword"),
            ("REDIS_PASSWORD" in head_env, "REDIS_PASSWORD env var", "redisPassword"),
            ("RAY_REDIS_ADDRESS" in head_env, "RAY_REDIS_ADDRESS env var", "redisAddress"),
            (
                annotations.get(EXTERNAL_STORAGE_ANNOTATION),
                f"{EXTERNAL_STORAGE_ANNOTATION} annotation",
                "externalStorageNamespace",
            ),
        ):
            if found:
                c.bad(
                    f"{base}.gcsFaultToleranceOptions",
                    f"cannot set the {where} when gcsFaultToleranceOptions is enabled",
                    f"gcsFaultToleranceOptions.{instead}",
                )
    if params.get("redis-username") or "REDIS_USERNAME" in head_env:
        c.bad(
            f"{base}.headGroupSpec",
            "cannot set the redis username in rayStartParams or environment variables",
            "gcsFaultToleranceOptions.redisUsername",
        )


def _check_autoscaler(
    c: _Checker,
    cluster: Mapping[str, Any],
    head_pod: Mapping[str, Any],
    head_env: Mapping[str, str],
    scaling: bool,
) -> None:
    """KubeRay's autoscaler rules in ValidateRayClusterSpec."""
    base = "spec.rayClusterSpec"
    env_value = head_env.get(AUTOSCALER_V2_ENV)
    env_path = f"{base}.headGroupSpec.template.spec.containers[0].env"
    if not scaling:
        if env_value in ("1", "true"):
            c.bad(
                env_path,
                f"{AUTOSCALER_V2_ENV} cannot be set to {env_value!r} when "
                "enableInTreeAutoscaling is false",
                "enableInTreeAutoscaling: true to use autoscaler v2",
            )
        return
    options = _map(cluster.get("autoscalerOptions"))
    version = options.get("version")
    if version is not None and env_value is not None:
        c.bad(
            f"{base}.autoscalerOptions.version",
            f"both autoscalerOptions.version and the head env var {AUTOSCALER_V2_ENV} are set",
            "only autoscalerOptions.version",
        )
    v2 = version == "v2" or (version is None and env_value in ("1", "true"))
    if not v2:
        return
    if head_pod.get("restartPolicy") not in (None, "", "Never"):
        c.bad(
            f"{base}.headGroupSpec.template.spec.restartPolicy",
            "restartPolicy for head Pod should be Never or unset when using autoscaler V2",
            "Never, or no restartPolicy",
        )
    for index, group in enumerate(_list(cluster.get("workerGroupSpecs"))):
        pod = _map(_map(_map(group).get("template")).get("spec"))
        if pod.get("restartPolicy") not in (None, "", "Never"):
            c.bad(
                f"{base}.workerGroupSpecs[{index}].template.spec.restartPolicy",
                "restartPolicy for worker Pods should be Never or unset when using autoscaler V2",
                "Never, or no restartPolicy",
            )


def _check_auth(c: _Checker, cluster: Mapping[str, Any]) -> None:
    if _map(cluster.get("authOptions")).get("mode") != "token":
        return
    version = _str(cluster.get("rayVersion"))
    path = "spec.rayClusterSpec.rayVersion"
    if not version:
        c.bad(path, "authOptions.mode is 'token' but rayVersion is not set", "2.52.0 or later")
        return
    below = _version_below(version, 2, 52, 0)
    if below is None:
        c.bad(path, f"{version!r} is not a version", "a version such as 2.52.0")
    elif below:
        c.bad(
            path,
            f"authOptions.mode is 'token' but the minimum Ray version is 2.52.0, got {version!r}",
            "2.52.0 or later",
        )


# --- the RayJob spec --------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def _runtime_env_problem(text: str) -> str | None:
    """Why KubeRay would refuse ``runtimeEnvYAML``; cached, since stacks often share one."""
    try:
        goyaml.runtime_env_json(text)
    except goquote.SubmitterError as exc:
        return str(exc)
    return None


def _check_spec(c: _Checker, spec: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
    mode_value = spec.get("submissionMode", "K8sJobMode")
    mode = mode_value if isinstance(mode_value, str) else "K8sJobMode"
    name = _str(meta.get("name")) or "<name>"
    namespace = _str(meta.get("namespace")) or "default"
    if mode == "HTTPMode":
        c.bad(
            "spec.submissionMode",
            "HTTPMode submits from inside the KubeRay operator, which raygang replaces; "
            "nothing would submit the job",
            "K8sJobMode (a submitter Job, the default), SidecarMode, or InteractiveMode",
        )
    elif mode not in SUPPORTED_MODES:
        c.bad(
            "spec.submissionMode",
            f"{mode!r} is not a submission mode",
            ", ".join(SUPPORTED_MODES),
        )

    template = _map(spec.get("submitterPodTemplate"))
    template_pod = _map(template.get("spec"))
    first = _list(template_pod.get("containers"))
    custom_command = bool(first) and _map(first[0]).get("command") is not None
    entrypoint = spec.get("entrypoint", "")
    submits = mode == "SidecarMode" or (mode == "K8sJobMode" and not custom_command)
    if isinstance(entrypoint, str) and not entrypoint.strip() and submits:
        c.bad(
            "spec.entrypoint",
            f"is empty, but {mode} submits it with `ray job submit`",
            "a shell command, e.g. python main.py (or, in K8sJobMode, a "
            "submitterPodTemplate whose first container sets its own command)",
        )
    if isinstance(entrypoint, str) and "\x00" in entrypoint:
        c.bad("spec.entrypoint", "contains a NUL character", "a shell command")
    elif isinstance(entrypoint, str) and entrypoint.strip() and submits:
        why = bash_syntax_error(entrypoint)
        if why:
            c.bad(
                "spec.entrypoint",
                f"bash cannot parse it as the submitter runs it (ray job submit ... -- "
                f"<entrypoint>): {why}",
                "a shell command bash can parse, e.g. python main.py --epochs 3 (quote any "
                "';', '(', ')' or quote character meant for the program)",
            )

    if mode == "SidecarMode":
        if "submitterPodTemplate" in spec and spec["submitterPodTemplate"] is not None:
            c.bad(
                "spec.submitterPodTemplate",
                "Currently, SidecarMode doesn't support SubmitterPodTemplate",
                "remove it, or use K8sJobMode",
            )
        if "submitterConfig" in spec and spec["submitterConfig"] is not None:
            c.bad(
                "spec.submitterConfig",
                "Currently, SidecarMode doesn't support SubmitterConfig",
                "remove it, or use K8sJobMode",
            )
    elif mode == "K8sJobMode" and template:
        pod_path = "spec.submitterPodTemplate.spec"
        policy = template_pod.get("restartPolicy")
        if policy not in (None, "Never", "OnFailure"):
            c.bad(
                f"{pod_path}.restartPolicy",
                f"{describe_value(policy)} is not accepted by a Job's pod template",
                "Never or OnFailure (raygang fills in Never when it is unset)",
            )
        _check_template(c, "spec.submitterPodTemplate", template)
    backoff = _int(_map(spec.get("submitterConfig")).get("backoffLimit"))
    c.whole("spec.submitterConfig.backoffLimit", backoff, 0)

    job_backoff = c.whole("spec.backoffLimit", spec.get("backoffLimit"), 0)
    if mode == "InteractiveMode" and job_backoff:
        c.bad(
            "spec.backoffLimit",
            "BackoffLimit is incompatible with InteractiveMode (a retry would reuse spec.jobId)",
            "0, or no backoffLimit",
        )
    c.whole("spec.activeDeadlineSeconds", spec.get("activeDeadlineSeconds"), 1)
    c.whole("spec.preRunningDeadlineSeconds", spec.get("preRunningDeadlineSeconds"), 1)
    managed = _str(spec.get("managedBy"))
    if managed is not None and managed not in MANAGED_BY:
        c.bad(
            "spec.managedBy",
            f"{managed!r} is not accepted by the RayJob CRD",
            " or ".join(MANAGED_BY),
        )

    shutdown = spec.get("shutdownAfterJobFinishes") is True
    ttl = c.whole("spec.ttlSecondsAfterFinished", spec.get("ttlSecondsAfterFinished"), 0)
    if ttl and not shutdown:
        c.bad(
            "spec.ttlSecondsAfterFinished",
            "a RayJob with shutdownAfterJobFinishes set to false cannot have "
            "TTLSecondsAfterFinished: it would never apply",
            "set spec.shutdownAfterJobFinishes: true, or remove ttlSecondsAfterFinished",
        )
    if spec.get("suspend") is True and not shutdown:
        c.bad(
            "spec.suspend",
            "a RayJob with shutdownAfterJobFinishes set to false is not allowed to be "
            "suspended (KubeRay's rule)",
            "spec.shutdownAfterJobFinishes: true",
        )

    job_id = spec.get("jobId")
    # An empty jobId is Go's zero value: KubeRay treats it as unset (InteractiveMode
    # samples ship `jobId: ""` for the user to fill in).
    if isinstance(job_id, str) and job_id and not _JOB_ID.fullmatch(job_id):
        c.bad(
            "spec.jobId",
            f"{job_id!r} is not accepted: it is written unquoted into the submitter's "
            "shell command",
            "1 to 128 letters, digits, '.', '_' and '-', starting with a letter or digit",
        )
    runtime_env = spec.get("runtimeEnvYAML")
    why_not = _runtime_env_problem(runtime_env) if isinstance(runtime_env, str) else None
    if why_not:
        c.bad("spec.runtimeEnvYAML", why_not, "a YAML mapping, e.g. 'pip: [requests]'")
    for key in ("entrypointNumCpus", "entrypointNumGpus"):
        value = spec.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            if value < 0:
                c.bad(f"spec.{key}", f"{describe_value(value)} is negative", "0 or more")
            elif value > FLOAT32_MAX:
                c.bad(
                    f"spec.{key}",
                    f"{describe_value(value)} does not fit KubeRay's float32",
                    "a number of CPUs or GPUs, e.g. 1 or 0.5",
                )
    version = _str(_map(spec.get("rayClusterSpec")).get("rayVersion"))
    # BuildJobSubmitCommand refuses --metadata-json for older Ray.
    if _map(spec.get("metadata")) and version and submits and _version_below(version, 2, 6, 0):
        c.bad(
            "spec.metadata",
            f"the Ray version must be at least 2.6.0 to use the metadata field; "
            f"rayVersion is {version!r}",
            "rayVersion 2.6.0 or later, or no spec.metadata",
        )
    resources = spec.get("entrypointResources")
    if isinstance(resources, str) and resources.strip():
        try:
            parsed = json.loads(resources)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            c.bad(
                "spec.entrypointResources",
                f"{describe_value(resources)} is not a JSON object",
                "a JSON object of custom resources, e.g. '{\"Custom_1\": 1}'",
            )

    selector = spec.get("clusterSelector")
    if isinstance(selector, Mapping) and selector:
        c.bad(
            "spec.clusterSelector",
            f"gang scheduling does not support RayJob {namespace}/{name} referencing an "
            "existing RayCluster: Volcano needs the cluster spec to size the gang",
            "a spec.rayClusterSpec instead of spec.clusterSelector",
        )
    cluster = spec.get("rayClusterSpec")
    if cluster is None and not (isinstance(selector, Mapping) and selector):
        c.bad(
            "spec.rayClusterSpec",
            "is required but missing",
            "a RayCluster spec with a headGroupSpec",
        )
    if isinstance(cluster, Mapping):
        _check_cluster(c, cluster, mode, meta)


# --- entry points -----------------------------------------------------------------------
def manifest_problems(raw: Mapping[str, Any], source: str) -> list[Problem]:
    """Every semantic problem of one RayJob manifest, read tolerantly from the raw dict.

    Args:
        raw: the manifest as loaded (it need not have passed structural validation).
        source: where it came from, for messages.

    Returns:
        Problems in document order; empty when the manifest can be planned.
    """
    c = _Checker(source)
    meta = _map(raw.get("metadata"))
    _check_metadata(c, meta)
    spec = raw.get("spec")
    if isinstance(spec, Mapping):
        _check_spec(c, spec, meta)
    if _larger_than(raw, MAX_MANIFEST_BYTES):
        c.bad(
            "<document>",
            f"is larger than {MAX_MANIFEST_BYTES} bytes; the job record ConfigMap keeps it in "
            "its annotations, which hold at most 256 KiB",
            f"a manifest under {MAX_MANIFEST_BYTES} bytes",
        )
    return c.out


def _larger_than(doc: object, limit: int) -> bool:
    """Whether ``doc`` as JSON would exceed ``limit`` bytes, counted with a budget.

    Counting stops at the limit, so shared references (YAML aliases) cannot make it slow.
    """
    size = 0
    stack = [doc]
    while stack:
        value = stack.pop()
        if type(value) is str:
            size += len(value.encode("utf-8", "replace")) + 2
        elif isinstance(value, Mapping):
            size += 2 + sum(len(str(k)) + 4 for k in value)
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            size += 2 + len(value)
            stack.extend(value)
        else:
            size += len(str(value).encode("utf-8", "replace")) + 2
        if size > limit:
            return True
    return False


def check_rayjob(item: RayJobInput) -> list[Problem]:
    """Every semantic problem in one structurally valid RayJob.

    Args:
        item: a RayJob that passed :func:`raygang.rayjob.spec.parse_rayjob`.

    Returns:
        Problems in document order; empty when the job can be planned.
    """
    found = manifest_problems(item.raw, item.source) + deletion_strategy_problems(item)
    return list(dict.fromkeys(found))


def _under(path: str, parents: Sequence[str]) -> bool:
    return any(path == p or path.startswith((f"{p}.", f"{p}[")) for p in parents)


def load_rayjob(raw: object, source: str) -> RayJobInput:
    """Validate one RayJob document: structure and semantics, all problems together.

    Semantic checks run even when the structure is wrong, on the fields that are readable;
    a semantic problem at or below a structural one is dropped, since it says the same.

    Args:
        raw: the document as loaded from YAML or stack config.
        source: where it came from, for messages.

    Returns:
        The checked job.

    Raises:
        SpecError: every structural and semantic problem of the document.
    """
    structural: list[Problem] = []
    item: RayJobInput | None = None
    try:
        item = parse_rayjob(raw, source)
    except SpecError as exc:
        structural = list(exc.problems)
    if not isinstance(raw, Mapping):
        raise SpecError(structural)
    semantic = manifest_problems(raw, source)
    if item is not None:
        semantic += deletion_strategy_problems(item)
    paths = [p.path for p in structural]
    problems = structural + [p for p in semantic if not _under(p.path, paths)]
    if problems or item is None:
        raise SpecError(problems)
    return item
