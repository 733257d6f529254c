"""What a planning pass reads once (``volcano/stack.py``): a stack judged in one pass gives what
each job judged alone gives, and nothing of a pass is kept after the next."""

from __future__ import annotations

import copy
import gc
import weakref
from typing import Any

from raygang.kube.snapshot import snapshot_from_objects
from raygang.loader import load_documents
from raygang.pipeline import plan_everything
from raygang.preflight.run import preflight_job
from raygang.settings import StackSettings

from tests.volcano.conftest import (
    HERE,
    NOW,
    cluster,
    job,
    node,
    plan_of,
    pod,
    podgroup,
    queue,
)


def _stack_docs(count: int) -> list[tuple[str, object]]:
    docs: list[tuple[str, object]] = []
    for index in range(count):
        manifest = job(
            name=f"job-{index}",
            head={"cpu": "1", "memory": "2Gi"},
            workers=[
                ("small", 1 + index % 3, {"cpu": "2", "memory": "4Gi"}),
                ("big", index % 2, {"cpu": f"{3 + index % 4}", "memory": "12Gi"}),
                # Every fifth job asks for more than the nodes can hold at once.
                ("wide", 6 * (index % 5 == 4), {"cpu": "7", "memory": "20Gi"}),
            ],
            queue_name=("batch", "adhoc")[index % 2],
        )
        docs.append((f"jobs.yaml (document {index + 1})", manifest))
    return docs


def _snapshot_objects() -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = [queue("batch"), queue("adhoc", {"cpu": "40"})]
    objects += [node(f"n{i:02d}", cpu=str(8 + 4 * (i % 3)), memory="48Gi") for i in range(12)]
    objects += [
        pod(f"busy-{i}", f"n{i:02d}", {"cpu": "3", "memory": "8Gi"}) for i in range(0, 12, 2)
    ]
    # Another job's gang, Inqueue with pending pods: placed before every job of the stack.
    objects.append(podgroup("other-pg", "batch", "Inqueue", 2, {"cpu": "10", "memory": "20Gi"}))
    objects += [
        pod(f"other-{i}", None, {"cpu": "5", "memory": "10Gi"}, group="other-pg", phase="Pending")
        for i in range(2)
    ]
    return objects


class TestStackView:
    """A stack judged in one pass (the snapshot read once) gives what each job judged alone
    gives."""

    def test_one_pass_and_each_job_alone_agree(self) -> None:
        docs = load_documents(_stack_docs(12))
        snapshot = snapshot_from_objects(_snapshot_objects(), "test")
        settings = StackSettings()
        whole = plan_everything(docs, settings, base=HERE, snapshot=snapshot, now=NOW)
        verdicts = {j.preflight.verdict for j in whole.jobs}
        assert verdicts == {"admitted", "stuck"}, "the stack should exercise both paths"
        declared = {q.name: q for q in whole.queues}
        for planned in whole.jobs:
            # A snapshot of the same objects, read for this job alone.
            fresh = snapshot_from_objects(copy.deepcopy(_snapshot_objects()), "test")
            alone = preflight_job(
                planned.plan,
                queues=declared,
                snapshot=fresh,
                others=[j.plan for j in whole.jobs],
            )
            assert alone == planned.preflight, planned.plan.name

    def test_an_earlier_stack_is_not_kept_alive(self) -> None:
        """Nothing of a pass outlives it (per-pass caches once held four stacks: a process
        planning 1000-job stacks over and over kept 2.4 million objects)."""
        snapshot = snapshot_from_objects(_snapshot_objects(), "test")
        first = plan_everything(
            load_documents(_stack_docs(3)), StackSettings(), base=HERE, snapshot=snapshot, now=NOW
        )
        gone = weakref.ref(first.jobs[0].plan.item)
        del first
        plan_everything(
            load_documents(_stack_docs(2)), StackSettings(), base=HERE, snapshot=snapshot, now=NOW
        )
        gc.collect()
        assert gone() is None

    def test_own_objects_are_left_out(self) -> None:
        """A job whose PodGroup and pods exist is judged as on a cluster without them."""
        manifest = job(
            name="again",
            workers=[("w", 2, {"cpu": "4", "memory": "8Gi"})],
            queue_name="batch",
        )
        plan = plan_of(manifest)
        own = [
            podgroup(plan.podgroup_name, "batch", "Running", 3, {"cpu": "9", "memory": "18Gi"}),
            pod("again-head", "n00", {"cpu": "1", "memory": "2Gi"}, group=plan.podgroup_name),
            pod("again-w-1", "n01", {"cpu": "4", "memory": "8Gi"}, group=plan.podgroup_name),
            pod("again-w-2", "n02", {"cpu": "4", "memory": "8Gi"}, group=plan.podgroup_name),
        ]
        for obj in own:
            obj["metadata"]["namespace"] = plan.namespace
        base = [queue("batch")] + [node(f"n{i:02d}", cpu="6", memory="16Gi") for i in range(3)]
        without = preflight_job(plan, queues={}, snapshot=cluster(base))
        with_own = preflight_job(plan, queues={}, snapshot=cluster(base, own))
        assert with_own.verdict == without.verdict == "admitted"
        assert [c for c in with_own.checks if c.name != "snapshot"] == [
            c for c in without.checks if c.name != "snapshot"
        ]
        snapshot_check = with_own.check("snapshot")
        assert snapshot_check is not None and "already exists" in snapshot_check.message
