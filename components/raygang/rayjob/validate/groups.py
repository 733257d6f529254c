"""Worker groups: replica counts, hosts, group names, and the gang's ``minMember`` in int32.

Follows the worker-group rules of KubeRay's ``ValidateRayClusterSpec``, with
``validateRayGroupResources`` and ``validateRayGroupLabels``
(``ray-operator/controllers/ray/utils/validation.go``), and the pod count KubeRay's Volcano
adapter puts in ``minMember``
(``ray-operator/controllers/ray/batchscheduler/volcano/volcano_scheduler.go``), where Go
would wrap an int32 overflow silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raygang.kube.core import INT32_MAX
from raygang.kube.names import LABEL_VALUE_RULES, label_value_problem
from raygang.rayjob.replicas import GroupPods, add_members, group_pods
from raygang.rayjob.validate.metadata import check_labels
from raygang.rayjob.validate.pod import check_template
from raygang.rayjob.validate.read import Checker, as_int, as_list, as_map, str_map


def check_group_params(c: Checker, path: str, group: Mapping[str, Any], name: str) -> None:
    """KubeRay's validateRayGroupResources and validateRayGroupLabels."""
    params = str_map(group.get("rayStartParams"))
    if any(params.get(k) for k in ("num-cpus", "num-gpus", "memory", "resources")) and as_map(
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
    check_labels(c, f"{path}.labels", group.get("labels"))


def check_worker_groups(c: Checker, cluster: Mapping[str, Any], scaling: bool) -> None:
    """Every worker group, its name unique, and the gang's pods, head included, in int32."""
    base = "spec.rayClusterSpec"
    group_base = f"{base}.workerGroupSpecs"
    seen: dict[str, int] = {}
    members: int | None = 1  # the head; None once the sum is out of range (reported)
    for index, raw_group in enumerate(as_list(cluster.get("workerGroupSpecs"))):
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
            total = add_members(path, str(name), members, count)
            if isinstance(total, int):
                members = total
            else:
                c.bad(*total)
                members = None


def _group_pods(
    c: Checker, path: str, group: Mapping[str, Any], scaling: bool, name: str
) -> int | None:
    """The group's pods in ``minMember`` (KubeRay's clamped count), every product checked.

    Returns None when a number is out of range (already reported).
    """
    replicas, low, high = (as_int(group.get(k)) for k in ("replicas", "minReplicas", "maxReplicas"))
    hosts = as_int(group.get("numOfHosts"))
    hosts = 1 if hosts is None else hosts
    numbers = [n for n in (replicas, low, high) if n is not None]
    suspend = group.get("suspend") is True
    if not suspend and (
        not 1 <= hosts <= INT32_MAX or any(not 0 <= n <= INT32_MAX for n in numbers)
    ):
        return None  # reported by the field checks
    pods = group_pods(path, name, replicas, low, high, hosts, suspend=suspend, scaling=scaling)
    if isinstance(pods, GroupPods):
        return pods.members
    c.bad(*pods)
    return None


def _check_group(
    c: Checker, path: str, group: Mapping[str, Any], scaling: bool, name: str
) -> int | None:
    """One worker group; returns its pods in ``minMember`` (None when out of range)."""
    # replicas outside [min, max] pass KubeRay's validation: it clamps them.
    c.whole(f"{path}.replicas", group.get("replicas"), 0)
    low = c.whole(f"{path}.minReplicas", group.get("minReplicas"), 0)
    high = c.whole(f"{path}.maxReplicas", group.get("maxReplicas"), 0)
    # Refused from KubeRay v1.6 (v1.5.0 reserves maxReplicas for such a group).
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
    check_group_params(c, path, group, name)
    check_template(c, f"{path}.template", as_map(group.get("template")))
    return _group_pods(c, path, group, scaling, name)
