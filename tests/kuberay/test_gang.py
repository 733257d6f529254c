"""Gang arithmetic: KubeRay's Volcano adapter vectors, and the effective accounting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.kube.quantity import Quantity, format_resource_list
from raygang.kuberay.gang import (
    Accounting,
    GangOverflow,
    compute_gang,
    desired_worker_replicas,
    kuberay_gang_for_cluster,
    min_worker_replicas,
)
from raygang.rayjob.spec import RayClusterSpec, RayJob, WorkerGroupSpec, parse_rayjob

from tests.builders import container, rayjob, worker

SHARED = Path(__file__).resolve().parents[3] / "shared"


def job_of(manifest: dict[str, Any]) -> RayJob:
    return parse_rayjob(manifest, "test").job


def kuberay(manifest: dict[str, Any]) -> tuple[int, dict[str, str]]:
    gang = compute_gang(job_of(manifest), Accounting.KUBERAY)
    return gang.min_member, gang.min_resources_strings()


def effective(manifest: dict[str, Any]) -> tuple[int, dict[str, str]]:
    gang = compute_gang(job_of(manifest), Accounting.EFFECTIVE)
    return gang.min_member, gang.min_resources_strings()


# --- KubeRay's volcano_scheduler_test.go fixtures (research kuberay.md §8.1) -------------

FX_HEAD = container(
    "ray-head", {"cpu": "256m", "memory": "256Mi"}, {"cpu": "500m", "memory": "512Mi"}
)


def fx_c(hosts: int, **cluster: Any) -> RayClusterSpec:
    """FX-C(n): the RayCluster fixture (the worker has a GPU limit)."""
    w = worker(
        "workergroup",
        2,
        1,
        4,
        hosts,
        [
            container(
                "ray-worker",
                {"cpu": "256m", "memory": "256Mi"},
                {"cpu": "500m", "memory": "512Mi", "nvidia.com/gpu": "1"},
            )
        ],
    )
    job = rayjob(head=[FX_HEAD], workers=[w], **cluster)
    return job_of(job).spec.ray_cluster_spec  # type: ignore[return-value]


def fx_j(hosts: int, mode: str) -> dict[str, Any]:
    """FX-J(n): the RayJob fixture (no GPU limit on the worker)."""
    w = worker(
        "workergroup",
        2,
        1,
        4,
        hosts,
        [
            container(
                "ray-worker", {"cpu": "256m", "memory": "256Mi"}, {"cpu": "500m", "memory": "512Mi"}
            )
        ],
    )
    return rayjob(
        head=[FX_HEAD],
        workers=[w],
        mode=mode,
        labels={
            "volcano.sh/queue-name": "test-queue",
            "ray.io/priority-class-name": "test-priority",
        },
    )


class TestKubeRayUnitVectors:
    def test_v1_raycluster_desired(self) -> None:
        members, res, _ = kuberay_gang_for_cluster(fx_c(1))
        assert members == 3
        assert format_resource_list(res) == {
            "cpu": "768m",
            "memory": "768Mi",
            "nvidia.com/gpu": "2",
        }

    def test_v2_raycluster_num_of_hosts_2(self) -> None:
        members, res, _ = kuberay_gang_for_cluster(fx_c(2))
        assert members == 5
        assert format_resource_list(res) == {
            "cpu": "1280m",
            "memory": "1280Mi",
            "nvidia.com/gpu": "4",
        }

    @pytest.mark.parametrize(
        ("hosts", "mode", "members", "cpu", "memory"),
        [
            (1, "HTTPMode", 3, "768m", "768Mi"),  # V6
            (1, "K8sJobMode", 3, "1268m", "968Mi"),  # V7
            (1, "SidecarMode", 3, "1268m", "968Mi"),  # V8
            (2, "HTTPMode", 5, "1280m", "1280Mi"),  # V9
            (2, "K8sJobMode", 5, "1780m", "1480Mi"),  # V10
            (2, "SidecarMode", 5, "1780m", "1480Mi"),  # V11
        ],
    )
    def test_v6_to_v11_rayjob(
        self, hosts: int, mode: str, members: int, cpu: str, memory: str
    ) -> None:
        assert kuberay(fx_j(hosts, mode)) == (members, {"cpu": cpu, "memory": memory})

    def test_v14_autoscaling_uses_min_replicas(self) -> None:
        members, res, _ = kuberay_gang_for_cluster(fx_c(1, autoscaling=True))
        assert members == 2
        assert format_resource_list(res) == {
            "cpu": "512m",
            "memory": "512Mi",
            "nvidia.com/gpu": "1",
        }

    def test_v26_v27_live_spec_with_sidecar_submitter(self) -> None:
        cluster = job_of(fx_j(1, "K8sJobMode")).spec.ray_cluster_spec
        assert cluster is not None
        members, res, _ = kuberay_gang_for_cluster(cluster)
        assert (members, format_resource_list(res)) == (3, {"cpu": "768m", "memory": "768Mi"})
        extra = job_of(rayjob(head=[container("submitter", {"cpu": "200m", "memory": "200Mi"})]))
        sub = extra.spec.ray_cluster_spec.head_group_spec.template.spec.containers[0]  # type: ignore[union-attr]
        members, res, _ = kuberay_gang_for_cluster(cluster, (sub,))
        assert (members, format_resource_list(res)) == (3, {"cpu": "968m", "memory": "968Mi"})

    def test_v28_all_workers_suspended(self) -> None:
        w = worker(
            "workergroup",
            2,
            1,
            4,
            1,
            [container("w", {"cpu": "256m", "memory": "256Mi"})],
            suspend=True,
        )
        cluster = job_of(rayjob(head=[FX_HEAD], workers=[w])).spec.ray_cluster_spec
        members, res, _ = kuberay_gang_for_cluster(cluster)  # type: ignore[arg-type]
        assert (members, format_resource_list(res)) == (1, {"cpu": "256m", "memory": "256Mi"})


def _group(**kw: Any) -> WorkerGroupSpec:
    return WorkerGroupSpec.model_validate(worker(**kw))


class TestReplicaCounts:
    @pytest.mark.parametrize(
        ("replicas", "low", "high", "hosts", "suspend", "expected"),
        [
            (None, 1, 5, 1, None, 1),
            (3, 1, 5, 1, None, 3),
            (6, 1, 5, 1, None, 5),
            (0, 1, 5, 1, None, 1),
            (0, 5, 1, 1, True, 0),
            (5, 1, 5, 4, False, 20),
        ],
    )
    def test_get_worker_group_desired_replicas(
        self,
        replicas: int | None,
        low: int,
        high: int,
        hosts: int,
        suspend: bool | None,
        expected: int,
    ) -> None:
        group = _group(
            replicas=replicas,
            min_replicas=low,
            max_replicas=high,
            num_of_hosts=hosts,
            suspend=suspend,
        )
        assert desired_worker_replicas(group) == expected

    @pytest.mark.parametrize(
        ("g1", "g2", "expected"),
        [
            ((None, 1, 1, 5), (None, 1, 2, 5), 3),
            ((0, 1, 2, 5), (6, 1, 2, 5), 7),
            ((6, 1, 2, 5), (3, 1, 2, 5), 8),
            ((3, 4, 1, 6), (3, 1, 2, 5), 15),
        ],
    )
    def test_calculate_desired_replicas(
        self, g1: tuple[Any, ...], g2: tuple[Any, ...], expected: int
    ) -> None:
        groups = [
            _group(group=f"g{i}", replicas=r, num_of_hosts=nh, min_replicas=lo, max_replicas=hi)
            for i, (r, nh, lo, hi) in enumerate((g1, g2))
        ]
        assert sum(desired_worker_replicas(g) for g in groups) == expected

    @pytest.mark.parametrize(
        ("groups", "expected"),
        [
            ([(1, 2, 3, None)], 2),
            ([(4, 2, 3, None)], 8),
            ([(1, 4, 4, None), (2, 3, 3, None)], 10),
            ([(1, 3, 3, True), (1, 1, 1, True)], 0),
        ],
    )
    def test_calculate_min_replicas(self, groups: list[tuple[Any, ...]], expected: int) -> None:
        built = [
            _group(group=f"g{i}", num_of_hosts=nh, min_replicas=lo, max_replicas=hi, suspend=s)
            for i, (nh, lo, hi, s) in enumerate(groups)
        ]
        assert sum(min_worker_replicas(g) for g in built) == expected

    @pytest.mark.parametrize("accounting", list(Accounting))
    def test_replicas_times_hosts_beyond_int32_is_refused_not_wrapped(
        self, accounting: Accounting
    ) -> None:
        # KubeRay's Go arithmetic wraps to -2 here; raygang refuses before multiplying.
        w = worker("w", 2147483647, 0, 2147483647, 2, [container("w", {"cpu": "1"})])
        with pytest.raises(GangOverflow) as info:
            compute_gang(job_of(rayjob(workers=[w])), accounting)
        # The validation's words (raygang.rayjob.replicas, the rule written once).
        assert str(info.value).startswith(
            "replicas 2147483647 × numOfHosts 2 = 4294967294 pods in worker group w, more "
            "than 2147483647, the largest int32"
        )
        assert info.value.path == "spec.rayClusterSpec.workerGroupSpecs[0].replicas"
        assert info.value.accepted.endswith("with numOfHosts 2, replicas at most 1073741823")

    @pytest.mark.parametrize("accounting", list(Accounting))
    def test_min_member_sum_beyond_int32_is_refused(self, accounting: Accounting) -> None:
        # 1 head + 2147483647 workers: KubeRay's int32 sum wraps to -2147483648.
        w = worker("w", 2147483647, 0, None, 1, [container("w", {"cpu": "1"})])
        with pytest.raises(GangOverflow) as info:
            compute_gang(job_of(rayjob(workers=[w])), accounting)
        assert str(info.value).startswith(
            "minMember would be 1 + 2147483647 pods of worker group w = 2147483648, more than "
            "2147483647"
        )
        assert info.value.path == "spec.rayClusterSpec.workerGroupSpecs[0]"
        assert "at most 2147483646 from this group" in info.value.accepted

    @pytest.mark.parametrize("accounting", list(Accounting))
    def test_resource_product_beyond_the_quantity_range_is_refused(
        self, accounting: Accounting
    ) -> None:
        w = worker("w", 100000, 0, None, 1, [container("w", {"cpu": "1P"})])
        with pytest.raises(GangOverflow) as info:
            compute_gang(job_of(rayjob(workers=[w])), accounting)
        assert str(info.value) == (
            "worker group w: 100000 pods × cpu 1P = 100E is more than 9223372036854775807 "
            "(2^63-1), the largest quantity Kubernetes accepts"
        )
        assert (
            info.value.accepted
            == "at most 9223 pods of this group with cpu 1P each, or less cpu per pod"
        )

    @pytest.mark.parametrize("accounting", list(Accounting))
    def test_summed_resources_beyond_the_quantity_range_are_refused(
        self, accounting: Accounting
    ) -> None:
        head = [container("head", {"cpu": "8E"})]
        w = worker("w", 1, 0, None, 1, [container("w", {"cpu": "8E"})])
        with pytest.raises(
            GangOverflow, match=r"minResources cpu would be 16(E|0{18}500m), more than"
        ):
            compute_gang(job_of(rayjob(head=head, workers=[w])), accounting)


class TestCalculateResources:
    """util_test.go TestCalculateResources (R1-R6): desired = autoscaling off, min = on."""

    HEAD = [container("head", {"cpu": "1", "memory": "100Mi"})]

    @pytest.mark.parametrize(
        ("groups", "desired", "minimum"),
        [
            ([], ("1", "100Mi"), ("1", "100Mi")),
            ([(2, 4, 3, "1", "200Mi", None)], ("9", "1700Mi"), ("7", "1300Mi")),
            (
                [(2, 2, 1, "2", "100Mi", None), (1, 3, 0, "1", "200Mi", None)],
                ("12", "1100Mi"),
                ("5", "300Mi"),
            ),
            ([(2, 3, 0, "2", "200Mi", True)], ("1", "100Mi"), ("1", "100Mi")),
            ([(1, 3, 2, "4", "200Mi", True)], ("1", "100Mi"), ("1", "100Mi")),
            # R6 (2147483647 replicas) is refused instead: minMember would pass int32.
            (
                [(1, 2147483646, 2147483646, "1", "0", None)],
                ("2147483647", "100Mi"),
                ("2147483647", "100Mi"),
            ),
        ],
    )
    def test_r1_to_r6(
        self, groups: list[tuple[Any, ...]], desired: tuple[str, str], minimum: tuple[str, str]
    ) -> None:
        workers = [
            worker(
                f"g{i}", r, lo, None, nh, [container("w", {"cpu": cpu, "memory": mem})], suspend=s
            )
            for i, (nh, r, lo, cpu, mem, s) in enumerate(groups)
        ]
        for scaling, (cpu, mem) in ((False, desired), (True, minimum)):
            job = job_of(rayjob(head=self.HEAD, workers=workers, autoscaling=scaling))
            _, res, _ = kuberay_gang_for_cluster(job.spec.ray_cluster_spec)  # type: ignore[arg-type]
            assert format_resource_list(res) == {"cpu": cpu, "memory": mem}

    def test_limits_fill_missing_requests_without_mutating(self) -> None:
        head = [container("head", {"cpu": "1"}, {"cpu": "1", "memory": "200Mi"})]
        job = job_of(rayjob(head=head))
        _, res, _ = kuberay_gang_for_cluster(job.spec.ray_cluster_spec)  # type: ignore[arg-type]
        assert format_resource_list(res) == {"cpu": "1", "memory": "200Mi"}
        assert (
            "memory"
            not in job.spec.ray_cluster_spec.head_group_spec.template.spec.containers[
                0
            ].resources.requests
        )  # type: ignore[union-attr]


H = [container("ray-head", {"cpu": "1", "memory": "2Gi"})]


def W(r: Any, lo: Any, hi: Any, nh: Any = 1, **kw: Any) -> dict[str, Any]:
    return worker(
        "gpu",
        r,
        lo,
        hi,
        nh,
        [container("w", {"cpu": "2", "memory": "4Gi"}, {"nvidia.com/gpu": "1"})],
        **kw,
    )


D8_HEAD = [
    container("c1", {"cpu": "1", "memory": "1Gi"}, {"cpu": "2", "memory": "2Gi"}),
    container("c2", None, {"cpu": "500m", "memory": "512Mi"}),
]


def d8_workers(g3_suspend: bool) -> list[dict[str, Any]]:
    return [
        worker(
            "g1",
            3,
            1,
            5,
            1,
            [container("w", {"cpu": "500m", "memory": "512Mi"}, {"nvidia.com/gpu": "1"})],
        ),
        worker(
            "g2",
            1,
            1,
            2,
            4,
            [
                container(
                    "w",
                    {
                        "cpu": "4",
                        "memory": "8Gi",
                        "ephemeral-storage": "10Gi",
                        "example.com/foo": "3",
                    },
                )
            ],
        ),
        worker(
            "g3", 2, 2, 2, 1, [container("w", {"cpu": "8", "memory": "16Gi"})], suspend=g3_suspend
        ),
    ]


class TestDerivedVectors:
    """research kuberay.md §8.3: derived with the real apimachinery code."""

    @pytest.mark.parametrize(
        ("manifest", "members", "resources"),
        [
            pytest.param(
                rayjob(head=H, workers=[W(0, 2, 5)], mode="HTTPMode"),
                3,
                {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "0"},
                id="D1",
            ),
            pytest.param(
                rayjob(head=H, workers=[W(6, 1, 4)], mode="HTTPMode"),
                5,
                {"cpu": "13", "memory": "26Gi", "nvidia.com/gpu": "6"},
                id="D2",
            ),
            pytest.param(
                rayjob(head=H, workers=[W(None, 2, 5)], mode="HTTPMode"),
                3,
                {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "0"},
                id="D3",
            ),
            pytest.param(
                rayjob(head=H, workers=[W(3, 0, 10)], autoscaling=True),
                1,
                {"cpu": "1500m", "memory": "2248Mi", "nvidia.com/gpu": "0"},
                id="D4",
            ),
            pytest.param(
                rayjob(
                    head=H,
                    workers=[W(2, 0, 2)],
                    submitter_template={"spec": {"containers": [container("s", {"cpu": "100m"})]}},
                ),
                3,
                {"cpu": "5100m", "memory": "10Gi", "nvidia.com/gpu": "2"},
                id="D5",
            ),
            pytest.param(
                rayjob(
                    head=H,
                    workers=[W(2, 0, 2)],
                    submitter_template={"spec": {"containers": [container("s")]}},
                ),
                3,
                {"cpu": "5", "memory": "10Gi", "nvidia.com/gpu": "2"},
                id="D6",
            ),
            pytest.param(
                rayjob(head=H, workers=[W(2, 0, 2)], mode="InteractiveMode"),
                3,
                {"cpu": "5", "memory": "10Gi", "nvidia.com/gpu": "2"},
                id="D7",
            ),
            pytest.param(
                rayjob(head=D8_HEAD, workers=d8_workers(True)),
                8,
                {
                    "cpu": "19500m",
                    "ephemeral-storage": "40Gi",
                    "example.com/foo": "12",
                    "memory": "36040Mi",
                    "nvidia.com/gpu": "3",
                },
                id="D8",
            ),
            pytest.param(
                rayjob(head=D8_HEAD, workers=d8_workers(False), autoscaling=True),
                8,
                {
                    "cpu": "34500m",
                    "ephemeral-storage": "40Gi",
                    "example.com/foo": "12",
                    "memory": "67784Mi",
                    "nvidia.com/gpu": "1",
                },
                id="D9",
            ),
            pytest.param(
                rayjob(head=H, workers=[W(0, 0, None)], mode="HTTPMode"),
                1,
                {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "0"},
                id="D10",
            ),
            pytest.param(
                rayjob(
                    head=[
                        container("h", {"cpu": "0", "memory": "1Gi"}, {"cpu": "2", "memory": "4Gi"})
                    ],
                    mode="SidecarMode",
                ),
                1,
                {"cpu": "500m", "memory": "1224Mi"},
                id="D11",
            ),
            pytest.param(
                rayjob(head=H, workers=[W(2, 1, 4, 0)], mode="HTTPMode"),
                1,
                {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "0"},
                id="D12",
            ),
            pytest.param(
                rayjob(
                    head=[container("h", {"cpu": "1", "memory": "1G"})],
                    workers=[
                        worker("w", 1, 1, 1, 1, [container("w", {"cpu": "1", "memory": "512Mi"})])
                    ],
                    mode="HTTPMode",
                ),
                2,
                {"cpu": "2", "memory": "1536870912"},
                id="D13",
            ),
            pytest.param(
                rayjob(
                    head=[container("h", {"cpu": "1", "memory": "1G"})],
                    workers=[
                        worker("w", 1, 1, 1, 1, [container("w", {"cpu": "1", "memory": "512Mi"})])
                    ],
                ),
                2,
                {"cpu": "2500m", "memory": "1746586112"},
                id="D13b",
            ),
            pytest.param(
                rayjob(
                    head=[container("h", {"cpu": "1000m", "memory": "1024Mi"})], mode="HTTPMode"
                ),
                1,
                {"cpu": "1", "memory": "1Gi"},
                id="D14",
            ),
            pytest.param(
                rayjob(
                    head=[container("h", {"cpu": "1.5", "memory": "1.5Gi"})],
                    workers=[
                        worker("w", 3, 3, 3, 1, [container("w", {"cpu": "0.5", "memory": "0.5Gi"})])
                    ],
                    mode="HTTPMode",
                ),
                4,
                {"cpu": "3", "memory": "3Gi"},
                id="D15",
            ),
            pytest.param(
                rayjob(
                    head=[container("h", {"cpu": "1.5", "memory": "1.5Gi"})],
                    workers=[
                        worker("w", 3, 3, 3, 1, [container("w", {"cpu": "0.5", "memory": "0.5Gi"})])
                    ],
                ),
                4,
                {"cpu": "3500m", "memory": "3272Mi"},
                id="D15b",
            ),
            pytest.param(
                rayjob(
                    head=H,
                    workers=[
                        worker(
                            "w",
                            2,
                            None,
                            None,
                            2,
                            [
                                container("a", {"cpu": "1", "memory": "1Gi"}),
                                container("b", {"cpu": "250m", "memory": "256Mi"}),
                            ],
                        )
                    ],
                    mode="SidecarMode",
                ),
                5,
                {"cpu": "6500m", "memory": "7368Mi"},
                id="D18",
            ),
            pytest.param(
                rayjob(head=H, workers=[W(1, 3, 5, 2)], autoscaling=True, mode="HTTPMode"),
                7,
                {"cpu": "13", "memory": "26Gi", "nvidia.com/gpu": "6"},
                id="D19",
            ),
        ],
    )
    def test_vector(
        self, manifest: dict[str, Any], members: int, resources: dict[str, str]
    ) -> None:
        assert kuberay(manifest) == (members, resources)


class TestKubeRaySample:
    """S1-S3: KubeRay's own ray-job.volcano-scheduler-queue.yaml sample."""

    def sample(self) -> dict[str, Any]:
        path = SHARED / "samples" / "kuberay" / "ray-job.volcano-scheduler-queue.yaml"
        if not path.is_file():
            pytest.skip(
                f"{path} is absent (the shared research folder is not beside this checkout)"
            )
        return next(
            d for d in yaml.safe_load_all(path.read_text()) if d and d.get("kind") == "RayJob"
        )

    @pytest.mark.parametrize(
        ("mode", "resources"),
        [
            ("K8sJobMode", {"cpu": "3500m", "memory": "4296Mi"}),
            ("HTTPMode", {"cpu": "3", "memory": "4Gi"}),
            ("SidecarMode", {"cpu": "3500m", "memory": "4296Mi"}),
        ],
    )
    def test_s1_s2_s3(self, mode: str, resources: dict[str, str]) -> None:
        manifest = self.sample()
        manifest["spec"]["submissionMode"] = mode
        assert kuberay(manifest) == (3, resources)


class TestEffectiveAccounting:
    def test_dev_stack_shape(self) -> None:
        job = rayjob(
            name="demo-job",
            head=H,
            workers=[
                worker("compute", 2, 2, 2, 1, [container("w", {"cpu": "2", "memory": "4Gi"})])
            ],
            submitter_template={
                "spec": {"containers": [container("s", {"cpu": "500m", "memory": "512Mi"})]}
            },
        )
        assert effective(job) == (3, {"cpu": "5500m", "memory": "10752Mi"})
        assert kuberay(job) == (3, {"cpu": "5500m", "memory": "10752Mi"})

    def test_init_container_raises_head_peak(self) -> None:
        head_pod = {"initContainers": [container("fetch-model", {"cpu": "4", "memory": "1Gi"})]}
        job = rayjob(head=H, head_pod=head_pod, mode="InteractiveMode")
        assert effective(job) == (1, {"cpu": "4", "memory": "2Gi"})
        assert kuberay(job) == (1, {"cpu": "1", "memory": "2Gi"})
        gang = compute_gang(job_of(job), Accounting.EFFECTIVE)
        assert gang.differences == ("init container fetch-model raises head cpu from 1 to 4",)

    def test_native_sidecar_adds_and_counts_in_later_init_peak(self) -> None:
        # Sidecar log-agent (restartPolicy Always) runs for the pod's life: 1 + 0.5 = 1.5 cpu.
        # The later init container runs beside it: 2 + 0.5 = 2.5 > 1.5, so the peak wins.
        head_pod = {
            "initContainers": [
                container("log-agent", {"cpu": "500m", "memory": "128Mi"}, restartPolicy="Always"),
                container("warmup", {"cpu": "2", "memory": "256Mi"}),
            ]
        }
        job = rayjob(head=H, head_pod=head_pod, mode="InteractiveMode")
        # memory: steady 2Gi + 128Mi = 2176Mi; init peak 256Mi + 128Mi = 384Mi < 2176Mi.
        assert effective(job) == (1, {"cpu": "2500m", "memory": "2176Mi"})

    def test_init_before_sidecar_is_not_added_to_it(self) -> None:
        head_pod = {
            "initContainers": [
                container("warmup", {"cpu": "4"}),
                container("log-agent", {"cpu": "1"}, restartPolicy="Always"),
            ]
        }
        # K8s: max(1 + 1, 4) = 4, not 4 + 1.
        assert effective(rayjob(head=H, head_pod=head_pod, mode="InteractiveMode"))[1]["cpu"] == "4"

    def test_overhead_and_autoscaler(self) -> None:
        head_pod = {"overhead": {"cpu": "250m", "memory": "120Mi"}}
        job = rayjob(head=H, head_pod=head_pod, autoscaling=True, mode="InteractiveMode")
        # head 1 + autoscaler 500m + overhead 250m; 2Gi + 512Mi + 120Mi.
        assert effective(job) == (1, {"cpu": "1750m", "memory": "2680Mi"})
        assert kuberay(job) == (1, {"cpu": "1", "memory": "2Gi"})

    def test_autoscaler_options_override(self) -> None:
        job = rayjob(head=H, autoscaling=True, mode="InteractiveMode")
        job["spec"]["rayClusterSpec"]["autoscalerOptions"] = {
            "resources": {
                "requests": {"cpu": "200m", "memory": "256Mi"},
                "limits": {"cpu": "1", "memory": "1Gi"},
            }
        }
        assert effective(job) == (1, {"cpu": "1200m", "memory": "2304Mi"})

    def test_sidecar_mode_submitter_in_head(self) -> None:
        job = rayjob(head=H, mode="SidecarMode")
        assert effective(job) == kuberay(job) == (1, {"cpu": "1500m", "memory": "2248Mi"})
        gang = compute_gang(job_of(job), Accounting.EFFECTIVE)
        assert gang.differences == ()

    def test_clamped_replicas_for_both_numbers(self) -> None:
        job = rayjob(head=H, workers=[W(0, 2, 5)], mode="InteractiveMode")
        assert effective(job) == (3, {"cpu": "5", "memory": "10Gi", "nvidia.com/gpu": "2"})
        assert kuberay(job) == (3, {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "0"})

    def test_zero_keys_dropped(self) -> None:
        job = rayjob(head=H, workers=[W(0, 0, 5)], mode="InteractiveMode")
        assert effective(job) == (1, {"cpu": "1", "memory": "2Gi"})

    def test_submitter_init_container_counted(self) -> None:
        template = {
            "spec": {
                "initContainers": [container("auth", {"cpu": "1"})],
                "containers": [container("s", {"cpu": "500m"})],
            }
        }
        job = rayjob(head=H, submitter_template=template)
        assert effective(job)[1]["cpu"] == "2"
        assert kuberay(job)[1]["cpu"] == "1500m"


# --- property: effective never reserves less than KubeRay ---------------------------------


_CPU = st.sampled_from(["100m", "250m", "500m", "1", "1.5", "2", "4"])
_MEM = st.sampled_from(["128Mi", "512Mi", "1Gi", "1.5Gi", "2G", "4Gi"])


@st.composite
def _resources(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind in ("requests", "limits"):
        chosen = {}
        if draw(st.booleans()):
            chosen["cpu"] = draw(_CPU)
        if draw(st.booleans()):
            chosen["memory"] = draw(_MEM)
        if draw(st.booleans()):
            out[kind] = chosen
    return out


@st.composite
def _containers(draw: st.DrawFn, prefix: str, low: int = 1) -> list[dict[str, Any]]:
    count = draw(st.integers(low, 2))
    return [
        {"name": f"{prefix}{i}", "image": "ray", "resources": draw(_resources())}
        for i in range(count)
    ]


@st.composite
def _pod(draw: st.DrawFn, prefix: str) -> dict[str, Any]:
    pod: dict[str, Any] = {"containers": draw(_containers(prefix))}
    inits = draw(_containers(f"{prefix}-init", low=0))
    for init in inits:
        if draw(st.booleans()):
            init["restartPolicy"] = "Always"
    if inits:
        pod["initContainers"] = inits
    if draw(st.booleans()):
        pod["overhead"] = {"cpu": draw(_CPU)}
    return pod


@st.composite
def _jobs(draw: st.DrawFn) -> dict[str, Any]:
    groups = []
    for index in range(draw(st.integers(0, 3))):
        low = draw(st.integers(0, 3))
        high = draw(st.integers(low, 5))
        groups.append(
            {
                "groupName": f"g{index}",
                "replicas": draw(st.integers(low, high)),
                "minReplicas": low,
                "maxReplicas": high,
                "numOfHosts": draw(st.integers(1, 3)),
                "template": {"spec": draw(_pod(f"w{index}"))},
            }
        )
    mode = draw(st.sampled_from(["K8sJobMode", "SidecarMode", "InteractiveMode"]))
    spec: dict[str, Any] = {
        "entrypoint": "python main.py",
        "submissionMode": mode,
        "rayClusterSpec": {
            "enableInTreeAutoscaling": draw(st.booleans()),
            "headGroupSpec": {"template": {"spec": draw(_pod("head"))}},
            "workerGroupSpecs": groups,
        },
    }
    if mode == "K8sJobMode" and draw(st.booleans()):
        spec["submitterPodTemplate"] = {"spec": draw(_pod("sub"))}
    return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "p"}, "spec": spec}


class TestEffectiveDominatesKubeRay:
    @settings(max_examples=300, deadline=None)
    @given(_jobs())
    def test_effective_reserves_at_least_kuberay_in_every_dimension(
        self, manifest: dict[str, Any]
    ) -> None:
        job = job_of(manifest)
        ours = compute_gang(job, Accounting.EFFECTIVE)
        theirs = compute_gang(job, Accounting.KUBERAY)
        assert ours.min_member == theirs.min_member
        zero = Quantity.zero()
        for name, value in theirs.min_resources.items():
            assert ours.min_resources.get(name, zero) >= value, name


def test_planning_refuses_a_resource_overflow_naming_the_group_and_what_fits() -> None:
    from raygang.kube.errors import SpecError
    from raygang.kuberay.settings import JobSettings
    from raygang.kuberay.submitter import SUBMITTER_RULES
    from raygang.plan import plan_job
    from raygang.rayjob.spec import load_rayjob

    w = worker("w", 100000, 0, None, 1, [container("w", {"cpu": "1P"})])
    item = load_rayjob(rayjob(workers=[w]), "jobs/big.yaml", SUBMITTER_RULES)
    with pytest.raises(SpecError) as info:
        plan_job(item, JobSettings())
    (problem,) = info.value.problems
    assert str(problem) == (
        "jobs/big.yaml: spec.rayClusterSpec.workerGroupSpecs[0]: worker group w: 100000 pods × "
        "cpu 1P = 100E is more than 9223372036854775807 (2^63-1), the largest quantity "
        "Kubernetes accepts (accepted: at most 9223 pods of this group with cpu 1P each, or "
        "less cpu per pod)"
    )
