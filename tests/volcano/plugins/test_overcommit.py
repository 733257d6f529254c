"""The overcommit plugin (``plugins/overcommit/overcommit.go``): upstream vectors."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tests.volcano.conftest import (
    check,
    cluster,
    job,
    node,
    podgroup,
    run,
    session,
)


class TestOvercommitVectors:
    """Volcano's own overcommit unit tests, as vectors."""

    def _overcommit_nodes(self) -> list[dict[str, Any]]:
        return [node("n1", "2", "4Gi"), node("n2", "4", "16Gi")]  # 7.2 cpu / 24Gi of budget

    def test_u12_overcommit_permits_within_1_2x(self) -> None:
        snap = cluster(
            *self._overcommit_nodes(),
            podgroup("x", "default", "Inqueue", 1, {"cpu": "2", "memory": "2G"}),
            podgroup("y", "default", "Pending", 1, {"cpu": "2", "memory": "2G"}),
        )
        result = run(job(head={"cpu": "2", "memory": "2G"}), snap)
        overcommit = check(result, "overcommit")
        assert overcommit.status == "pass"  # 2 + 2 + 2 = 6 <= 7.2
        assert "1 Pending PodGroup(s) are admitted first" in overcommit.message

    def test_u13_factor_below_one_falls_back_to_1_2(self) -> None:
        snap = cluster(
            *self._overcommit_nodes(),
            podgroup("x", "default", "Inqueue", 1, {"cpu": "2", "memory": "2G"}),
            podgroup("y", "default", "Pending", 1, {"cpu": "2", "memory": "2G"}),
        )
        result = run(job(head={"cpu": "2", "memory": "2G"}), snap, overcommit_factor=Fraction(4, 5))
        assert check(result, "overcommit").status == "pass"
        assert "1.2 x allocatable" in check(result, "overcommit").message

    def test_u14_too_large_for_the_overcommit_budget(self) -> None:
        snap = cluster(
            *self._overcommit_nodes(),
            podgroup("x", "default", "Inqueue", 1, {"cpu": "20", "memory": "20G"}),
        )
        result = run(job(head={"cpu": "20", "memory": "20G"}), snap)
        overcommit = check(result, "overcommit")
        assert overcommit.status == "fail"
        assert overcommit.message.startswith(
            "resource in cluster is overused: overused cpu, overused memory: "
        )

    def test_u15_nil_min_resources_is_permitted(self) -> None:
        s = session(
            [*self._overcommit_nodes(), podgroup("x", "default", "Inqueue", 1, {"cpu": "20"})]
        )
        assert s.vote("default", None) == (True, None)
