"""raygang as a Pulumi package, through the real engine: ``pulumi package get-schema`` of the
component provider (provider/), and the YAML program examples/yaml/ on the local control
plane, whose objects must equal those the Python program creates for the same job.

The steps share one cluster and run in file order: schema, preview, up, a no-change preview,
destroy, then the Python program's up of the same job for the comparison, and its destroy.
The YAML language host is tools/yaml (pulumi-yaml, built by tools/build); the engine starts
the provider through our Python language host's RunPlugin.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang_localcluster import LocalCluster, LocalPulumi, local_pulumi, wait_until

from tests.e2e.conftest import REPO, make_pulumi
from tests.test_package import schema as package_schema

pytestmark = pytest.mark.e2e

STACK = "dev"
NS = "default"
JOB = "demo-job"
# The objects one job becomes, as `kubectl get` names them.
OBJECTS = {
    "ConfigMap": ("configmaps", JOB),
    "PodGroup": ("podgroups.scheduling.volcano.sh", f"ray-{JOB}-pg"),
    "RayCluster": ("rayclusters.ray.io", JOB),
    "Job": ("jobs.batch", JOB),
}
# What differs between two creations of the same object: identities, times, owners, state.
SERVER_METADATA = (
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "managedFields",
    "ownerReferences",
    "finalizers",
)
# The Job controller stamps its UID into the selector and the pod template's labels.
CONTROLLER_UID = ("controller-uid", "batch.kubernetes.io/controller-uid")


def yaml_project(workdir: Path, bin_dir: Path) -> Path:
    """examples/yaml with its package path made absolute (the copy lives elsewhere), and
    the YAML language host tools/build made.

    The CLI looks for a bundled language host (yaml is one) next to its own binary, symlinks
    resolved, or on PATH, which the tier turns off (PULUMI_IGNORE_AMBIENT_PLUGINS), and
    refuses to `plugin install` it; a project's `plugins.languages` entry names its folder
    (sdk/go/common/workspace/plugins.go, getPluginInfoAndPath).
    """
    project = workdir / "project"
    project.mkdir(parents=True)
    doc = yaml.safe_load((REPO / "examples" / "yaml" / "Pulumi.yaml").read_text())
    doc["packages"]["raygang"] = str(REPO / "provider")
    doc["plugins"] = {
        "languages": [
            {"name": lang, "path": str((bin_dir / f"pulumi-language-{lang}").resolve().parent)}
            # python too: the YAML host loads raygang's schema through its own plugin host,
            # which looks for the Python host next to pulumi-language-yaml.
            for lang in ("yaml", "python")
        ]
    }
    (project / "Pulumi.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return project


@pytest.fixture(scope="module")
def program(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> LocalPulumi:
    bin_dir, _ = tools
    if not (bin_dir / "pulumi-language-yaml").exists():
        pytest.fail(f"no pulumi-language-yaml in {bin_dir}: run `make tools`", pytrace=False)
    workdir = tmp_path_factory.mktemp("package-yaml")
    return local_pulumi(
        bin_dir, cluster.kubeconfig, yaml_project(workdir, bin_dir), workdir, (STACK,)
    )


def comparable(kind: str, obj: dict[str, Any]) -> dict[str, Any]:
    """An object as its creator declared it: no server identity, times, owners or status."""
    meta = {k: v for k, v in obj["metadata"].items() if k not in SERVER_METADATA}
    out = {k: v for k, v in obj.items() if k not in ("metadata", "status")}
    out["metadata"] = meta
    if kind == "Job":
        spec = out["spec"]
        spec.pop("selector", None)
        labels = spec["template"]["metadata"].get("labels", {})
        for key in CONTROLLER_UID:
            labels.pop(key, None)
        for key in CONTROLLER_UID:
            meta.get("labels", {}).pop(key, None)
    return out


def read_objects(cluster: LocalCluster) -> dict[str, dict[str, Any]]:
    return {
        kind: comparable(kind, cluster.get(resource, name, "-n", NS))
        for kind, (resource, name) in OBJECTS.items()
    }


def gone(cluster: LocalCluster) -> bool:
    done = cluster.kubectl(
        "get", "rayclusters.ray.io,podgroups.scheduling.volcano.sh,jobs.batch", "-n", NS,
        "-o", "name", check=False,
    )  # fmt: skip
    return done.returncode == 0 and not done.stdout.strip()


def without_nested_descriptions(value: Any, nested: bool = False) -> Any:
    """The schema as the CLI prints it: the provider's, less the descriptions it repeats on
    a property's ``items`` and ``additionalProperties`` (which the CLI's binding drops)."""
    if isinstance(value, dict):
        return {
            k: without_nested_descriptions(v, nested or k in ("items", "additionalProperties"))
            for k, v in value.items()
            if not (nested and k == "description")
        }
    if isinstance(value, list):
        return [without_nested_descriptions(v, nested) for v in value]
    return value


CREATED: dict[str, dict[str, Any]] = {}


def test_a_get_schema_describes_every_property(program: LocalPulumi) -> None:
    out = program.run("package", "get-schema", str(REPO / "provider")).stdout
    schema = json.loads(out)
    assert schema["name"] == "raygang"
    resources = schema["resources"]
    assert sorted(resources) == [
        "raygang:index:RayClusterGang",
        "raygang:index:RayJobGang",
        "raygang:index:VolcanoQueue",
    ]
    for token, resource in resources.items():
        for kind in ("inputProperties", "properties"):
            for name, prop in resource[kind].items():
                assert prop.get("description"), f"{token} {kind}.{name}"
    # The schema the provider inferred, as the engine received it (tests/e2e/test_package_sdks
    # generates the SDKs from the in-process one).
    assert resources == without_nested_descriptions(package_schema()["resources"])


def test_b_preview_shows_the_gang(program: LocalPulumi) -> None:
    out = program.run("preview", "--diff", "--stack", STACK).stdout
    for token in (
        "raygang:index:VolcanoQueue",
        "raygang:index:RayJobGang",
        "kubernetes:scheduling.volcano.sh/v1beta1:Queue",
        "kubernetes:core/v1:ConfigMap",
        "kubernetes:scheduling.volcano.sh/v1beta1:PodGroup",
        "kubernetes:ray.io/v1:RayCluster",
        "kubernetes:batch/v1:Job",
    ):
        assert token in out, f"{token} missing from the preview:\n{out}"
    assert re.search(r"minMember\s*:\s*3\b", out), out
    assert re.search(r"cpu\s*:\s*\"5500m\"", out), out
    assert re.search(r"memory\s*:\s*\"10752Mi\"", out), out


def test_c_up_creates_the_gang(program: LocalPulumi, cluster: LocalCluster) -> None:
    program.run("up", "--yes", "--skip-preview", "--stack", STACK)
    assert cluster.get("queues.scheduling.volcano.sh", "ray-batch")["status"]["state"] == "Open"
    CREATED.update(read_objects(cluster))
    pg = CREATED["PodGroup"]["spec"]
    assert pg["minMember"] == 3
    assert pg["minResources"] == {"cpu": "5500m", "memory": "10752Mi"}
    assert pg["queue"] == "ray-batch"
    outputs = program.outputs(STACK)
    assert outputs["podGroupName"] == "ray-demo-job-pg"
    assert outputs["minMember"] == 3
    assert outputs["rayClusterName"] == JOB
    assert outputs["submitterJobName"] == JOB


def test_d_a_second_preview_changes_nothing(program: LocalPulumi) -> None:
    program.run("preview", "--expect-no-changes", "--stack", STACK)


def test_e_destroy_removes_everything(program: LocalPulumi, cluster: LocalCluster) -> None:
    program.run("destroy", "--yes", "--skip-preview", "--stack", STACK)
    wait_until(lambda: gone(cluster), timeout=120, what="the YAML program's objects deleted")
    done = cluster.kubectl(
        "get", "queues.scheduling.volcano.sh", "ray-batch", "--ignore-not-found", "-o", "name",
        check=False,
    )  # fmt: skip
    assert not done.stdout.strip()


def _with_program(program: LocalPulumi, edit: Any) -> str:
    """A preview of the program edited by ``edit``, which must fail; the file is restored."""
    path = program.project / "Pulumi.yaml"
    original = path.read_text()
    doc = yaml.safe_load(original)
    edit(doc["resources"]["demoJob"]["properties"])
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    try:
        done = program.run("preview", "--stack", STACK, check=False)
    finally:
        path.write_text(original)
    assert done.returncode != 0, done.stdout
    return done.stdout + done.stderr


def test_e2_an_output_where_planning_needs_a_value_is_refused(program: LocalPulumi) -> None:
    def edit(props: dict[str, Any]) -> None:
        props["manifest"]["metadata"]["labels"]["volcano.sh/queue-name"] = "${rayBatch.queueName}"

    out = _with_program(program, edit)
    assert "raygang:index:RayJobGang resource 'demoJob'" in out, out
    assert "RayJobGang demoJob input manifest must be known at preview" in out, out
    assert "Traceback" not in out and 'File "' not in out, out


def test_e3_a_malformed_manifest_reads_as_the_cli_reads_it(program: LocalPulumi) -> None:
    def edit(props: dict[str, Any]) -> None:
        props["manifest"]["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["minReplicas"] = 3

    out = _with_program(program, edit)
    assert "raygang:index:RayJobGang resource 'demoJob'" in out, out
    assert "raygang: invalid input:" in out, out
    # The words `raygang plan` prints for the same manifest in a file, after its source.
    assert (
        "RayJobGang demoJob input manifest: spec.rayClusterSpec.workerGroupSpecs[0].minReplicas: "
        "minReplicas 3 is greater than maxReplicas 2 (accepted: minReplicas <= maxReplicas)"
    ) in out, out


def test_f_the_python_program_creates_the_same_objects(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> None:
    assert CREATED, "the YAML program's up did not run"
    python = make_pulumi(tools, cluster, tmp_path_factory.mktemp("package-python"), (STACK,))
    python.run("up", "--yes", "--skip-preview", "--stack", STACK)
    try:
        assert read_objects(cluster) == CREATED
    finally:
        python.run("destroy", "--yes", "--skip-preview", "--stack", STACK)
        wait_until(lambda: gone(cluster), timeout=120, what="the Python program's objects deleted")
