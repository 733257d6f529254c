"""raygang.rayjob.replicas: KubeRay's clamp of a group's replicas, and the int32 bounds."""

from __future__ import annotations

import pytest
from raygang.kube.core import INT32_MAX
from raygang.rayjob.replicas import (
    clamped_replicas,
    member_replicas,
    members_fit,
    pods_accepted,
    pods_fit,
    reserved_replicas,
)


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
    assert pods_fit(INT32_MAX, 1)
    assert pods_fit(INT32_MAX // 2, 2)
    assert not pods_fit(INT32_MAX // 2 + 1, 2)
    assert pods_fit(10**30, 0)  # no hosts: refused elsewhere, nothing to multiply here
    assert pods_accepted("replicas", 2) == (
        f"replicas × numOfHosts at most {INT32_MAX}: with numOfHosts 2, replicas at most "
        f"{INT32_MAX // 2}"
    )


def test_members_fit_int32() -> None:
    assert members_fit(1, INT32_MAX - 1)
    assert not members_fit(1, INT32_MAX)


def test_member_and_reserved_replicas_follow_the_autoscaler() -> None:
    # minMember counts the clamped replicas, or minReplicas with the autoscaler; the
    # resources are multiplied by the raw count of the same field.
    assert member_replicas(9, 2, 5, scaling=False) == 5
    assert member_replicas(9, 2, 5, scaling=True) == 2
    assert member_replicas(None, None, None, scaling=True) == 0
    assert reserved_replicas(9, 2, scaling=False) == ("replicas", 9)
    assert reserved_replicas(None, 2, scaling=False) == ("replicas", 0)
    assert reserved_replicas(9, None, scaling=True) == ("minReplicas", 0)
