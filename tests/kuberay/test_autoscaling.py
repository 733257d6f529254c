"""The RayCluster fields the Ray autoscaler writes (raygang.kuberay.autoscaling)."""

from __future__ import annotations

from typing import Any

import pytest
from raygang.kuberay.autoscaling import autoscaler_owned_paths


def _cluster(autoscaling: object, groups: int, kind: str = "RayCluster") -> dict[str, Any]:
    spec: dict[str, Any] = {"workerGroupSpecs": [{"groupName": f"g{i}"} for i in range(groups)]}
    if autoscaling is not None:
        spec["enableInTreeAutoscaling"] = autoscaling
    return {"apiVersion": "ray.io/v1", "kind": kind, "spec": spec}


def test_every_worker_groups_replicas_and_scale_strategy_by_index() -> None:
    assert autoscaler_owned_paths(_cluster(True, 2)) == (
        "spec.workerGroupSpecs[0].replicas",
        "spec.workerGroupSpecs[0].scaleStrategy",
        "spec.workerGroupSpecs[1].replicas",
        "spec.workerGroupSpecs[1].scaleStrategy",
    )


@pytest.mark.parametrize("autoscaling", [False, None, "true", 1])
def test_only_an_explicit_true_autoscales(autoscaling: object) -> None:
    # KubeRay's IsAutoscalingEnabled: the manifest alone sizes the groups otherwise.
    assert autoscaler_owned_paths(_cluster(autoscaling, 2)) == ()


def test_no_worker_groups_nothing_to_ignore() -> None:
    assert autoscaler_owned_paths(_cluster(True, 0)) == ()


@pytest.mark.parametrize("kind", ["PodGroup", "Job", "ConfigMap"])
def test_other_kinds_are_left_alone(kind: str) -> None:
    assert autoscaler_owned_paths(_cluster(True, 1, kind)) == ()
    assert autoscaler_owned_paths({"kind": "RayCluster"}) == ()
