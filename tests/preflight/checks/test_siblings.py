"""The advisory siblings check: the stack's other jobs of the same queue."""

from __future__ import annotations

from tests.volcano.conftest import (
    check,
    cluster,
    declared,
    fixture,
    job,
    node,
    run,
)


class TestSiblings:
    def test_siblings_in_the_same_queue_are_advisory(self) -> None:
        q = declared("ray-batch", {"cpu": "8", "memory": "32Gi"})
        snap = cluster(node("n1", "16"), node("n2", "16"))
        mine = job(head={"cpu": "1"}, workers=[("w", 2, {"cpu": "2"})], queue_name="ray-batch")
        other = job(
            head={"cpu": "1"},
            workers=[("w", 2, {"cpu": "2"})],
            queue_name="ray-batch",
            name="other",
        )
        result = run(mine, snap, queues=[q], others=[other, mine])
        siblings = check(result, "siblings")
        assert siblings.status == "warn"
        assert (
            "with default/other (same stack, same queue ray-batch): "
            "queue resource quota insufficient" in siblings.message
        )
        assert result.verdict == "admitted"  # not counted in the verdict
        assert result.reasons == ()

    def test_siblings_without_snapshot_compare_against_capability(self) -> None:
        q = declared("ray-batch", {"cpu": "8"})
        mine = job(head={"cpu": "5"}, queue_name="ray-batch")
        other = job(head={"cpu": "5"}, queue_name="ray-batch", name="other")
        result = run(mine, queues=[q], others=[other])
        assert check(result, "siblings").status == "warn"
        assert (
            "together they need cpu 10, queue ray-batch capability is cpu 8"
            in check(result, "siblings").message
        )

    def test_siblings_in_other_queues_are_ignored(self) -> None:
        other = job(head={"cpu": "5"}, queue_name="elsewhere", name="other")
        result = run(job(), fixture("cpu-only.yaml"), others=[other])
        assert check(result, "siblings").message == "no other job of this stack uses queue default"
