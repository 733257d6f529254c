"""RayClusters of their own (issue 27, item 1): accepted, checked as KubeRay checks them,
ganged as KubeRay's Volcano adapter gangs them, zeroed while suspended, and refused where
they would make two PodGroups for one cluster or one for two."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang.cli import EXIT_INVALID, main
from raygang.kube.errors import SpecError
from raygang.kuberay.gang import Accounting, compute_cluster_gang, compute_gang
from raygang.loader import load_documents, load_files
from raygang.pipeline import plan_everything, preflight_gate
from raygang.rayjob.spec import RayJob
from raygang.settings import StackSettings

from tests.builders import job_doc, write

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "good" / "raycluster.yaml"


def cluster_doc(name: str = "shared-dev", **changes: Any) -> dict[str, Any]:
    doc = yaml.safe_load(FIXTURE.read_text())
    doc["metadata"]["name"] = name
    doc["spec"].update(changes)
    return dict(doc)


def plan_of(*docs: Any, settings: StackSettings | None = None) -> Any:
    loaded = load_documents([(f"c.yaml (document {i + 1})", d) for i, d in enumerate(docs)])
    return plan_everything(loaded, settings or StackSettings(), base=ROOT)


def problems(*docs: Any) -> list[str]:
    with pytest.raises(SpecError) as info:
        plan_of(*docs)
    return [f"{p.path}: {p.message} (accepted: {p.accepted})" for p in info.value.problems]


def podgroup(cluster: Any) -> dict[str, Any]:
    return dict(cluster.resource("podgroup").manifest)


# --- the gang ----------------------------------------------------------------------------


def test_the_fixture_is_one_gang_of_head_and_every_worker_pod_without_a_submitter() -> None:
    (cluster,) = plan_of(cluster_doc()).clusters
    assert [r.ref for r in cluster.resources] == [
        "PodGroup/ray-shared-dev-pg",
        "RayCluster/shared-dev",
    ]
    assert cluster.resources[1].depends_on == ("PodGroup/ray-shared-dev-pg",)
    spec = podgroup(cluster)["spec"]
    # 1 head + 1 × 1 (cpu) + 1 replica × 2 hosts (pairs); 1 + 1 + 2 × 500m cpu.
    assert spec == {
        "minMember": 4,
        "minResources": {"cpu": "3", "memory": "6Gi"},
        "queue": "ray-interactive",
    }
    assert [s.role for s in cluster.plan.gang.shares] == ["head", "worker", "worker"]


@pytest.mark.parametrize("accounting", list(Accounting))
def test_the_gang_is_kuberays_for_an_interactive_rayjob_of_the_same_spec(
    accounting: Accounting,
) -> None:
    # KubeRay's calculatePodGroupParams serves both; an InteractiveMode RayJob adds nothing.
    doc = cluster_doc()
    job = RayJob.model_validate(
        {
            "apiVersion": "ray.io/v1",
            "kind": "RayJob",
            "metadata": {"name": "x"},
            "spec": {"submissionMode": "InteractiveMode", "rayClusterSpec": doc["spec"]},
        }
    )
    spec = job.spec.ray_cluster_spec
    assert spec is not None
    ours, theirs = compute_cluster_gang(spec, accounting), compute_gang(job, accounting)
    assert (ours.min_member, ours.min_resources_strings(), ours.shares, ours.differences) == (
        theirs.min_member,
        theirs.min_resources_strings(),
        theirs.shares,
        theirs.differences,
    )


def test_autoscaling_counts_min_replicas() -> None:
    doc = cluster_doc(enableInTreeAutoscaling=True)
    doc["spec"]["workerGroupSpecs"][0].update(replicas=3, minReplicas=2, maxReplicas=4)
    (cluster,) = plan_of(doc).clusters
    spec = podgroup(cluster)["spec"]
    # KubeRay: 1 head + minReplicas 2 × 1 host + minReplicas 0 of pairs.
    assert spec["minMember"] == 3
    assert spec["minResources"] == {"cpu": "3", "memory": "6Gi"}


def test_a_suspended_group_counts_nothing() -> None:
    doc = cluster_doc()
    doc["spec"]["workerGroupSpecs"][1]["suspend"] = True
    (cluster,) = plan_of(doc).clusters
    assert podgroup(cluster)["spec"] == {
        "minMember": 2,
        "minResources": {"cpu": "2", "memory": "4Gi"},
        "queue": "ray-interactive",
    }


def test_replicas_are_clamped_into_min_and_max_for_min_member() -> None:
    doc = cluster_doc()
    doc["spec"]["workerGroupSpecs"][0].update(replicas=9, minReplicas=1, maxReplicas=4)
    (cluster,) = plan_of(doc).clusters
    # KubeRay: minMember from the clamped 4; minResources from the raw 9 (its quirk).
    assert podgroup(cluster)["spec"]["minMember"] == 1 + 4 + 2


def test_scaling_a_group_changes_the_podgroup_of_the_same_plan() -> None:
    small, big = cluster_doc(), cluster_doc()
    big["spec"]["workerGroupSpecs"][0]["replicas"] = 3
    (before,) = plan_of(small).clusters
    (after,) = plan_of(big).clusters
    assert podgroup(before)["spec"]["minMember"] == 4
    assert podgroup(after)["spec"]["minMember"] == 6
    assert podgroup(after)["spec"]["minResources"] == {"cpu": "5", "memory": "10Gi"}
    group = after.resource("raycluster").manifest["spec"]["workerGroupSpecs"][0]
    assert group["replicas"] == 3


def test_every_pod_template_points_at_the_podgroup() -> None:
    (cluster,) = plan_of(cluster_doc()).clusters
    spec = cluster.resource("raycluster").manifest["spec"]
    templates = [("headgroup", spec["headGroupSpec"]["template"])] + [
        (g["groupName"], g["template"]) for g in spec["workerGroupSpecs"]
    ]
    for task, template in templates:
        assert template["spec"]["schedulerName"] == "volcano"
        assert template["metadata"]["annotations"] == {
            "scheduling.k8s.io/group-name": "ray-shared-dev-pg",
            "volcano.sh/task-spec": task,
        }
        assert template["metadata"]["labels"] == {"volcano.sh/queue-name": "ray-interactive"}
    labels = cluster.resource("raycluster").manifest["metadata"]["labels"]
    assert not any(k.startswith("ray.io/originated-from") for k in labels)


def test_priority_and_queue_come_from_the_same_labels_as_a_jobs() -> None:
    doc = cluster_doc()
    doc["metadata"]["labels"]["ray.io/priority-class-name"] = "high"
    (cluster,) = plan_of(doc).clusters
    assert podgroup(cluster)["spec"]["priorityClassName"] == "high"
    assert cluster.plan.priority_class == "high"


# --- suspend -------------------------------------------------------------------------------


def test_a_suspended_cluster_has_its_podgroup_zeroed_and_is_not_judged() -> None:
    (cluster,) = plan_of(cluster_doc(suspend=True)).clusters
    spec = podgroup(cluster)["spec"]
    assert "minMember" not in spec  # Go's omitempty: a declared 0 would diff after refresh
    assert spec["minResources"] == {}
    assert cluster.declared_min_member == 0
    assert cluster.preflight.verdict == "unknown"
    assert cluster.preflight.checks[0].name == "lifecycle"
    annotations = cluster.resource("raycluster").manifest["metadata"]["annotations"]
    assert annotations["pulumi.com/waitFor"] == "jsonpath={.metadata.uid}"  # never ready
    assert cluster.actions and "kuberay #5183" in cluster.actions[0]
    # The plan keeps the gang it resumes with.
    assert cluster.plan.gang.min_member == 4


# --- the two writers ---------------------------------------------------------------------


def test_under_effective_the_podgroup_carries_kuberays_numbers_and_the_plan_says_so() -> None:
    doc = cluster_doc()
    head = doc["spec"]["headGroupSpec"]["template"]["spec"]
    # An init container larger than the head: the pod requests it, KubeRay does not count it.
    head["initContainers"] = [
        {
            "name": "fetch",
            "image": "busybox",
            "resources": {"requests": {"cpu": "4", "memory": "2Gi"}},
        }
    ]
    plan = plan_of(doc)
    (cluster,) = plan.clusters
    assert podgroup(cluster)["spec"]["minResources"] == {"cpu": "3", "memory": "6Gi"}
    assert cluster.plan.gang.min_resources_strings()["cpu"] == "6"
    assert "re-syncs a RayCluster's PodGroup" in cluster.plan.differences[0]
    gate = preflight_gate(plan, "error")
    assert any(w.startswith("RayCluster default/shared-dev: the PodGroup") for w in gate.warnings)


def test_under_kuberay_the_numbers_are_the_same_and_nothing_is_said() -> None:
    doc = cluster_doc()
    doc["metadata"]["annotations"] = {"raygang.dev/accounting": "kuberay"}
    (cluster,) = plan_of(doc).clusters
    assert cluster.plan.differences == ()
    assert podgroup(cluster)["spec"]["minMember"] == 4


# --- bad things ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "value"),
    [("ray.io/originated-from-crd", "RayJob"), ("ray.io/originated-from-cr-name", "other")],
)
def test_a_rayjob_origin_label_written_by_hand_is_refused(label: str, value: str) -> None:
    doc = cluster_doc()
    doc["metadata"]["labels"][label] = value
    (found,) = problems(doc)
    assert found.startswith(f"metadata.labels[{label!r}]: ")
    assert "no ray.io/originated-from-* label on a RayCluster of its own" in found


def test_both_origin_labels_are_both_reported_even_beside_other_problems() -> None:
    doc = cluster_doc()
    doc["metadata"]["labels"].update(
        {"ray.io/originated-from-crd": "RayJob", "ray.io/originated-from-cr-name": "j"}
    )
    doc["spec"]["workerGroupSpecs"][0]["replicas"] = "two"
    found = problems(doc)
    assert [f.split(":")[0] for f in found] == [
        "spec.workerGroupSpecs[0].replicas",
        "metadata.labels['ray.io/originated-from-crd']",
        "metadata.labels['ray.io/originated-from-cr-name']",
    ]


def test_a_raycluster_and_a_rayjob_of_one_podgroup_name_clash() -> None:
    found = problems(job_doc("shared-dev"), cluster_doc("shared-dev"))
    assert found == [
        "metadata.name: RayCluster default/shared-dev and its PodGroup ray-shared-dev-pg are "
        "also the RayCluster and PodGroup of RayJob default/shared-dev (c.yaml (document 1)): "
        "two plans for one gang (accepted: another name for the RayCluster or the RayJob)"
    ]


def test_the_same_name_in_another_namespace_is_no_clash() -> None:
    doc = cluster_doc("shared-dev")
    doc["metadata"]["namespace"] = "team-a"
    plan = plan_of(job_doc("shared-dev"), doc)
    assert len(plan.jobs) == len(plan.clusters) == 1


def test_a_raycluster_declared_twice_is_refused() -> None:
    (found,) = problems(cluster_doc(), cluster_doc())
    assert "is also defined in c.yaml (document 1)" in found


def test_one_rule_refuses_rayjobs_and_rayclusters_declared_twice() -> None:
    # One rule (raygang.loader.duplicates.redeclared) for both kinds: each message names its
    # kind and the first declaration (a third names the first too); a RayCluster's clash with
    # a RayJob follows its own redeclaration, cluster by cluster.
    docs = [job_doc("m"), cluster_doc("m"), cluster_doc("m"), *[job_doc("x")] * 3]
    with pytest.raises(SpecError) as info:
        load_documents([(f"c.yaml (document {i + 1})", d) for i, d in enumerate(docs)])
    clash = (
        "metadata.name: RayCluster default/m and its PodGroup ray-m-pg are also the RayCluster "
        "and PodGroup of RayJob default/m (c.yaml (document 1)): two plans for one gang "
        "(accepted: another name for the RayCluster or the RayJob)"
    )
    assert str(info.value).splitlines() == [
        "c.yaml (document 5): metadata.name: RayJob default/x is also defined in c.yaml "
        "(document 4) (accepted: one RayJob per namespace and name)",
        "c.yaml (document 6): metadata.name: RayJob default/x is also defined in c.yaml "
        "(document 4) (accepted: one RayJob per namespace and name)",
        f"c.yaml (document 2): {clash}",
        "c.yaml (document 3): metadata.name: RayCluster default/m is also defined in c.yaml "
        "(document 2) (accepted: one RayCluster per namespace and name)",
        f"c.yaml (document 3): {clash}",
    ]


def test_a_clash_names_the_first_of_a_rayjob_declared_twice() -> None:
    # The RayJob's own refusal names its first declaration; the clash names the same one.
    docs = [job_doc("m"), job_doc("m"), cluster_doc("m")]
    with pytest.raises(SpecError) as info:
        load_documents([(f"c.yaml (document {i + 1})", d) for i, d in enumerate(docs)])
    lines = str(info.value).splitlines()
    assert lines[0].startswith("c.yaml (document 2): metadata.name: RayJob default/m is also ")
    assert lines[0].endswith(
        "defined in c.yaml (document 1) (accepted: one RayJob per namespace and name)"
    )
    assert lines[1].startswith("c.yaml (document 3): metadata.name: RayCluster default/m ")
    assert "of RayJob default/m (c.yaml (document 1)): two plans for one gang" in lines[1]
    assert len(lines) == 2


def test_a_companion_that_is_the_clusters_podgroup_is_refused() -> None:
    pg = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "ray-shared-dev-pg", "namespace": "default"},
        "spec": {"minMember": 1},
    }
    (found,) = problems(cluster_doc(), pg)
    assert (
        "PodGroup default/ray-shared-dev-pg is the podgroup of RayCluster default/shared-dev"
        in (found)
    )


def test_kuberays_cluster_checks_run_at_the_clusters_paths() -> None:
    doc = cluster_doc("x" * 54)
    doc["spec"]["workerGroupSpecs"][0].update(minReplicas=5, maxReplicas=4)
    found = problems(doc)
    assert found[0].startswith("metadata.name: ")
    assert "KubeRay caps RayCluster names at 53" in found[0]
    assert found[1].startswith("spec.workerGroupSpecs[0].minReplicas: ")
    assert not any("rayClusterSpec" in f for f in found)


def test_a_missing_head_group_is_a_structural_problem_at_spec() -> None:
    doc = cluster_doc()
    del doc["spec"]["headGroupSpec"]
    found = problems(doc)
    assert found[0].startswith("spec.headGroupSpec: is required but missing")


# --- the CLI -----------------------------------------------------------------------------


def test_plan_json_lists_rayclusters_with_their_gang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "c.yaml", cluster_doc(), job_doc("other"))
    assert main(["plan", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (cluster,) = doc["rayClusters"]
    assert cluster["podGroup"] == {
        "name": "ray-shared-dev-pg",
        "minMember": 4,
        "minResources": {"cpu": "3", "memory": "6Gi"},
        "queue": "ray-interactive",
        "priorityClassName": None,
    }
    assert [r["kind"] for r in cluster["resources"]] == ["PodGroup", "RayCluster"]
    assert {
        "name": "ray-interactive",
        "declared": False,
        "jobs": ["RayCluster default/shared-dev"],
    } in (doc["queues"])


def test_plan_without_rayclusters_has_no_raycluster_key(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["plan", str(ROOT / "tests/fixtures/good/interactive.yaml"), "--format", "json"]) == 0
    )
    assert "rayClusters" not in json.loads(capsys.readouterr().out)


def test_plan_table_and_out_show_the_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", str(FIXTURE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "RayCluster default/shared-dev  (a cluster of its own, accounting effective)"
    )
    assert "1. PodGroup/ray-shared-dev-pg" in out
    assert "2. RayCluster/shared-dev  (waits for ready; after PodGroup/ray-shared-dev-pg)" in out
    assert main(["plan", str(FIXTURE), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert [n for n in names if n.endswith(".yaml")] == [
        "001-podgroup-default-ray-shared-dev-pg.yaml",
        "002-raycluster-default-shared-dev.yaml",
    ]


def test_other_kuberay_kinds_are_still_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = {"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": {"name": "x"}}
    path = write(tmp_path / "a.yaml", cluster_doc(), other)
    assert main(["plan", str(path)]) == EXIT_INVALID
    assert "kind: RayService (ray.io/v1) is not handled" in capsys.readouterr().err


def test_a_file_of_one_raycluster_plans(tmp_path: Path) -> None:
    docs = load_files([write(tmp_path / "c.yaml", copy.deepcopy(cluster_doc()))])
    assert [c.name for c in docs.clusters] == ["shared-dev"] and not docs.jobs


def test_a_raycluster_in_the_stacks_jobs_is_planned() -> None:
    docs = load_files([], [cluster_doc()])
    assert [c.source for c in docs.clusters] == ["stack config raygang:jobs[0]"]
    assert not docs.jobs


def test_a_running_cluster_says_suspend_false() -> None:
    # KubeRay v1.5.0 resumes only on an explicit false: a removed field leaves it suspended.
    (cluster,) = plan_of(cluster_doc()).clusters
    assert cluster.resource("raycluster").manifest["spec"]["suspend"] is False
    (kept,) = plan_of(cluster_doc(suspend=True)).clusters
    assert kept.resource("raycluster").manifest["spec"]["suspend"] is True


# --- the preflight's words ---------------------------------------------------------------
# The cluster's gang is judged as an InteractiveMode RayJob's (ClusterPlan.gang_job); the
# words name the RayCluster, never that stand-in job or its submission mode.

CPU_ONLY = ROOT / "tests" / "fixtures" / "preflight" / "cpu-only.yaml"


def own_cluster(
    name: str = "shared-dev", queue: str | None = None, cpu_workers: tuple[int, str] = (1, "1")
) -> dict[str, Any]:
    """The fixture on ``queue`` (no label: Volcano's default), its ``cpu`` worker group
    ``cpu_workers`` = (replicas, cpu per pod)."""
    doc = cluster_doc(name)
    doc["metadata"]["labels"] = {"volcano.sh/queue-name": queue} if queue else {}
    (group,) = [g for g in doc["spec"]["workerGroupSpecs"] if g["groupName"] == "cpu"]
    replicas, cpu = cpu_workers
    group.update(replicas=replicas, minReplicas=replicas, maxReplicas=replicas)
    group["template"]["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": cpu, "memory": "2Gi"},
        "limits": {"cpu": cpu, "memory": "2Gi"},
    }
    return doc


def checks_against_cpu_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *docs: Any
) -> dict[str, dict[str, str]]:
    """Each RayJob's and RayCluster's check messages by check name, as ``raygang plan
    --format json`` prints them against the cpu-only snapshot."""
    path = write(tmp_path / "c.yaml", *docs)
    argv = ["plan", str(path), "--cluster", str(CPU_ONLY), "--now", "2026-03-02T00:00:00Z"]
    assert main([*argv, "--format", "json", "--preflight", "warn"]) == 0
    doc = json.loads(capsys.readouterr().out)
    return {
        f"{kind} {item['name']}": {c["name"]: c["message"] for c in item["preflight"]["checks"]}
        for kind, key in (("RayJob", "jobs"), ("RayCluster", "rayClusters"))
        for item in doc.get(key, [])
    }


def test_the_judged_gang_carries_the_kind_of_what_the_user_wrote() -> None:
    plan = plan_of(own_cluster(), job_doc("notebook"))
    assert [c.plan.gang_job.kind for c in plan.clusters] == ["RayCluster"]
    assert [j.plan.kind for j in plan.jobs] == ["RayJob"]


def test_a_rayclusters_preflight_names_the_raycluster_not_its_stand_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checks = checks_against_cpu_only(tmp_path, capsys, own_cluster())["RayCluster shared-dev"]
    assert checks["submitter"] == "RayCluster: no submitter pod"
    assert checks["fit"] == "every pod of the RayCluster fits some node when it is empty"
    # Volcano's jobs (PodGroups) keep their name.
    assert checks["siblings"] == "no other job of this stack uses queue default"
    assert not [m for m in checks.values() if "InteractiveMode" in m or "the job" in m]


def test_a_raycluster_too_big_for_the_empty_cluster_is_worded_as_a_raycluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = own_cluster(cpu_workers=(10, "12"))
    checks = checks_against_cpu_only(tmp_path, capsys, huge)["RayCluster shared-dev"]
    # Three 15890m nodes hold one 12-cpu pod each.
    assert checks["fit"] == (
        "even with every node empty only 3 worker group cpu pods fit; the RayCluster starts 10"
    )
    # A gang that is not placed does not make a submitter appear: there is none to reach.
    assert checks["placement"].startswith("0/3 nodes are unavailable: 3 Insufficient cpu.")
    assert checks["submitter"] == "RayCluster: no submitter pod"


def test_siblings_say_what_waits_for_what_for_a_raycluster_and_for_a_rayjob(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Queue ray-batch holds cpu 32: the cluster (22) and the job (14) fit it each alone only.
    job = job_doc("job-sib", namespace="default", labels={"volcano.sh/queue-name": "ray-batch"})
    (group,) = job["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    group["replicas"] = 1
    group["template"]["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": "12", "memory": "8Gi"}
    }
    cluster = own_cluster("rc-sib", "ray-batch", cpu_workers=(2, "10"))
    checks = checks_against_cpu_only(tmp_path, capsys, cluster, job)
    shared = (
        "queue resource quota insufficient: insufficient cpu -- Volcano admits them one after "
        "another (by priority, then age), so this "
    )
    assert checks["RayCluster rc-sib"]["siblings"] == (
        f"with default/job-sib (same stack, same queue ray-batch): {shared}RayCluster may wait "
        "for another to finish, while pulumi up waits at most clusterReadyTimeoutSeconds "
        "(900s) for it"
    )
    assert checks["RayJob job-sib"]["siblings"] == (
        f"with RayCluster default/rc-sib (same stack, same queue ray-batch): {shared}job may "
        "wait for another to finish, while pulumi up waits at most clusterReadyTimeoutSeconds "
        "(900s) for its RayCluster"
    )


def test_a_sibling_raycluster_is_named_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As the plan document's queue "jobs" lists name them: a RayJob as namespace/name.
    docs = own_cluster(), own_cluster("other"), job_doc("notebook", namespace="default")
    checks = checks_against_cpu_only(tmp_path, capsys, *docs)
    assert checks["RayJob notebook"]["siblings"] == (
        "fits together with RayCluster default/shared-dev, RayCluster default/other (same "
        "stack, same queue default)"
    )
    assert checks["RayCluster shared-dev"]["siblings"] == (
        "fits together with default/notebook, RayCluster default/other (same stack, same "
        "queue default)"
    )


@pytest.mark.parametrize(
    ("fixture", "submitter"),
    [
        ("interactive.yaml", "InteractiveMode: no submitter pod"),
        ("sidecar.yaml", "SidecarMode: it runs in the head pod"),
    ],
)
def test_a_rayjobs_preflight_words_are_unchanged(
    fixture: str, submitter: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = ROOT / "tests" / "fixtures" / "good" / fixture
    argv = ["plan", str(path), "--cluster", str(CPU_ONLY), "--now", "2026-03-02T00:00:00Z"]
    assert main([*argv, "--format", "json", "--preflight", "warn"]) == 0
    (job,) = json.loads(capsys.readouterr().out)["jobs"]
    checks = {c["name"]: c["message"] for c in job["preflight"]["checks"]}
    assert checks["submitter"] == submitter
    assert checks["fit"] == "every pod of the job fits some node when it is empty"
