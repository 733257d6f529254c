"""The queue check (the PodGroup webhook): missing, closed, declared and default queues."""

from __future__ import annotations

from tests.volcano.conftest import (
    check,
    cluster,
    declared,
    fixture,
    job,
    node,
    queue,
    run,
)


class TestQueue:
    def test_queue_not_found(self) -> None:
        result = run(job(queue_name="ray-typo"), fixture("cpu-only.yaml"))
        assert result.verdict == "stuck"
        assert result.never_admitted is True
        assert check(result, "queue").status == "fail"
        assert result.reasons[0].startswith(
            'admission webhook "validatepodgroup.volcano.sh" denied the request: '
            'unable to find queue: queue.scheduling.volcano.sh "ray-typo" not found -- '
        )
        assert "(default, ray-archive, ray-batch, root)" in result.reasons[0]

    def test_queue_closed(self) -> None:
        result = run(job(queue_name="ray-archive"), fixture("cpu-only.yaml"))
        assert result.verdict == "stuck"
        assert result.never_admitted is True
        assert result.reasons[0].startswith(
            'admission webhook "validatepodgroup.volcano.sh" denied the request: can only submit '
            "PodGroup to queue with state `Open`, queue `ray-archive` status is `Closed`. -- "
        )
        # proportion rejects too, but silently: one reason, not two.
        assert check(result, "proportion").status == "fail"
        assert len(result.reasons) == 1

    def test_declared_queue_observed_closed(self) -> None:
        q = declared("ray-archive", {"cpu": "8"})
        result = run(job(queue_name="ray-archive"), fixture("cpu-only.yaml"), queues=[q])
        assert check(result, "queue").status == "fail"

    def test_declared_queue_without_state_yet(self) -> None:
        # Just created: Volcano's queue controller has not written status.state yet.
        fresh = queue("ray-fresh", {"cpu": "8", "memory": "32Gi"})
        fresh["status"] = {}
        q = declared("ray-fresh", {"cpu": "8", "memory": "32Gi"})
        snapshot = cluster(node("n1", cpu="8", memory="32Gi"), queue("default"), fresh)
        result = run(job(queue_name="ray-fresh"), snapshot, queues=[q])
        assert check(result, "queue").status == "pass", check(result, "queue").message
        assert result.never_admitted is False
        assert result.verdict == "admitted"
        # Not declared by the stack: nothing waits for it to open, so it still fails.
        alone = run(job(queue_name="ray-fresh"), snapshot)
        assert check(alone, "queue").status == "fail"
        assert "not opened yet" in check(alone, "queue").message

    def test_declared_queue_not_yet_created(self) -> None:
        q = declared("ray-new", {"cpu": "8", "memory": "32Gi"})
        result = run(job(queue_name="ray-new"), fixture("cpu-only.yaml"), queues=[q])
        assert check(result, "queue").status == "pass"
        assert result.verdict == "admitted"

    def test_declared_spec_wins_over_observed(self) -> None:
        # The stack applies its spec: the new, smaller capability is what counts.
        q = declared("ray-batch", {"cpu": "1"})
        result = run(
            job(head={"cpu": "2"}, queue_name="ray-batch"), fixture("cpu-only.yaml"), queues=[q]
        )
        assert check(result, "capability").status == "fail"

    def test_default_queue_without_label(self) -> None:
        result = run(job(), fixture("cpu-only.yaml"))
        assert (
            "queue default (no volcano.sh/queue-name label) exists and is Open"
            in check(result, "queue").message
        )
