"""The predicates plugin (``plugins/predicates/predicates.go``): taints, cordons, selectors."""

from __future__ import annotations

from typing import Any

from tests.builders import container, rayjob, worker
from tests.volcano.conftest import (
    check,
    fixture,
    job,
    run,
)


class TestPredicates:
    def gpu_job(self, replicas: int = 1, **pod_spec: Any) -> dict[str, Any]:
        w = worker(
            "gpu",
            replicas,
            containers=[container("w", {"cpu": "4", "nvidia.com/gpu": "4"})],
            **pod_spec,
        )
        return rayjob(head=[container("h", {"cpu": "1"})], workers=[w], mode="InteractiveMode")

    def test_untolerated_taint(self) -> None:
        result = run(self.gpu_job(), fixture("tainted.yaml"))
        fit = check(result, "fit")
        assert fit.status == "fail"
        assert (
            "0/3 nodes are unavailable: 1 Insufficient nvidia.com/gpu, "
            "2 node(s) had untolerated taint {nvidia.com/gpu: present}." in fit.message
        )
        assert result.never_admitted is True
        assert (
            "add toleration {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}"
            in result.reasons[0]
        )

    def test_tolerated_taint_and_cordoned_node(self) -> None:
        toleration = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
        result = run(self.gpu_job(1, tolerations=toleration), fixture("tainted.yaml"))
        assert result.verdict == "admitted", result.reasons
        assert "on cpu-a, gpu-a " in check(result, "placement").message
        # Two 4-GPU workers: gpu-b is cordoned, so the second finds no node; not forever.
        result = run(self.gpu_job(2, tolerations=toleration), fixture("tainted.yaml"))
        assert check(result, "fit").status == "pass"
        placement = check(result, "placement")
        assert placement.status == "fail"
        assert (
            "0/3 nodes are unavailable: 1 node(s) were unschedulable, "
            "2 Insufficient nvidia.com/gpu." in placement.message
        )
        assert result.never_admitted is False

    def test_toleration_without_key_tolerates_everything(self) -> None:
        result = run(self.gpu_job(1, tolerations=[{"operator": "Exists"}]), fixture("tainted.yaml"))
        assert result.verdict == "admitted", result.reasons

    def test_node_selector(self) -> None:
        manifest = job(head={"cpu": "1"})
        manifest["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["nodeSelector"] = {
            "pool": "arm"
        }
        result = run(manifest, fixture("tainted.yaml"))
        fit = check(result, "fit")
        assert fit.status == "fail"
        assert (
            "0/3 nodes are unavailable: 3 node(s) didn't match Pod's node affinity/selector."
            in fit.message
        )

    def test_required_node_affinity(self) -> None:
        affinity = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["cpu"]}]}
                    ]
                }
            }
        }
        manifest = job(head={"cpu": "1"})
        manifest["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["affinity"] = (
            affinity
        )
        result = run(manifest, fixture("tainted.yaml"))
        assert result.verdict == "admitted", result.reasons
        assert check(result, "placement").message == "the pod fits on cpu-a"
        affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
            "nodeSelectorTerms"
        ] = [{"matchExpressions": [{"key": "pool", "operator": "NotIn", "values": ["cpu", "gpu"]}]}]
        result = run(manifest, fixture("tainted.yaml"))
        assert check(result, "fit").status == "fail"

    def test_unmodelled_constraints_make_the_verdict_unknown(self) -> None:
        anti = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "x"}]
            }
        }
        manifest = job(head={"cpu": "1"})
        manifest["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["affinity"] = anti
        result = run(manifest, fixture("cpu-only.yaml"))
        assert check(result, "gang").status == "warn"
        assert "inter-pod affinity (head headgroup)" in check(result, "gang").message
        assert result.verdict == "unknown"
