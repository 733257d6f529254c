"""Tests for raygang.kube.quantity.lists: resource lists, KubeRay's sums among them.

The KubeRay-shaped sums are research sections 4.3 and 8.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from raygang.kube.quantity import (
    Quantity,
    QuantityError,
    format_resource_list,
    max_resource_lists,
    parse_resource_list,
    scale_resource_list,
    sum_resource_lists,
)

from tests.kube.quantity.conftest import DEC, printed, q, resources

# --- KubeRay-shaped sums (research §4.3, §8) ---------------------------------------------------

SUBMITTER = {"cpu": "500m", "memory": "200Mi"}


def gang(
    head: Mapping[str, str], *groups: tuple[Mapping[str, str], int]
) -> list[dict[str, Quantity]]:
    """Head resources, then each worker group's pod resources times its replica count."""
    lists = [resources(head)]
    lists.extend(scale_resource_list(resources(pod), count) for pod, count in groups)
    return lists


class TestKubeRaySums:
    def test_v1_cluster(self) -> None:
        worker = {"cpu": "256m", "memory": "256Mi", "nvidia.com/gpu": "1"}
        totals = sum_resource_lists(gang({"cpu": "256m", "memory": "256Mi"}, (worker, 2)))
        assert printed(totals) == {"cpu": "768m", "memory": "768Mi", "nvidia.com/gpu": "2"}

    def test_v2_cluster_two_hosts(self) -> None:
        worker = {"cpu": "256m", "memory": "256Mi", "nvidia.com/gpu": "1"}
        totals = sum_resource_lists(gang({"cpu": "256m", "memory": "256Mi"}, (worker, 2 * 2)))
        assert printed(totals) == {"cpu": "1280m", "memory": "1280Mi", "nvidia.com/gpu": "4"}

    @pytest.mark.parametrize(
        ("hosts", "cpu", "memory"), [(1, "1268m", "968Mi"), (2, "1780m", "1480Mi")]
    )
    def test_v7_v10_rayjob_with_submitter(self, hosts: int, cpu: str, memory: str) -> None:
        pod = {"cpu": "256m", "memory": "256Mi"}
        lists = [*gang(pod, (pod, 2 * hosts)), resources(SUBMITTER)]
        assert printed(sum_resource_lists(lists)) == {"cpu": cpu, "memory": memory}

    @pytest.mark.parametrize(
        ("groups", "cpu", "memory"),
        [
            ([], "1", "100Mi"),  # R1
            ([({"cpu": "1", "memory": "200Mi"}, 2 * 4)], "9", "1700Mi"),  # R2 desired
            ([({"cpu": "1", "memory": "200Mi"}, 2 * 3)], "7", "1300Mi"),  # R2 min
            (
                [({"cpu": "2", "memory": "100Mi"}, 2 * 2), ({"cpu": "1", "memory": "200Mi"}, 3)],
                "12",
                "1100Mi",
            ),  # R3 desired
            (
                [({"cpu": "2", "memory": "100Mi"}, 2 * 1), ({"cpu": "1", "memory": "200Mi"}, 0)],
                "5",
                "300Mi",
            ),  # R3 min
            ([({"cpu": "1", "memory": "0"}, 2147483647)], "2147483648", "100Mi"),  # R6
        ],
    )
    def test_calculate_resources(
        self, groups: list[tuple[dict[str, str], int]], cpu: str, memory: str
    ) -> None:
        totals = sum_resource_lists(gang({"cpu": "1", "memory": "100Mi"}, *groups))
        assert printed(totals) == {"cpu": cpu, "memory": memory}

    def test_r6_overflows_int32_exactly(self) -> None:
        total = sum_resource_lists(
            [{"cpu": q("1")}, scale_resource_list({"cpu": q("1")}, 2147483647)]
        )
        assert str(total["cpu"]) == "2147483648"
        assert total["cpu"].format is DEC

    def test_d1_zero_replicas_keep_zero_keys(self) -> None:
        worker = {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"}
        totals = sum_resource_lists(gang({"cpu": "1", "memory": "2Gi"}, (worker, 0)))
        assert printed(totals) == {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "0"}

    def test_d4_autoscaling_min_zero_with_submitter(self) -> None:
        worker = {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"}
        lists = [*gang({"cpu": "1", "memory": "2Gi"}, (worker, 0)), resources(SUBMITTER)]
        assert printed(sum_resource_lists(lists)) == {
            "cpu": "1500m",
            "memory": "2248Mi",
            "nvidia.com/gpu": "0",
        }

    def test_d8_mixed_groups(self) -> None:
        head = sum_resource_lists(
            [
                resources({"cpu": "1", "memory": "1Gi"}),
                resources({"cpu": "500m", "memory": "512Mi"}),
            ]
        )
        g1 = scale_resource_list(
            resources({"cpu": "500m", "memory": "512Mi", "nvidia.com/gpu": "1"}), 3
        )
        g2 = scale_resource_list(
            resources(
                {"cpu": "4", "memory": "8Gi", "ephemeral-storage": "10Gi", "example.com/foo": "3"}
            ),
            1 * 4,
        )
        totals = sum_resource_lists([head, g1, g2, resources(SUBMITTER)])
        assert printed(totals) == {
            "cpu": "19500m",
            "ephemeral-storage": "40Gi",
            "example.com/foo": "12",
            "memory": "36040Mi",
            "nvidia.com/gpu": "3",
        }

    def test_d11_zero_request_then_submitter(self) -> None:
        lists = [resources({"cpu": "0", "memory": "1Gi"}), resources(SUBMITTER)]
        assert printed(sum_resource_lists(lists)) == {"cpu": "500m", "memory": "1224Mi"}

    @pytest.mark.parametrize(
        ("with_submitter", "cpu", "memory"),
        [(False, "2", "1536870912"), (True, "2500m", "1746586112")],
    )
    def test_d13_decimal_memory_first(self, with_submitter: bool, cpu: str, memory: str) -> None:
        lists = gang({"cpu": "1", "memory": "1G"}, ({"cpu": "1", "memory": "512Mi"}, 1))
        if with_submitter:
            lists.append(resources(SUBMITTER))
        assert printed(sum_resource_lists(lists)) == {"cpu": cpu, "memory": memory}

    def test_d14_single_contributor_keeps_parse_result(self) -> None:
        totals = sum_resource_lists([resources({"cpu": "1000m", "memory": "1024Mi"})])
        assert printed(totals) == {"cpu": "1", "memory": "1Gi"}

    @pytest.mark.parametrize(
        ("with_submitter", "cpu", "memory"), [(False, "3", "3Gi"), (True, "3500m", "3272Mi")]
    )
    def test_d15_fractions(self, with_submitter: bool, cpu: str, memory: str) -> None:
        lists = gang({"cpu": "1.5", "memory": "1.5Gi"}, ({"cpu": "0.5", "memory": "0.5Gi"}, 3))
        if with_submitter:
            lists.append(resources(SUBMITTER))
        assert printed(sum_resource_lists(lists)) == {"cpu": cpu, "memory": memory}

    def test_s1_sample(self) -> None:
        lists = [*gang({"cpu": "1", "memory": "2Gi"}, ({"cpu": "1", "memory": "1Gi"}, 2))]
        lists.append(resources(SUBMITTER))
        assert printed(sum_resource_lists(lists)) == {"cpu": "3500m", "memory": "4296Mi"}


# --- resource-list helpers -----------------------------------------------------------------------


class TestResourceLists:
    def test_sum_empty(self) -> None:
        assert sum_resource_lists([]) == {}
        assert sum_resource_lists([{}, {}]) == {}

    def test_sum_first_occurrence_is_kept_as_is(self) -> None:
        first = q("+1")
        totals = sum_resource_lists([{"cpu": first}, {"memory": q("01Gi")}])
        assert totals["cpu"] is first
        assert printed(totals) == {"cpu": "+1", "memory": "01Gi"}

    def test_sum_later_occurrences_are_canonical(self) -> None:
        totals = sum_resource_lists([{"cpu": q("+1")}, {"cpu": q("0")}])
        assert str(totals["cpu"]) == "1"

    def test_sum_key_order_is_first_seen(self) -> None:
        totals = sum_resource_lists(
            [{"memory": q("1Gi")}, {"cpu": q("1"), "memory": q("1Gi")}, {"a": q("0")}]
        )
        assert list(totals) == ["memory", "cpu", "a"]
        assert str(totals["a"]) == "0"

    def test_sum_does_not_mutate_inputs(self) -> None:
        a = {"cpu": q("1")}
        b = {"cpu": q("2")}
        sum_resource_lists([a, b])
        assert a == {"cpu": q("1")}
        assert str(a["cpu"]) == "1"

    def test_sum_accepts_a_generator(self) -> None:
        totals = sum_resource_lists({"cpu": q(f"{i}")} for i in range(1, 5))
        assert str(totals["cpu"]) == "10"

    def test_scale_by_zero_keeps_keys(self) -> None:
        scaled = scale_resource_list(resources({"cpu": "2", "nvidia.com/gpu": "1"}), 0)
        assert printed(scaled) == {"cpu": "0", "nvidia.com/gpu": "0"}

    def test_scale_keeps_format_and_order(self) -> None:
        scaled = scale_resource_list(resources({"memory": "256Mi", "cpu": "256m"}), 4)
        assert list(scaled) == ["memory", "cpu"]
        assert printed(scaled) == {"cpu": "1024m", "memory": "1Gi"}

    def test_parse_resource_list(self) -> None:
        parsed = parse_resource_list({"cpu": 1, "memory": "2Gi", "nvidia.com/gpu": "1", "x": 0.5})
        assert printed(parsed) == {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "1", "x": "500m"}
        assert list(parsed) == ["cpu", "memory", "nvidia.com/gpu", "x"]

    def test_parse_resource_list_names_the_key(self) -> None:
        with pytest.raises(QuantityError) as info:
            parse_resource_list({"memory": "1Gi", "cpu": "2 cores"})
        assert str(info.value).startswith('resource "cpu": invalid quantity "2 cores": expected')
        assert info.value.text == "2 cores"

    def test_parse_resource_list_rejects_bools(self) -> None:
        with pytest.raises(QuantityError, match='resource "cpu"'):
            parse_resource_list({"cpu": True})

    def test_format_sorts_keys(self) -> None:
        formatted = format_resource_list(
            {"nvidia.com/gpu": q("1"), "cpu": q("1500m"), "memory": q("1.5Gi")}
        )
        assert list(formatted) == ["cpu", "memory", "nvidia.com/gpu"]
        assert formatted == {"cpu": "1500m", "memory": "1536Mi", "nvidia.com/gpu": "1"}

    def test_format_keeps_parsed_text(self) -> None:
        assert format_resource_list({"cpu": q("+1")}) == {"cpu": "+1"}

    def test_max(self) -> None:
        a = {"cpu": q("1"), "memory": q("1Gi")}
        b = {"memory": q("2Gi"), "nvidia.com/gpu": q("1"), "cpu": q("500m")}
        result = max_resource_lists(a, b)
        assert list(result) == ["cpu", "memory", "nvidia.com/gpu"]
        assert printed(result) == {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "1"}

    def test_max_tie_keeps_a(self) -> None:
        a = {"cpu": q("1000m"), "memory": q("01Gi")}
        b = {"cpu": q("1"), "memory": q("1073741824")}
        result = max_resource_lists(a, b)
        assert result["cpu"] is a["cpu"]
        assert result["memory"] is a["memory"]
        assert printed(result) == {"cpu": "1", "memory": "01Gi"}

    def test_max_with_empty(self) -> None:
        a = {"cpu": q("1")}
        assert max_resource_lists(a, {}) == a
        assert max_resource_lists({}, a) == a
        assert max_resource_lists({}, {}) == {}
