"""raygang as a Pulumi package (raygang.component.package, provider/): the schema a component
provider infers, and the adapters creating what the Python program creates, under the mocks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from pulumi.provider.experimental.component import ComponentProvider
from raygang.component.package import (
    COMPONENTS,
    PACKAGE,
    RayClusterGang,
    RaygangProvider,
    RayJobGang,
    VolcanoQueue,
    _QueueReferences,
    field_name,
    whole_numbers,
)

from tests.pulumi_harness import ROOT, RecordingMonitor, install, run_program, stack_config

pytestmark = pytest.mark.pulumi

K8S = "kubernetes:"


def dev_config() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    return loaded["config"]


def schema() -> dict[str, Any]:
    provider = ComponentProvider(list(COMPONENTS), PACKAGE, None, "0.0.0")
    loaded: dict[str, Any] = json.loads(provider.schema)  # type: ignore[attr-defined]
    return loaded


class TestSchema:
    def test_tokens_and_required_inputs(self) -> None:
        resources = schema()["resources"]
        assert sorted(resources) == [
            "raygang:index:RayClusterGang",
            "raygang:index:RayJobGang",
            "raygang:index:VolcanoQueue",
        ]
        assert resources["raygang:index:RayJobGang"]["requiredInputs"] == ["manifest"]
        assert resources["raygang:index:RayClusterGang"]["requiredInputs"] == ["manifest"]
        assert sorted(resources["raygang:index:RayClusterGang"]["properties"]) == sorted(
            [
                "podGroupName",
                "minMember",
                "minResources",
                "rayClusterName",
                "dashboardUrl",
                "gangSummary",
            ]
        )
        assert resources["raygang:index:VolcanoQueue"]["requiredInputs"] == ["name"]
        outputs = resources["raygang:index:RayJobGang"]["properties"]
        assert sorted(outputs) == sorted(
            [
                "podGroupName",
                "minMember",
                "minResources",
                "rayClusterName",
                "submitterJobName",
                "submissionId",
                "dashboardUrl",
                "gangSummary",
            ]
        )
        assert outputs["minMember"]["type"] == "integer"

    def test_every_property_has_a_one_paragraph_description(self) -> None:
        for token, resource in schema()["resources"].items():
            assert resource["description"]
            for kind in ("inputProperties", "properties"):
                for name, prop in resource[kind].items():
                    text = prop.get("description", "")
                    assert text, f"{token} {kind}.{name} has no description"
                    # Joined strings, not an indented docstring: Markdown would make the
                    # indented lines a code block.
                    assert "\n" not in text, f"{token} {kind}.{name}: {text!r}"

    @pytest.mark.parametrize("token", ["RayJobGang", "RayClusterGang"])
    def test_planning_inputs_are_plain(self, token: str) -> None:
        # Plain in the schema: typed SDKs then refuse an Output where planning needs a value.
        inputs = schema()["resources"][f"raygang:index:{token}"]["inputProperties"]
        assert all(p.get("plain") for p in inputs.values())

    def test_field_names_are_the_analyzers(self) -> None:
        assert field_name("cluster_ready_timeout_seconds") == "clusterReadyTimeoutSeconds"
        assert field_name("now") == "now"


def run_adapters(monitor: RecordingMonitor, build: Any) -> None:
    @pulumi.runtime.test
    def program() -> Any:
        build()

    program()


def kube_objects(monitor: RecordingMonitor) -> list[tuple[str, str, dict[str, Any]]]:
    """The Kubernetes resources registered (type, Pulumi name's last part, inputs)."""
    return [(r.type, r.name, r.inputs) for r in monitor.registrations if r.type.startswith(K8S)]


def by_name(objects: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    return {f"{t} {n}": inputs for t, n, inputs in objects}


def dev_job_through_the_package() -> None:
    config = dev_config()
    queue = config["raygang:queues"][0]
    q = VolcanoQueue(queue["name"], {"name": queue["name"], "spec": queue["spec"]})
    RayJobGang(
        "default/demo-job",
        {
            "manifest": config["raygang:jobs"][0],
            "queue": q,
            "accounting": config["raygang:accounting"],
            "node_shapes": config["raygang:nodeShapes"],
        },
    )


class TestSameObjectsAsThePythonProgram:
    @pytest.mark.parametrize("preview", [False, True], ids=["up", "preview"])
    def test_dev_job(self, preview: bool) -> None:
        program = install(stack_config("dev"), preview)
        run_program(program)
        package = install({}, preview)
        run_adapters(package, dev_job_through_the_package)
        # The same objects, components and dependencies (registration order is the
        # asyncio scheduler's, so compared by name).
        assert by_name(kube_objects(package)) == by_name(kube_objects(program))
        ours = {(r.type, r.name): r for r in package.registrations}
        theirs = {(r.type, r.name): r for r in program.registrations}
        assert sorted(ours) == sorted(theirs)
        for key, registration in ours.items():
            assert len(registration.dependencies) == len(theirs[key].dependencies), key

    def test_outputs(self) -> None:
        package = install({}, False)
        run_adapters(package, dev_job_through_the_package)
        gang = package.of_type("raygang:index:RayJobGang")[0]
        outputs = package.outputs[gang.urn]
        assert outputs["podGroupName"] == "ray-demo-job-pg"
        assert outputs["minMember"] == 3
        assert outputs["minResources"] == {"cpu": "5500m", "memory": "10752Mi"}


def shared_cluster() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(
        (ROOT / "tests" / "fixtures" / "good" / "raycluster.yaml").read_text()
    )
    doc["metadata"]["labels"]["volcano.sh/queue-name"] = "ray-batch"  # the dev stack's queue
    return doc


class TestRayClusterGang:
    @pytest.mark.parametrize("preview", [False, True], ids=["up", "preview"])
    def test_the_same_objects_as_the_python_program(self, preview: bool) -> None:
        config = stack_config("dev")
        config["raygang:jobs"] = json.dumps([*json.loads(config["raygang:jobs"]), shared_cluster()])
        program = install(config, preview)
        run_program(program)

        def build() -> None:
            config = dev_config()
            queue = config["raygang:queues"][0]
            q = VolcanoQueue(queue["name"], {"name": queue["name"], "spec": queue["spec"]})
            settings = {
                "accounting": config["raygang:accounting"],
                "node_shapes": config["raygang:nodeShapes"],
            }
            RayJobGang(
                "default/demo-job",
                {"manifest": config["raygang:jobs"][0], "queue": q, **settings},  # type: ignore[typeddict-item]
            )
            RayClusterGang(
                "RayCluster/default/shared-dev",
                {"manifest": shared_cluster(), "queue": q, **settings},  # type: ignore[typeddict-item]
            )

        package = install({}, preview)
        run_adapters(package, build)
        ours = by_name(kube_objects(package))
        theirs = by_name(kube_objects(program))
        assert ours == theirs
        pg = theirs[
            f"{K8S}scheduling.volcano.sh/v1beta1:PodGroup RayCluster/default/shared-dev-podgroup"
        ]
        assert pg["spec"]["minMember"] == 4
        cluster = program.of_type("raygang:index:RayClusterGang")[0]
        made = {(r.type, r.name): r for r in program.registrations}
        rc = made[(f"{K8S}ray.io/v1:RayCluster", "RayCluster/default/shared-dev-raycluster")]
        assert rc.dependencies, "the RayCluster waits for its PodGroup"
        assert cluster.name == "RayCluster/default/shared-dev"

    @pytest.mark.parametrize("preview", [False, True], ids=["up", "preview"])
    def test_companions_as_the_python_program_creates_them(
        self, tmp_path: Path, preview: bool
    ) -> None:
        # The cluster's companions: beside the gang, in the cluster's namespace, and the
        # RayCluster waits for them, as the stack program does for the same file.
        cluster = shared_cluster()
        cluster["metadata"]["namespace"] = "team-a"
        settings = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}}
        path = tmp_path / "c.yaml"
        path.write_text(yaml.safe_dump_all([cluster, settings], sort_keys=False))
        program = install({"raygang:manifests": json.dumps([str(path)])}, preview)
        run_program(program)
        package = install({}, preview)
        run_adapters(
            package,
            lambda: RayClusterGang(
                "RayCluster/team-a/shared-dev",
                {"manifest": cluster, "companions": [settings]},
            ),
        )
        assert by_name(kube_objects(package)) == by_name(kube_objects(program))
        for monitor in (package, program):
            made = monitor.by_name("team-a/ConfigMap/settings")
            assert made.inputs["metadata"] == {"name": "settings", "namespace": "team-a"}
            assert "RayClusterGang" not in made.parent
            rc = monitor.by_name("RayCluster/team-a/shared-dev-raycluster")
            assert made.urn in rc.dependencies
            pg = monitor.by_name("RayCluster/team-a/shared-dev-podgroup")
            assert made.urn not in pg.dependencies
        ours = {(r.type, r.name): r for r in package.registrations}
        theirs = {(r.type, r.name): r for r in program.registrations}
        assert sorted(ours) == sorted(theirs)
        for key, registration in ours.items():
            assert len(registration.dependencies) == len(theirs[key].dependencies), key

    def test_outputs(self) -> None:
        package = install({}, False)
        run_adapters(
            package,
            lambda: RayClusterGang("c", {"manifest": shared_cluster(), "queue": "ray-batch"}),
        )
        gang = package.of_type("raygang:index:RayClusterGang")[0]
        outputs = package.outputs[gang.urn]
        assert outputs["podGroupName"] == "ray-shared-dev-pg"
        assert outputs["minMember"] == 4
        assert outputs["minResources"] == {"cpu": "3", "memory": "6Gi"}
        assert outputs["rayClusterName"] == "shared-dev"

    def test_a_rayjob_given_as_a_raycluster_is_refused(self) -> None:
        message = refused(
            lambda: RayClusterGang("c", {"manifest": dev_config()["raygang:jobs"][0]})
        )
        assert "input manifest must be one RayCluster" in message
        assert "it declares 0 RayClusters and 1 RayJobs" in message


def refused(build: Any) -> str:
    install({}, False)
    with pytest.raises(pulumi.RunError) as caught:
        run_adapters(None, build)  # type: ignore[arg-type]
    return str(caught.value)


class TestRefused:
    def test_an_output_where_planning_needs_a_value(self) -> None:
        manifest = dev_config()["raygang:jobs"][0]
        message = refused(
            lambda: RayJobGang("j", {"manifest": pulumi.Output.from_input(manifest)})  # type: ignore[typeddict-item]
        )
        assert "RayJobGang j input manifest must be known at preview" in message
        assert "output of another resource" in message

    def test_an_output_inside_a_setting(self) -> None:
        manifest = dev_config()["raygang:jobs"][0]
        message = refused(
            lambda: RayJobGang(
                "j",
                {"manifest": manifest, "node_shapes": [{"name": pulumi.Output.from_input("x")}]},  # type: ignore[dict-item]
            )
        )
        assert "RayJobGang j input nodeShapes must be known at preview" in message

    def test_a_relative_snapshot(self) -> None:
        manifest = dev_config()["raygang:jobs"][0]
        message = refused(
            lambda: RayJobGang("j", {"manifest": manifest, "cluster_snapshot": "snap.yaml"})
        )
        assert "clusterSnapshot 'snap.yaml' must be an absolute path" in message

    def test_a_queue_name_the_label_does_not_give(self) -> None:
        manifest = dev_config()["raygang:jobs"][0]
        message = refused(lambda: RayJobGang("j", {"manifest": manifest, "queue": "other"}))
        assert "input queue is 'other'" in message and "'ray-batch'" in message

    def test_a_cluster_queue_name_the_label_does_not_give(self) -> None:
        # The same rule and words as a RayJobGang's: the label decides the PodGroup's queue.
        message = refused(
            lambda: RayClusterGang("c", {"manifest": shared_cluster(), "queue": "other"})
        )
        assert message.endswith(
            "RayClusterGang c input queue is 'other', but the manifest's volcano.sh/queue-name "
            "label names 'ray-batch': the PodGroup goes to the label's queue"
        )

    def test_a_malformed_manifest_reads_as_the_cli_reads_it(self) -> None:
        manifest = dev_config()["raygang:jobs"][0]
        bad = {**manifest, "spec": {**manifest["spec"], "entrypoint": 3}}
        message = refused(lambda: RayJobGang("j", {"manifest": bad}))
        assert message.startswith("raygang: invalid input:\n")
        assert "RayJobGang j input manifest" in message and "spec.entrypoint" in message

    def test_a_manifest_that_is_not_one_rayjob(self) -> None:
        manifest = dev_config()["raygang:jobs"][0]
        listed = {"apiVersion": "v1", "kind": "List", "items": [manifest, manifest]}
        config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
        for given in (listed, config_map):
            message = refused(lambda given=given: RayJobGang("j", {"manifest": given}))
            assert "RayJobGang j input manifest" in message, message

    def test_a_bad_setting_names_the_input(self) -> None:
        manifest = dev_config()["raygang:jobs"][0]
        message = refused(lambda: RayJobGang("j", {"manifest": manifest, "accounting": "most"}))
        assert "raygang:accounting" in message and "RayJobGang j inputs" in message


class TestQueueReferences:
    def test_a_reference_resolves_to_the_queue_this_process_made(self) -> None:
        install({}, False)
        made: list[VolcanoQueue] = []

        def build() -> None:
            made.append(VolcanoQueue("rq", {"name": "rq", "spec": {"weight": 1}}))
            found = _QueueReferences().construct("rq", "raygang:index:VolcanoQueue", "urn:x")
            assert found is made[0]
            other = _QueueReferences().construct("nope", "raygang:index:VolcanoQueue", "urn:y")
            assert not isinstance(other, VolcanoQueue)

        run_adapters(None, build)  # type: ignore[arg-type]
        assert made


class TestFromTheEngine:
    def test_whole_numbers_come_back_as_integers(self) -> None:
        sent = {"spec": {"weight": 1.0, "ratio": 2.5, "items": [3.0, "4"]}}
        assert whole_numbers(sent) == {"spec": {"weight": 1, "ratio": 2.5, "items": [3, "4"]}}
        assert isinstance(whole_numbers(1.0), int)

    def test_a_queue_spec_sent_as_doubles_is_accepted(self) -> None:
        install({}, False)
        made: list[VolcanoQueue] = []
        run_adapters(
            None,  # type: ignore[arg-type]
            lambda: made.append(
                VolcanoQueue(
                    "q", {"name": "q", "spec": {"weight": 1.0, "capability": {"cpu": 32.0}}}
                )
            ),
        )
        assert made[0].decl.name == "q"

    def test_our_errors_reach_the_engine_unwrapped(self) -> None:
        provider = RaygangProvider([RayJobGang, VolcanoQueue], PACKAGE, None, "0.0.0")
        install({}, False)
        with pytest.raises(pulumi.RunError) as caught:
            provider.construct(
                "q", "raygang:index:VolcanoQueue", {"name": "q", "spec": {"weight": 0.5}}
            )
        assert "VolcanoQueue q input: spec.weight" in str(caught.value)
        assert caught.value.__cause__ is None and caught.value.__suppress_context__


class TestFacts:
    def test_a_snapshot_file_decides_as_for_the_python_component(self) -> None:
        # The lifecycle fixture's job has succeeded: both paths declare what KubeRay keeps.
        from datetime import datetime

        from raygang import RayJobGang as PythonGang
        from raygang import RayJobGangArgs, load_files, load_snapshot

        fixtures = ROOT / "tests" / "fixtures" / "lifecycle"
        now = "2030-01-01T00:00:00Z"
        item = load_files([fixtures / "rayjob.yaml"]).jobs[0]
        outputs = []
        for build in (
            lambda: PythonGang(
                "p",
                RayJobGangArgs(
                    manifest=item.raw,
                    snapshot=load_snapshot(fixtures / "succeeded.yaml"),
                    now=datetime.fromisoformat(now),
                ),
            ),
            lambda: RayJobGang(
                "p",
                {
                    "manifest": item.raw,
                    "cluster_snapshot": str(fixtures / "succeeded.yaml"),
                    "now": now,
                },
            ),
        ):
            monitor = install({}, False)
            run_adapters(monitor, build)
            gang = monitor.of_type("raygang:index:RayJobGang")[0]
            outputs.append((monitor.outputs[gang.urn], by_name(kube_objects(monitor))))
        assert outputs[0] == outputs[1]
        # And the snapshot was read: without it the job is planned as new, differently.
        monitor = install({}, False)
        run_adapters(monitor, lambda: RayJobGang("p", {"manifest": item.raw}))
        assert by_name(kube_objects(monitor)) != outputs[1][1]
