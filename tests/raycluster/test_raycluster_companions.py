"""A RayCluster of its own and the other objects of its file (its companions): they take the
namespace of the file's RayJobs and RayClusters, are created before the RayCluster, and the
outputs name the cluster among their users, as for a RayJob."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang.cli import main
from raygang.kube.errors import SpecError
from raygang.loader import load_documents
from raygang.pipeline import plan_everything
from raygang.settings import StackSettings

from tests.builders import job_doc, write

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "good" / "raycluster.yaml"
SETTINGS = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}}
SPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}


def cluster_doc(name: str = "shared-dev", namespace: str | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(FIXTURE.read_text())
    doc["metadata"]["name"] = name
    if namespace is None:
        del doc["metadata"]["namespace"]
    else:
        doc["metadata"]["namespace"] = namespace
    return doc


def in_file(*docs: Any, file: str = "c.yaml") -> list[tuple[str, Any]]:
    return [(f"{file} (document {i + 1})", d) for i, d in enumerate(docs)]


def problems(*docs: Any) -> list[str]:
    with pytest.raises(SpecError) as info:
        load_documents(in_file(*docs))
    return [f"{p.path}: {p.message} (accepted: {p.accepted})" for p in info.value.problems]


# --- the loader: the namespace and the users ---------------------------------------------


def test_a_companion_takes_the_namespace_of_its_files_raycluster() -> None:
    docs = load_documents(in_file(SETTINGS, cluster_doc(namespace="team-a")))
    (companion,) = docs.companions
    assert companion.manifest["metadata"] == {"name": "settings", "namespace": "team-a"}
    assert companion.jobs == ("team-a/shared-dev",)
    assert docs.companions_of(docs.clusters[0]) == (companion,)


def test_a_raycluster_without_a_namespace_puts_its_companions_in_default() -> None:
    docs = load_documents(in_file(cluster_doc(), SETTINGS))
    (companion,) = docs.companions
    assert companion.manifest["metadata"]["namespace"] == "default"
    assert companion.jobs == ("default/shared-dev",)


def test_a_companion_names_the_files_rayjobs_and_rayclusters_in_input_order() -> None:
    docs = load_documents(
        in_file(cluster_doc("c1", "team-a"), SETTINGS, job_doc("j1", namespace="team-a"))
    )
    (companion,) = docs.companions
    assert companion.jobs == ("team-a/c1", "team-a/j1")
    assert docs.companions_of(docs.jobs[0]) == docs.companions_of(docs.clusters[0])


def test_a_rayjob_and_a_raycluster_in_two_namespaces_need_the_companions() -> None:
    found = problems(SETTINGS, job_doc("j1", namespace="team-a"), cluster_doc("c1", "team-b"))
    assert found == [
        "metadata.namespace: is missing, and the RayJobs and RayClusters of this file are in "
        "several namespaces (team-a, team-b) (accepted: the namespace of the RayJobs and "
        "RayClusters that use it)"
    ]


def test_rayclusters_in_two_namespaces_need_the_companions() -> None:
    found = problems(SETTINGS, cluster_doc("c1", "team-a"), cluster_doc("c2", "team-b"))
    assert found == [
        "metadata.namespace: is missing, and the RayClusters of this file are in several "
        "namespaces (team-a, team-b) (accepted: the namespace of the RayClusters that use it)"
    ]


def test_rayjobs_alone_in_two_namespaces_are_worded_as_before() -> None:
    found = problems(SETTINGS, job_doc("j1", namespace="team-a"), job_doc("j2", namespace="b"))
    assert found == [
        "metadata.namespace: is missing, and the RayJobs of this file are in several "
        "namespaces (b, team-a) (accepted: the namespace of the RayJobs that use it)"
    ]


def test_a_companion_with_a_namespace_serves_a_cluster_of_another() -> None:
    named = {**SETTINGS, "metadata": {"name": "settings", "namespace": "shared"}}
    docs = load_documents(in_file(named, job_doc("j1", namespace="a"), cluster_doc("c1", "b")))
    assert docs.companions[0].jobs == ("a/j1", "b/c1")


def test_one_object_declared_identically_beside_a_job_and_a_cluster_is_theirs() -> None:
    docs = load_documents(
        [
            *in_file(SETTINGS, job_doc("j1"), file="a.yaml"),
            *in_file(SETTINGS, cluster_doc("c1"), file="b.yaml"),
        ]
    )
    (companion,) = docs.companions
    assert companion.jobs == ("default/j1", "default/c1")


def test_a_cluster_in_another_file_does_not_take_the_companion() -> None:
    docs = load_documents(
        [
            *in_file(SETTINGS, job_doc("j1", namespace="team-a"), file="a.yaml"),
            *in_file(cluster_doc("c1", "team-b"), file="b.yaml"),
        ]
    )
    (companion,) = docs.companions
    assert companion.jobs == ("team-a/j1",)
    assert docs.companions_of(docs.clusters[0]) == ()


# --- the plan and its outputs ------------------------------------------------------------


def test_the_stack_plan_gives_the_cluster_its_companions() -> None:
    docs = load_documents(in_file(SPACE, SETTINGS, cluster_doc("c1", "team-a")))
    plan = plan_everything(docs, StackSettings(), base=ROOT)
    assert [c.kind for c in plan.companions_of(plan.clusters[0])] == ["Namespace", "ConfigMap"]


def test_the_table_lists_the_companions_first_in_the_clusters_create_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path / "c.yaml",
        SPACE,
        SETTINGS,
        job_doc("j1", namespace="team-a"),
        cluster_doc("c1", "team-a"),
    )
    assert main(["plan", str(path)]) == 0
    out = capsys.readouterr().out
    cluster = out[out.index("RayCluster team-a/c1") :]
    # The cluster is the last item of the table.
    order = cluster[cluster.index("  create order") :].splitlines()[1:]
    source = f"companion from {path}"
    assert order == [
        f"    1. Namespace/team-a  ({source} (document 1); shared with team-a/j1)",
        f"    2. ConfigMap/settings  ({source} (document 2); shared with team-a/j1)",
        "    3. PodGroup/ray-c1-pg  (after Namespace/team-a)",
        "    4. RayCluster/c1  (waits for ready; after PodGroup/ray-c1-pg, Namespace/team-a, "
        "ConfigMap/settings)",
    ]
    # The job's create order names the cluster that shares them as a RayCluster.
    assert f"1. Namespace/team-a  ({source} (document 1); shared with RayCluster team-a/c1)" in (
        out
    )
    assert "for no RayJob" not in out


def test_json_names_the_cluster_among_a_companions_users(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "c.yaml", SETTINGS, job_doc("j1"), cluster_doc("c1"))
    assert main(["plan", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (companion,) = doc["companions"]
    # As a queue's "jobs" names a RayCluster: a bare key is always a RayJob of "jobs".
    assert companion["jobs"] == ["default/j1", "RayCluster default/c1"]
    (cluster,) = doc["rayClusters"]
    assert [(r["kind"], r["dependsOn"], r.get("companion")) for r in cluster["resources"]] == [
        ("ConfigMap", [], True),
        ("PodGroup", [], None),
        ("RayCluster", ["PodGroup/ray-c1-pg", "ConfigMap/settings"], None),
    ]


def test_yaml_and_out_create_the_companions_before_the_clusters_podgroup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "c.yaml", cluster_doc("c1", "team-a"), SETTINGS)
    assert main(["plan", str(path), "--format", "yaml"]) == 0
    kinds = [
        (d["kind"], d["metadata"].get("namespace"))
        for d in yaml.safe_load_all(capsys.readouterr().out)
    ]
    assert kinds == [("ConfigMap", "team-a"), ("PodGroup", "team-a"), ("RayCluster", "team-a")]
    assert main(["plan", str(path), "--out", str(tmp_path / "out")]) == 0
    names = sorted(p.name for p in (tmp_path / "out").iterdir() if p.suffix == ".yaml")
    assert names == [
        "001-configmap-team-a-settings.yaml",
        "002-podgroup-team-a-ray-c1-pg.yaml",
        "003-raycluster-team-a-c1.yaml",
    ]
