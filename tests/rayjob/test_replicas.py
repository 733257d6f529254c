"""raygang.rayjob.replicas: KubeRay's clamp of a group's replicas, and the int32 bounds."""

from __future__ import annotations

import pytest
from raygang.kube.core import INT32_MAX
from raygang.rayjob.replicas import GroupPods, add_members, clamped_replicas, group_pods

PATH = "spec.rayClusterSpec.workerGroupSpecs[0]"


def pods(
    replicas: int | None, low: int | None, high: int | None, hosts: int = 1, *, scaling: bool
) -> GroupPods | tuple[str, str, str]:
    return group_pods(PATH, "w", replicas, low, high, hosts, suspend=False, scaling=scaling)


@pytest.mark.parametrize(
    ("replicas", "low", "high", "expected"),
    [
        (None, None, None, 0),
        (None, 2, 5, 2),
        (1, 2, 5, 2),
        (3, 2, 5, 3),
        (9, 2, 5, 5),
        (9, None, None, 9),
        # minReplicas > maxReplicas (refused by validation from KubeRay v1.6): Go's order.
        (4, 5, 2, 5),
        (7, 5, 2, 2),
    ],
)
def test_replicas_are_clamped_as_kuberay_does(
    replicas: int | None, low: int | None, high: int | None, expected: int
) -> None:
    assert clamped_replicas(replicas, low, high) == expected


def test_pods_fit_int32_without_multiplying() -> None:
    assert pods(INT32_MAX, 0, None, scaling=False) == GroupPods(INT32_MAX, INT32_MAX)
    half = INT32_MAX // 2
    assert pods(half, 0, None, 2, scaling=False) == GroupPods(2 * half, 2 * half)
    refused = pods(half + 1, 0, None, 2, scaling=False)
    assert refused == (
        f"{PATH}.replicas",
        f"replicas {half + 1} × numOfHosts 2 = {2 * half + 2} pods in worker group w, more than "
        f"{INT32_MAX}, the largest int32 (the type of the PodGroup's minMember and of "
        "KubeRay's replica counts)",
        f"replicas × numOfHosts at most {INT32_MAX}: with numOfHosts 2, replicas at most {half}",
    )
    # No hosts: refused elsewhere, nothing to multiply here.
    assert pods(10**30, 0, None, 0, scaling=False) == GroupPods(0, 0)
    # The clamped count is checked too, when it is not the raw one.
    clamped = pods(None, half + 1, None, 2, scaling=False)
    assert isinstance(clamped, tuple)
    assert clamped[0] == f"{PATH}.replicas"
    assert clamped[1].startswith(f"replicas within [minReplicas, maxReplicas] {half + 1} ×")
    suspended = group_pods(PATH, "w", 10**30, 0, None, 9, suspend=True, scaling=False)
    assert suspended == GroupPods(0, 0)


def test_members_fit_int32() -> None:
    assert add_members(PATH, "w", 1, INT32_MAX - 1) == INT32_MAX
    refused = add_members(PATH, "w", 1, INT32_MAX)
    assert isinstance(refused, tuple)
    assert refused[0] == PATH
    assert refused[1].startswith(f"minMember would be 1 + {INT32_MAX} pods of worker group w")
    assert refused[2].endswith(f"at most {INT32_MAX - 1} from this group")


def test_member_and_reserved_replicas_follow_the_autoscaler() -> None:
    # minMember counts the clamped replicas, or minReplicas with the autoscaler; the
    # resources are multiplied by the raw count of the same field.
    assert pods(9, 2, 5, scaling=False) == GroupPods(members=5, reserved=9)
    assert pods(9, 2, 5, scaling=True) == GroupPods(members=2, reserved=2)
    assert pods(None, None, None, scaling=True) == GroupPods(0, 0)
    assert pods(None, 2, None, scaling=False) == GroupPods(members=2, reserved=0)
    assert pods(9, None, None, 3, scaling=True) == GroupPods(0, 0)
