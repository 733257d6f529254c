"""The drf plugin's job order (``plugins/drf/drf.go``): the dominant share."""

from __future__ import annotations

from fractions import Fraction

from raygang.volcano.plugins.drf import dominant_share

from tests.volcano.conftest import GI


class TestDominantShare:
    def test_the_largest_share_over_the_clusters_resources(self) -> None:
        total = {"cpu": 8_000, "memory": 16 * GI, "pods": 110}
        assert dominant_share({"cpu": 2_000, "memory": 12 * GI}, total) == Fraction(3, 4)
        assert dominant_share({"cpu": 6_000, "memory": GI}, total) == Fraction(3, 4)

    def test_pods_and_absent_resources_do_not_count(self) -> None:
        total = {"cpu": 8_000, "memory": 16 * GI, "pods": 10}
        assert dominant_share({"pods": 10}, total) == 0
        assert dominant_share({"nvidia.com/gpu": 1000}, total) == 0
        assert dominant_share({}, {}) == 0
