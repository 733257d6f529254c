"""The predicates plugin (``plugins/predicates/predicates.go``): taints, cordons, selectors.

The unit tests follow Kubernetes' ``component-helpers/scheduling/corev1`` (ToleratesTaint,
nodeaffinity) on the typed models.
"""

from __future__ import annotations

from typing import Any

from raygang.kube.core import Toleration
from raygang.volcano.api import Node, Placement, Task
from raygang.volcano.plugins.predicates import static_failure, tolerates

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


def spec_with(**fields: Any) -> dict[str, Any]:
    """A pod spec mapping with one container and the given scheduling fields."""
    return {"containers": [{"name": "c"}], **fields}


def requiring(*terms: dict[str, Any]) -> dict[str, Any]:
    """A pod spec whose required node affinity is ``terms``."""
    required = {"nodeSelectorTerms": list(terms)}
    return spec_with(
        affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}
    )


def on_node(
    name: str = "node-a",
    labels: dict[str, str] | None = None,
    taints: tuple[dict[str, str], ...] = (),
    *,
    unschedulable: bool = False,
) -> Node:
    room = {"cpu": 4000, "pods": 110}
    return Node(name, dict(room), dict(room), {}, labels or {}, taints, unschedulable)


def failure(spec: dict[str, Any], node: Node) -> str | None:
    task = Task(
        "head", "headgroup", "job-head-*", {"cpu": 1000, "pods": 1}, Placement.from_spec(spec)
    )
    return static_failure(task, node)


class TestTolerates:
    """``ToleratesTaint`` on the typed ``Toleration``."""

    GPU_PRESENT = {"key": "gpu", "value": "present", "effect": "NoSchedule"}

    def test_exists_without_key_tolerates_any_taint(self) -> None:
        everything = Toleration(operator="Exists")
        assert tolerates(everything, self.GPU_PRESENT)
        assert tolerates(everything, {"key": "other", "effect": "NoExecute"})

    def test_empty_operator_means_equal(self) -> None:
        assert tolerates(Toleration(key="gpu", value="present"), self.GPU_PRESENT)
        assert not tolerates(Toleration(key="gpu", value="absent"), self.GPU_PRESENT)
        # Equal with no value matches only a taint without one.
        assert not tolerates(Toleration(key="gpu"), self.GPU_PRESENT)
        assert tolerates(Toleration(key="gpu"), {"key": "gpu", "effect": "NoSchedule"})

    def test_an_unknown_operator_tolerates_nothing(self) -> None:
        # ToleratesTaint's default case; the API server refuses such a pod anyway.
        assert not tolerates(Toleration(key="gpu", operator="exists"), self.GPU_PRESENT)
        assert not tolerates(
            Toleration(key="gpu", operator="Gt", value="present"), self.GPU_PRESENT
        )
        assert tolerates(Toleration(key="gpu", operator="Equal", value="present"), self.GPU_PRESENT)

    def test_key_and_effect_must_match_when_set(self) -> None:
        assert not tolerates(Toleration(key="tpu", operator="Exists"), self.GPU_PRESENT)
        assert not tolerates(
            Toleration(key="gpu", operator="Exists", effect="NoExecute"), self.GPU_PRESENT
        )
        assert tolerates(
            Toleration(key="gpu", operator="Exists", effect="NoSchedule"), self.GPU_PRESENT
        )

    def test_taints_through_the_pod_spec(self) -> None:
        tainted = on_node(taints=(self.GPU_PRESENT, {"key": "spot", "effect": "PreferNoSchedule"}))
        assert failure(spec_with(), tainted) == "node(s) had untolerated taint {gpu: present}"
        # PreferNoSchedule never blocks; an Exists toleration without key covers the rest.
        assert failure(spec_with(tolerations=[{"operator": "Exists"}]), tainted) is None
        equal = [{"key": "gpu", "operator": "", "value": "present", "effect": "NoSchedule"}]
        assert failure(spec_with(tolerations=equal), tainted) is None

    def test_cordon_needs_the_unschedulable_toleration(self) -> None:
        cordoned = on_node(unschedulable=True)
        assert failure(spec_with(), cordoned) == "node(s) were unschedulable"
        tolerate = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}]
        assert failure(spec_with(tolerations=tolerate), cordoned) is None


class TestNodeAffinity:
    """nodeSelector and required node affinity on the typed terms."""

    MISMATCH = "node(s) didn't match Pod's node affinity/selector"

    def test_node_selector_needs_every_label(self) -> None:
        spec = spec_with(nodeSelector={"pool": "cpu", "zone": "a"})
        assert failure(spec, on_node(labels={"pool": "cpu", "zone": "a", "x": "y"})) is None
        assert failure(spec, on_node(labels={"pool": "cpu", "zone": "b"})) == self.MISMATCH
        assert failure(spec, on_node(labels={"pool": "cpu"})) == self.MISMATCH

    def test_not_in_matches_a_node_without_the_label(self) -> None:
        spec = requiring(
            {"matchExpressions": [{"key": "pool", "operator": "NotIn", "values": ["gpu"]}]}
        )
        assert failure(spec, on_node(labels={"pool": "cpu"})) is None
        assert failure(spec, on_node(labels={})) is None
        assert failure(spec, on_node(labels={"pool": "gpu"})) == self.MISMATCH

    def test_gt_and_lt_compare_integers(self) -> None:
        more = requiring(
            {"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["8"]}]}
        )
        assert failure(more, on_node(labels={"cores": "16"})) is None
        assert failure(more, on_node(labels={"cores": "8"})) == self.MISMATCH
        assert failure(more, on_node(labels={"cores": "many"})) == self.MISMATCH
        assert failure(more, on_node(labels={})) == self.MISMATCH
        fewer = requiring(
            {"matchExpressions": [{"key": "cores", "operator": "Lt", "values": ["8"]}]}
        )
        assert failure(fewer, on_node(labels={"cores": "4"})) is None
        assert failure(fewer, on_node(labels={"cores": "16"})) == self.MISMATCH

    def test_gt_and_lt_read_integers_as_go_does(self) -> None:
        # strconv.ParseInt(s, 10, 64): a sign is fine, underscores and spaces are not.
        more = requiring(
            {"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["8"]}]}
        )
        assert failure(more, on_node(labels={"cores": "+16"})) is None
        assert failure(more, on_node(labels={"cores": "16_000"})) == self.MISMATCH
        odd = requiring(
            {"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["1_0"]}]}
        )
        assert failure(odd, on_node(labels={"cores": "16"})) == self.MISMATCH

    def test_exists_and_does_not_exist(self) -> None:
        has = requiring({"matchExpressions": [{"key": "gpu", "operator": "Exists"}]})
        lacks = requiring({"matchExpressions": [{"key": "gpu", "operator": "DoesNotExist"}]})
        assert failure(has, on_node(labels={"gpu": ""})) is None
        assert failure(has, on_node(labels={})) == self.MISMATCH
        assert failure(lacks, on_node(labels={})) is None
        assert failure(lacks, on_node(labels={"gpu": ""})) == self.MISMATCH

    def test_match_fields_read_the_node_name(self) -> None:
        only_b = requiring(
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-b"]}]}
        )
        assert failure(only_b, on_node("node-b")) is None
        assert failure(only_b, on_node("node-a")) == self.MISMATCH
        not_a = requiring(
            {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["node-a"]}]}
        )
        assert failure(not_a, on_node("node-b")) is None
        assert failure(not_a, on_node("node-a")) == self.MISMATCH

    def test_requirements_of_a_term_all_hold_and_any_term_may(self) -> None:
        both = {
            "matchExpressions": [{"key": "pool", "operator": "In", "values": ["cpu"]}],
            "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-b"]}],
        }
        spec = requiring(both)
        assert failure(spec, on_node("node-b", {"pool": "cpu"})) is None
        assert failure(spec, on_node("node-a", {"pool": "cpu"})) == self.MISMATCH
        assert failure(spec, on_node("node-b", {"pool": "gpu"})) == self.MISMATCH
        either = requiring(
            {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["gpu"]}]}, both
        )
        assert failure(either, on_node("node-a", {"pool": "gpu"})) is None
        assert failure(either, on_node("node-b", {"pool": "cpu"})) is None
        assert failure(either, on_node("node-a", {"pool": "cpu"})) == self.MISMATCH

    def test_an_empty_term_or_no_term_matches_no_node(self) -> None:
        assert failure(requiring({}), on_node(labels={"pool": "cpu"})) == self.MISMATCH
        assert failure(requiring(), on_node(labels={"pool": "cpu"})) == self.MISMATCH
