"""The enqueue action (``actions/enqueue/enqueue.go``, ``JobEnqueueable``): upstream vectors."""

from __future__ import annotations

from tests.volcano.conftest import (
    check,
    cluster,
    job,
    node,
    podgroup,
    quantities,
    queue,
    run,
    session,
)


class TestEnqueueVectors:
    """Volcano's own enqueue unit tests, as vectors."""

    def test_u1_nil_min_resources_is_admitted_without_a_vote(self) -> None:
        s = session(
            [queue("c1", {"cpu": "4", "memory": "4G"}), queue("c2", {"cpu": "4", "memory": "4G"})]
        )
        # No nodes at all: any vote with minResources would be rejected (realCapability 0).
        assert s.vote("c1", None) == (True, None)
        assert s.vote("c2", None) == (True, None)

    def test_u3_queue_missing_drops_the_job(self) -> None:
        s = session([queue("c2")])
        assert s.vote("c1", quantities({"cpu": "1"})) == (False, None)
        result = run(job(queue_name="c1"), cluster(queue("c2"), node("n1", "4")))
        assert check(result, "queue").status == "fail"

    def test_u4_only_pending_podgroups_are_enqueued(self) -> None:
        s = session(
            [
                node("n1", "8"),
                queue("c1", {"cpu": "4", "memory": "4G"}),
                podgroup("inq", "c1", "Inqueue", 1, {"cpu": "1"}),
                podgroup("run", "c1", "Running", 1, {"cpu": "1"}),
                podgroup("pend", "c1", "Pending", 1, {"cpu": "1"}),
            ]
        )
        assert [a.name for a in s.admitted_before()] == ["ns1/pend"]
