"""The Pulumi layer under the SDK's mocks: resources, inputs, parents, dependencies."""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pytest

from tests.builders import container, rayjob, worker
from tests.pulumi_harness import (
    CM_T,
    JOB_T,
    PG_T,
    QUEUE_T,
    RC_T,
    ROOT,
    install,
    run_program,
    stack_config,
    stacks,
)

pytestmark = pytest.mark.pulumi


@pytest.fixture(params=[False, True], ids=["up", "preview"])
def preview(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


class TestDevStack:
    def test_registers_the_chain_with_dependencies(self, preview: bool) -> None:
        monitor = install(stack_config("dev"), preview)
        run_program(monitor)
        types = [r.type for r in monitor.registrations]
        assert types.count("raygang:index:VolcanoQueue") == 1
        assert types.count("raygang:index:RayJobGang") == 1
        queue = monitor.of_type(QUEUE_T)[0]
        record = monitor.of_type(CM_T)[0]
        podgroup = monitor.of_type(PG_T)[0]
        cluster = monitor.of_type(RC_T)[0]
        job = monitor.of_type(JOB_T)[0]
        gang = monitor.of_type("raygang:index:RayJobGang")[0]
        qcomp = monitor.of_type("raygang:index:VolcanoQueue")[0]

        # Order of registration is the creation order.
        order = [monitor.registrations.index(r) for r in (queue, record, podgroup, cluster, job)]
        assert order == sorted(order)
        # Explicit depends_on: Queue (Open) → record → PodGroup → RayCluster (ready) → Job.
        assert queue.urn in record.dependencies
        assert record.urn in podgroup.dependencies
        assert podgroup.urn in cluster.dependencies
        assert cluster.urn in job.dependencies
        # Parents: the job's resources under the RayJobGang, the Queue under VolcanoQueue.
        for child in (record, podgroup, cluster, job):
            assert child.parent == gang.urn
        assert queue.parent == qcomp.urn
        assert gang.name == "default/demo-job"

    def test_inputs(self) -> None:
        monitor = install(stack_config("dev"), preview=False)
        run_program(monitor)
        queue = monitor.of_type(QUEUE_T)[0].inputs
        assert queue["metadata"]["name"] == "ray-batch"
        assert (
            queue["metadata"]["annotations"]["pulumi.com/waitFor"]
            == "jsonpath={.status.state}=Open"
        )

        pg = monitor.of_type(PG_T)[0].inputs
        assert pg["metadata"]["name"] == "ray-demo-job-pg"
        assert pg["metadata"]["namespace"] == "default"
        assert pg["spec"]["minMember"] == 3
        assert pg["spec"]["minResources"] == {"cpu": "5500m", "memory": "10752Mi"}
        assert pg["spec"]["queue"] == "ray-batch"
        owner = pg["metadata"]["ownerReferences"][0]
        assert owner == {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "name": "demo-job",
            "uid": "uid-default/demo-job-record",
            "controller": True,
            "blockOwnerDeletion": True,
        }

        rc = monitor.of_type(RC_T)[0].inputs
        meta = rc["metadata"]
        assert meta["name"] == "demo-job"
        assert meta["annotations"]["pulumi.com/waitFor"] == "jsonpath={.status.state}=ready"
        assert meta["labels"]["ray.io/originated-from-crd"] == "RayJob"
        assert meta["labels"]["ray.io/originated-from-cr-name"] == "demo-job"
        assert meta["ownerReferences"][0]["uid"] == "uid-default/demo-job-record"
        head = rc["spec"]["headGroupSpec"]["template"]
        assert head["spec"]["schedulerName"] == "volcano"
        assert head["metadata"]["annotations"] == {
            "scheduling.k8s.io/group-name": "ray-demo-job-pg",
            "volcano.sh/task-spec": "headgroup",
        }
        assert head["metadata"]["labels"] == {"volcano.sh/queue-name": "ray-batch"}
        worker_t = rc["spec"]["workerGroupSpecs"][0]["template"]
        assert worker_t["metadata"]["annotations"]["volcano.sh/task-spec"] == "compute"

        job_reg = monitor.of_type(JOB_T)[0]
        job = job_reg.inputs
        # Fixed names: every replacement deletes first (a PodGroup created before the old one
        # was deleted met a server-side apply conflict on the real API server).
        for kind in (CM_T, PG_T, RC_T, JOB_T):
            assert monitor.of_type(kind)[0].delete_before_replace is True, kind
        # Awaited only until it exists; skipAwait would also skip awaiting its deletion.
        assert job["metadata"]["annotations"]["pulumi.com/waitFor"] == "jsonpath={.metadata.uid}"
        assert "pulumi.com/skipAwait" not in job["metadata"]["annotations"]
        template = job["spec"]["template"]
        assert template["metadata"]["annotations"]["volcano.sh/task-spec"] == "submittergroup"
        assert template["spec"]["schedulerName"] == "volcano"
        assert job["metadata"]["ownerReferences"][0]["kind"] == "ConfigMap"

        record = monitor.of_type(CM_T)[0].inputs
        assert record["metadata"]["name"] == "demo-job"
        # All in annotations: the provider replaces a ConfigMap whose data changes.
        kept = record["metadata"]["annotations"]["raygang.dev/rayjob"]
        assert json.loads(kept)["metadata"]["name"] == "demo-job"
        assert "data" not in record


class TestEveryStack:
    @pytest.mark.parametrize("stack", list(stacks()))
    def test_stack_runs_under_mocks(self, stack: str, preview: bool) -> None:
        monitor = install(stack_config(stack), preview, stack=stack)
        run_program(monitor)
        gangs = monitor.of_type("raygang:index:RayJobGang")
        assert gangs, f"stack {stack} registered no job"
        urns = [r.urn for r in monitor.registrations]
        assert len(urns) == len(set(urns)), "duplicate URNs: the real engine would refuse them"
        for gang in gangs:
            children = [r for r in monitor.registrations if r.parent == gang.urn]
            kinds = {r.type for r in children}
            assert {CM_T, PG_T, RC_T} <= kinds


class TestComposition:
    def test_two_jobs_share_one_queue(self, preview: bool) -> None:
        from raygang import RayJobGang, RayJobGangArgs, VolcanoQueue

        monitor = install({}, preview)
        manifests = [
            rayjob(
                name=name,
                labels={"volcano.sh/queue-name": "team-a"},
                workers=[worker("w", 1, 1, 1, 1, [container("w", {"cpu": "1", "memory": "1Gi"})])],
            )
            for name in ("etl", "train")
        ]

        @pulumi.runtime.test
        def program() -> Any:
            queue = VolcanoQueue("team-a", {"metadata": {"name": "team-a"}, "spec": {"weight": 1}})
            gangs = [
                RayJobGang(m["metadata"]["name"], RayJobGangArgs(manifest=m, queue=queue))
                for m in manifests
            ]

            def check(values: list[Any]) -> None:
                assert values == [2, 2, "ray-etl-pg", "ray-train-pg"]

            return pulumi.Output.all(
                *[g.min_member for g in gangs], *[g.pod_group_name for g in gangs]
            ).apply(check)

        program()
        queue = monitor.of_type(QUEUE_T)
        assert len(queue) == 1
        for record in monitor.of_type(CM_T):
            assert queue[0].urn in record.dependencies
        assert len(monitor.of_type(PG_T)) == 2

    def test_component_outputs_are_the_plans_values(self, preview: bool) -> None:
        from raygang import RayJobGang, RayJobGangArgs

        monitor = install({}, preview)
        manifest = rayjob(
            name="etl",
            workers=[worker("w", 3, 1, 3, 2, [container("w", {"cpu": "1500m", "memory": "1Gi"})])],
        )
        seen: dict[str, Any] = {}

        @pulumi.runtime.test
        def program() -> Any:
            gang = RayJobGang("etl", RayJobGangArgs(manifest=manifest))
            names = ["pod_group_name", "min_member", "min_resources", "ray_cluster_name"]
            names += ["submitter_job_name", "submission_id", "dashboard_url", "gang_summary"]
            seen["job"] = gang.job
            return pulumi.Output.all(*[getattr(gang, n) for n in names]).apply(
                lambda values: seen.update(zip(names, values, strict=True))
            )

        program()
        job = seen["job"]
        submitter = job.resource("submitter")
        expected = {
            "podGroupName": "ray-etl-pg",
            "minMember": job.declared_min_member,
            "minResources": job.declared_min_resources,
            "rayClusterName": "etl",
            "submitterJobName": submitter.name,
            "submissionId": job.submission_id,
            "dashboardUrl": job.plan.dashboard_url,
            "gangSummary": job.plan.gang.summary(),
        }
        # 1 head + 3 replicas x 2 hosts; the submitter is in minResources only.
        assert expected["minMember"] == 7
        (component,) = monitor.of_type("raygang:index:RayJobGang")
        assert monitor.outputs[component.urn] == expected
        camel = {
            "".join(w if i == 0 else w.title() for i, w in enumerate(n.split("_"))): n
            for n in seen
            if n != "job"
        }
        assert {key: seen[camel[key]] for key in expected} == expected

    def test_invalid_manifest_fails_with_a_clear_message(self) -> None:
        from raygang import RayJobGang, RayJobGangArgs

        install({}, preview=True)
        bad = rayjob(workers=[worker("w", -1, 0, 1, 1)])

        @pulumi.runtime.test
        def program() -> Any:
            RayJobGang("bad", RayJobGangArgs(manifest=bad, source="jobs/bad.yaml"))

        with pytest.raises(pulumi.RunError) as info:
            program()
        message = str(info.value)
        assert "jobs/bad.yaml" in message
        assert "spec.rayClusterSpec.workerGroupSpecs[0].replicas" in message


def _dev_objects(tmp_path: Any, finished_at: str, gone: tuple[str, ...] = ()) -> str:
    """A snapshot of the dev stack's objects as the cluster reports them once the job finished
    (without the objects of the ``gone`` kinds)."""
    import yaml
    from raygang.cli import build_plan

    plan = build_plan([], "dev", None, ROOT).jobs[0]
    items = []
    for resource in plan.resources:
        if resource.kind in gone:
            continue
        obj = dict(resource.manifest)
        obj["metadata"] = {**obj["metadata"], "uid": f"uid-{resource.name}"}
        if resource.kind == "Queue":
            obj["status"] = {"state": "Open"}
        if resource.kind == "RayCluster":
            obj["status"] = {"state": "ready"}
        if resource.kind == "PodGroup":
            obj["status"] = {"phase": "Running"}
        if resource.kind == "Job":
            obj["status"] = {
                "startTime": "2026-11-29T08:00:00Z",
                "completionTime": finished_at,
                "succeeded": 1,
                "conditions": [
                    {"type": "Complete", "status": "True", "lastTransitionTime": finished_at}
                ],
            }
        items.append(obj)
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


class TestLifecycleUnderMocks:
    def test_finished_past_ttl_removes_cluster_then_zeroes_podgroup(
        self, tmp_path: Any, preview: bool
    ) -> None:
        config = stack_config("dev")
        config["raygang:clusterSnapshot"] = _dev_objects(tmp_path, "2026-11-29T09:00:00Z")
        config["raygang:now"] = "2026-11-29T09:10:01Z"  # ttlSecondsAfterFinished 600 has passed
        monitor = install(config, preview)
        run_program(monitor)
        assert monitor.of_type(RC_T) == []
        # The run that deletes the cluster keeps its gang: its pods may still hold nodes.
        pg = monitor.of_type(PG_T)[0].inputs
        assert pg["spec"]["minMember"] == 3
        assert pg["spec"]["minResources"] == {"cpu": "5", "memory": "10Gi"}
        # The record and the submitter Job stay, for the logs.
        assert len(monitor.of_type(CM_T)) == 1
        assert len(monitor.of_type(JOB_T)) == 1
        # The next run, the cluster gone, zeroes it.
        config["raygang:clusterSnapshot"] = _dev_objects(
            tmp_path, "2026-11-29T09:00:00Z", gone=("RayCluster",)
        )
        monitor = install(config, preview)
        run_program(monitor)
        assert monitor.of_type(RC_T) == []
        pg = monitor.of_type(PG_T)[0].inputs
        assert "minMember" not in pg["spec"]  # 0, left out as the API server stores it
        assert pg["spec"]["minResources"] == {}
        assert len(monitor.of_type(CM_T)) == 1
        assert len(monitor.of_type(JOB_T)) == 1

    def test_finished_before_ttl_keeps_cluster_and_shrinks_podgroup(self, tmp_path: Any) -> None:
        config = stack_config("dev")
        config["raygang:clusterSnapshot"] = _dev_objects(tmp_path, "2026-11-29T09:00:00Z")
        config["raygang:now"] = "2026-11-29T09:05:00Z"
        monitor = install(config, preview=False)
        run_program(monitor)
        assert len(monitor.of_type(RC_T)) == 1
        pg = monitor.of_type(PG_T)[0].inputs
        # KubeRay's cleanup recomputes from the live cluster without the submitter.
        assert pg["spec"]["minMember"] == 3
        assert pg["spec"]["minResources"] == {"cpu": "5", "memory": "10Gi"}


class TestPreflightUnderMocks:
    def small_queue_config(self) -> dict[str, str]:
        import json

        config = stack_config("dev")
        queues = json.loads(config["raygang:queues"])
        queues[0]["spec"]["capability"] = {"cpu": "4", "memory": "8Gi"}
        config["raygang:queues"] = json.dumps(queues)
        return config

    def test_queue_too_small_fails_the_preview(self) -> None:
        monitor = install(self.small_queue_config(), preview=True)
        with pytest.raises(pulumi.RunError) as info:
            run_program(monitor)
        message = str(info.value)
        assert "default/demo-job can never be admitted" in message
        assert "ray-batch" in message
        assert "raygang:preflight: warn" in message

    def test_warn_mode_applies_anyway(self) -> None:
        config = self.small_queue_config()
        config["raygang:preflight"] = "warn"
        monitor = install(config, preview=True)
        run_program(monitor)
        assert len(monitor.of_type(PG_T)) == 1


def test_code_package_pieces_are_configmaps_before_the_submitter(
    preview: bool, tmp_path: Any
) -> None:
    """Issue 28: each piece is an immutable ConfigMap with binaryData, owned by the record,
    registered before the submitter Job, which depends on it."""
    (tmp_path / "main.py").write_text("print(1)\n")
    config = stack_config("dev")
    jobs = json.loads(config["raygang:jobs"])
    jobs[0]["metadata"]["annotations"] = {"raygang.dev/working-dir": str(tmp_path)}
    config["raygang:jobs"] = json.dumps(jobs)
    monitor = install(config, preview)
    run_program(monitor)
    record, piece = monitor.of_type(CM_T)
    job = monitor.of_type(JOB_T)[0]
    assert piece.inputs["immutable"] is True
    assert set(piece.inputs["binaryData"]) == {"part-000"}
    assert piece.inputs["metadata"]["name"].startswith("ray-demo-job-code-")
    assert piece.inputs["metadata"]["ownerReferences"][0]["name"] == "demo-job"
    assert piece.urn in job.dependencies and record.urn in piece.dependencies
    assert monitor.registrations.index(piece) < monitor.registrations.index(job)


def _own_cluster(autoscaling: bool | None) -> dict[str, Any]:
    """tests/fixtures/good/raycluster.yaml in the dev stack's queue, autoscaling or not."""
    import yaml

    doc: dict[str, Any] = yaml.safe_load(
        (ROOT / "tests" / "fixtures" / "good" / "raycluster.yaml").read_text()
    )
    doc["metadata"]["labels"]["volcano.sh/queue-name"] = "ray-batch"
    if autoscaling is not None:
        doc["spec"]["enableInTreeAutoscaling"] = autoscaling
    return doc


#: What the Ray autoscaler writes in a two-group RayCluster (kuberay/autoscaling.py).
AUTOSCALED = [
    "spec.workerGroupSpecs[0].replicas",
    "spec.workerGroupSpecs[0].scaleStrategy",
    "spec.workerGroupSpecs[1].replicas",
    "spec.workerGroupSpecs[1].scaleStrategy",
]


class TestAutoscalerOwnedFields:
    """With enableInTreeAutoscaling the autoscaler sizes the worker groups: a refreshed
    state's replicas must not be reverted, on either RayCluster path."""

    @pytest.mark.parametrize("autoscaling", [True, False, None], ids=["on", "off", "unset"])
    def test_a_rayjobs_cluster(self, autoscaling: bool | None, preview: bool) -> None:
        config = stack_config("dev")
        job = rayjob(
            "scaled",
            workers=[worker("a", 1, 1, 3, 1), worker("b", 2, 1, 4, 2)],
            autoscaling=autoscaling,
            labels={"volcano.sh/queue-name": "ray-batch"},
        )
        config["raygang:jobs"] = json.dumps([job])
        monitor = install(config, preview)
        run_program(monitor)
        (cluster,) = monitor.of_type(RC_T)
        assert cluster.ignore_changes == (AUTOSCALED if autoscaling else [])
        # The gang counts minReplicas under autoscaling: the autoscaler's edits leave it be.
        pg = monitor.of_type(PG_T)[0]
        assert pg.inputs["spec"]["minMember"] == (1 + 1 + 2 if autoscaling else 1 + 1 + 4)
        for other in (*monitor.of_type(PG_T), *monitor.of_type(CM_T), *monitor.of_type(JOB_T)):
            assert other.ignore_changes == [], other.name

    @pytest.mark.parametrize("autoscaling", [True, False, None], ids=["on", "off", "unset"])
    def test_a_rayclusters_own(self, autoscaling: bool | None, preview: bool) -> None:
        config = stack_config("dev")
        own = _own_cluster(autoscaling)
        config["raygang:jobs"] = json.dumps([*json.loads(config["raygang:jobs"]), own])
        monitor = install(config, preview)
        run_program(monitor)
        ours = monitor.by_name("RayCluster/default/shared-dev-raycluster")
        assert ours.ignore_changes == (AUTOSCALED if autoscaling else [])
        assert monitor.by_name("RayCluster/default/shared-dev-podgroup").ignore_changes == []
        # The RayJob's cluster beside it does not autoscale.
        assert monitor.by_name("default/demo-job-raycluster").ignore_changes == []
