"""Resources in Volcano's units (``api/resource_info.go``) and ``GetInqueueResource``."""

from __future__ import annotations

from fractions import Fraction

from raygang.volcano.api import inqueue_resource, to_res

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
