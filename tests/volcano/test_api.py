"""Resources in Volcano's units (``api/resource_info.go``), ``GetInqueueResource`` and the
placement fields of a pod the predicates read."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from pydantic import ValidationError
from raygang.kube.core import NodeSelectorRequirement, NodeSelectorTerm, PodSpec, Toleration
from raygang.volcano.api import Placement, inqueue_resource, to_res

from tests.volcano.conftest import (
    check,
    cluster,
    job,
    node,
    quantities,
    run,
)


class TestInqueueResource:
    """volcano.md §10.1 U16-U19: ``GetInqueueResource``."""

    def test_u16_nothing_allocated(self) -> None:
        got = inqueue_resource(
            quantities({"cpu": "4", "memory": "4096", "nvidia.com/gpu": "8"}), {}
        )
        assert got == {"cpu": 4000, "memory": 4096, "nvidia.com/gpu": 8000}

    def test_u17_part_allocated(self) -> None:
        allocated = {
            "cpu": Fraction(1000),
            "memory": Fraction(1024),
            "nvidia.com/gpu": Fraction(4000),
        }
        got = inqueue_resource(
            quantities({"cpu": "4", "memory": "4096", "nvidia.com/gpu": "8"}), allocated
        )
        assert got == {"cpu": 3000, "memory": 3072, "nvidia.com/gpu": 4000}

    def test_u18_scalar_fully_allocated(self) -> None:
        assert (
            inqueue_resource(
                quantities({"nvidia.com/gpu": "2"}), {"nvidia.com/gpu": Fraction(2000)}
            )
            == {}
        )

    def test_u19_pods_in_whole_units(self) -> None:
        allocated = {"cpu": Fraction(1000), "pods": Fraction(4)}
        assert inqueue_resource(quantities({"cpu": "4", "pods": "10"}), allocated) == {
            "cpu": 3000,
            "pods": 6,
        }

    def test_ephemeral_storage_is_not_reserved(self) -> None:
        assert inqueue_resource(quantities({"ephemeral-storage": "1Gi"}), {}) == {}


class TestExactUnits:
    def test_milli_cpu_sums_exactly(self) -> None:
        snap = cluster(node("n1", "1", "1Gi"))
        result = run(job(head={"cpu": "300m"}, workers=[("w", 7, {"cpu": "100m"})]), snap)
        assert result.verdict == "admitted", result.reasons  # 300m + 7 x 100m = 1 exactly
        result = run(job(head={"cpu": "301m"}, workers=[("w", 7, {"cpu": "100m"})]), snap)
        assert check(result, "capability").status == "fail"

    def test_decimal_and_binary_memory_differ(self) -> None:
        snap = cluster(node("n1", "4", "1G"))
        assert run(job(head={"cpu": "1", "memory": "1G"}), snap).verdict == "admitted"
        result = run(job(head={"cpu": "1", "memory": "1Gi"}), snap)
        assert "1 Insufficient memory." in check(result, "fit").message

    def test_volcano_units(self) -> None:
        got = to_res(
            quantities(
                {
                    "cpu": "1500m",
                    "memory": "1Ki",
                    "nvidia.com/gpu": "2",
                    "pods": "3",
                    "count/pods": "9",
                    "requests.cpu": "1",
                }
            )
        )
        assert got == {"cpu": 1500, "memory": 1024, "nvidia.com/gpu": 2000, "pods": 3}


class TestPlacement:
    """``Placement``: the pod spec's scheduling fields as the typed ``kube.core`` models."""

    GPU_TERM = {"matchExpressions": [{"key": "pool", "operator": "NotIn", "values": ["gpu"]}]}

    def spec(self, **fields: Any) -> dict[str, Any]:
        return {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}], **fields}

    def required(self, *terms: dict[str, Any]) -> dict[str, Any]:
        selector = {"nodeSelectorTerms": list(terms)}
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": selector}}

    def test_reads_the_typed_fields(self) -> None:
        placement = Placement.from_spec(
            self.spec(
                tolerations=[{"operator": "Exists"}, {"key": "gpu", "value": "on"}],
                nodeSelector={"zone": "a"},
                affinity=self.required(self.GPU_TERM),
            )
        )
        assert placement.tolerations == (
            Toleration(operator="Exists"),
            Toleration(key="gpu", value="on"),
        )
        assert placement.node_selector == {"zone": "a"}
        assert placement.required_terms == (
            NodeSelectorTerm(
                match_expressions=[
                    NodeSelectorRequirement(key="pool", operator="NotIn", values=["gpu"])
                ]
            ),
        )
        assert placement.unmodelled == ()

    def test_of_the_model_equals_from_the_mapping(self) -> None:
        raw = self.spec(tolerations=[{"key": "gpu", "operator": "Exists"}])
        assert Placement.of(PodSpec.model_validate(raw)) == Placement.from_spec(raw)

    def test_unset_required_affinity_differs_from_no_terms(self) -> None:
        assert Placement.from_spec(self.spec()).required_terms is None
        preferred = {"preferredDuringSchedulingIgnoredDuringExecution": []}
        assert (
            Placement.from_spec(self.spec(affinity={"nodeAffinity": preferred})).required_terms
            is None
        )
        assert Placement.from_spec(self.spec(affinity=self.required())).required_terms == ()

    def test_an_empty_or_missing_spec_places_anywhere(self) -> None:
        assert Placement.from_spec(None) == Placement()
        assert Placement.from_spec({}) == Placement()
        assert Placement.of(None) == Placement()

    def test_a_spec_of_the_wrong_shape_is_refused(self) -> None:
        with pytest.raises(ValidationError):
            Placement.from_spec(self.spec(tolerations=1))
        with pytest.raises(ValidationError):
            Placement.from_spec(self.spec(tolerations=[{"key": 1}]))

    def test_unmodelled_constraints(self) -> None:
        spec = self.spec(
            # An empty podAntiAffinity mapping constrains nothing.
            affinity={"podAntiAffinity": {}},
            topologySpreadConstraints=[{"maxSkew": 1}],
            schedulingGates=[{"name": "wait"}],
        )
        spec["containers"][0]["ports"].append({"containerPort": 8080, "hostPort": 8080})
        assert Placement.from_spec(spec).unmodelled == (
            "topology spread constraints",
            "host ports",
            "scheduling gates",
        )
        spec["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}}
        assert Placement.from_spec(spec).unmodelled[0] == "inter-pod affinity"
