"""The gang plugin (``plugins/gang/gang.go``): the PodGroup condition, in Volcano's words."""

from __future__ import annotations

from raygang.volcano.api import Placement, Task
from raygang.volcano.plugins.gang import gang_condition


def _task(pod: str) -> Task:
    return Task("worker group compute", "compute", pod, {"cpu": 1000}, Placement())


class TestGangCondition:
    def test_observed_on_volcano_1_14_1(self) -> None:
        """The condition a real Volcano v1.14.1 wrote for the dev stack on tainted nodes
        (3 gang pods and the submitter, nothing placed)."""
        fit = (
            "0/2 nodes are unavailable: 2 node(s) had untolerated taint "
            "{node.kubernetes.io/not-ready: }."
        )
        text = gang_condition(3, 4, 0, _task("demo-job-compute-worker-n6g5c"), fit)
        assert text == (
            "3/4 tasks in gang unschedulable: pod group is not ready, 3 minAvailable, "
            "4 Pending; Pending: 4 Unschedulable. Origin reason is "
            f"demo-job-compute-worker-n6g5c: {fit}"
        )

    def test_histograms_sort_as_strings(self) -> None:
        # "3 Pending" < "3 minAvailable": capital letters sort first.
        assert gang_condition(3, 3, 1, None, "") == (
            "2/3 tasks in gang unschedulable: pod group is not ready, 3 Pending, "
            "3 minAvailable; Pending: 1 Schedulable, 2 Unschedulable"
        )

    def test_fewer_pods_than_min_member(self) -> None:
        assert gang_condition(3, 2, 0, None, "") == (
            "3/2 tasks in gang unschedulable: pod group is not ready, 2 Pending, "
            "3 minAvailable; Pending: 2 Unschedulable"
        )
