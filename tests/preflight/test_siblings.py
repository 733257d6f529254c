"""The stack's jobs indexed by queue (``siblings``)."""

from __future__ import annotations

from raygang.kuberay.jobplan import JobPlan
from raygang.preflight.siblings import by_queue, siblings_of
from raygang.volcano.api import add_res, to_res

from tests.volcano.conftest import (
    job,
    plan_of,
)


class TestSiblingIndex:
    def test_matches_filtering_and_summing(self) -> None:
        plans: list[JobPlan] = [
            plan_of(
                job(
                    name=f"j{i}",
                    workers=[("w", i % 3, {"cpu": "1", "memory": "1Gi"})],
                    queue_name=("a", "b", None)[i % 3],
                )
            )
            for i in range(9)
        ]
        stack = tuple(plans)
        for plan in [*plans, plan_of(job(name="outsider", queue_name="a"))]:
            name = plan.queue or "default"
            expected = [
                o
                for o in plans
                if (o.queue or "default") == name
                and (o.namespace, o.name) != (plan.namespace, plan.name)
            ]
            total = add_res(*(to_res(o.gang.min_resources) for o in expected))
            for others in (stack, list(plans)):
                got, minimum = siblings_of(by_queue(others), plan, name)
                assert got == expected
                assert {k: v for k, v in minimum.items() if v} == {
                    k: v for k, v in total.items() if v
                }
