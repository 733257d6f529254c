"""Each policy's rule on plain data: the shipped stacks pass, each broken gang is named."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from raygang_policy import rules
from raygang_policy.catalogue import POLICIES
from raygang_policy.objects import UNKNOWN, Finding, StackResource
from raygang_policy.settings import PackSettings, enforcement_overrides

from tests.policy.stacks import REPO, find, resource, shipped_stack

SHAPES = '[{"name": "general-8x32", "allocatable": {"cpu": "8", "memory": "32Gi"}}]'
DEV = {"raygang:nodeShapes": SHAPES}


def _run(
    resources: list[StackResource], settings: PackSettings | None = None
) -> dict[str, list[Finding]]:
    settings = settings or PackSettings.read(DEV)
    out: dict[str, list[Finding]] = {}
    for spec in POLICIES:
        if spec.stack_rule is not None:
            out[spec.name] = spec.stack_rule(resources, settings)
        else:
            assert spec.resource_rule is not None
            out[spec.name] = [f for r in resources for f in spec.resource_rule(r)]
    return out


def _edit(resources: list[StackResource], kind: str, change: Any) -> list[StackResource]:
    """The stack with the first resource of ``kind`` changed by ``change(props)``."""
    target = find(resources, kind)
    props = copy.deepcopy(dict(target.props))
    change(props)
    edited = StackResource(target.type, target.urn, target.name, props)
    return [edited if r is target else r for r in resources]


def _messages(findings: list[Finding]) -> str:
    return "\n".join(f.message for f in findings)


@pytest.mark.parametrize(
    ("stack", "config"), [("dev", DEV), ("ml-platform", {})], ids=["dev", "ml-platform"]
)
def test_shipped_stacks_pass_every_policy(stack: str, config: dict[str, str]) -> None:
    found = _run(shipped_stack(stack), PackSettings.read(config))
    assert found == {spec.name: [] for spec in POLICIES}


# --- gang-podgroup-matches-kuberay ---------------------------------------------------------------


def test_podgroup_min_member_differs_names_both_accountings() -> None:
    stack = _edit(shipped_stack("dev"), "PodGroup", lambda p: p["spec"].update(minMember=5))
    found = rules.podgroup_gang(stack, PackSettings.read(DEV))
    assert len(found) == 1
    text = found[0].message
    assert (
        "PodGroup default/ray-demo-job-pg does not match the gang of RayCluster "
        "default/demo-job, Job default/demo-job" in text
    )
    assert (
        "KubeRay's adapter: minMember 3, cpu 5500m, memory 10752Mi; differs in: "
        "minMember 5 (want 3)" in text
    )
    assert "the effective accounting: minMember 3" in text
    assert found[0].urn == find(stack, "PodGroup").urn


def test_podgroup_min_resources_diff_per_resource() -> None:
    def change(p: dict[str, Any]) -> None:
        p["spec"]["minResources"] = {"cpu": "5", "memory": "10752Mi", "nvidia.com/gpu": "1"}

    found = rules.podgroup_gang(
        _edit(shipped_stack("dev"), "PodGroup", change), PackSettings.read(DEV)
    )
    assert "cpu 5 (want 5500m); nvidia.com/gpu 1 (want missing)" in _messages(found)


def test_podgroup_with_kuberays_numbers_passes() -> None:
    # ml-platform's nightly-etl: the effective accounting adds the autoscaler; KubeRay's does not.
    stack = shipped_stack("ml-platform")
    pg = find(stack, "PodGroup")
    assert pg.props["spec"]["minResources"] == {"cpu": "11", "memory": "41672Mi"}
    kuberay = _edit(
        stack,
        "PodGroup",
        lambda p: p["spec"].update(minResources={"cpu": "10500m", "memory": "41160Mi"}),
    )
    assert rules.podgroup_gang(kuberay, PackSettings.read({})) == []


def test_malformed_podgroup_names_the_field() -> None:
    stack = _edit(shipped_stack("dev"), "PodGroup", lambda p: p["spec"].update(minMember="three"))
    found = rules.podgroup_gang(stack, PackSettings.read(DEV))
    assert [f.message for f in found] == [
        "PodGroup default/ray-demo-job-pg: spec.minMember: is 'three', not an integer"
    ]
    stack = _edit(
        shipped_stack("dev"), "PodGroup", lambda p: p["spec"].update(minResources={"cpu": "lots"})
    )
    assert "spec.minResources['cpu']" in _messages(
        rules.podgroup_gang(stack, PackSettings.read(DEV))
    )


# --- gang-valid-input ----------------------------------------------------------------------------


def test_malformed_raycluster_is_a_violation_naming_the_field_never_a_crash() -> None:
    stack = _edit(
        shipped_stack("dev"), "RayCluster", lambda p: p["spec"].update(workerGroupSpecs="two")
    )
    found = _run(stack)
    text = _messages(found["gang-valid-input"])
    assert "RayCluster default/demo-job: spec.workerGroupSpecs" in text
    # The other gang policies cannot judge it and say nothing more (no crash, no duplicate).
    assert found["gang-podgroup-matches-kuberay"] == []
    assert found["gang-admissible"] == []


def test_negative_replicas_refused_as_kuberay_does() -> None:
    def change(p: dict[str, Any]) -> None:
        p["spec"]["workerGroupSpecs"][0]["replicas"] = -1

    found = rules.kuberay_validation(
        _edit(shipped_stack("dev"), "RayCluster", change), PackSettings.read(DEV)
    )
    assert "RayCluster default/demo-job: spec.workerGroupSpecs[0].replicas" in _messages(found)


def test_unknown_value_at_preview_cannot_judge_yet() -> None:
    def change(p: dict[str, Any]) -> None:
        p["spec"]["workerGroupSpecs"][0]["replicas"] = UNKNOWN

    stack = _edit(shipped_stack("dev"), "RayCluster", change)
    for name, found in _run(stack).items():
        if name.startswith("gang-") and name != "gang-pod-annotations":
            assert [f.judged for f in found] == [False], name
            assert "cannot judge PodGroup default/ray-demo-job-pg yet" in found[0].message
            assert (
                "RayCluster default/demo-job: spec.workerGroupSpecs[0].replicas" in found[0].message
            )


def test_unreadable_pack_settings_are_reported() -> None:
    found = rules.kuberay_validation(
        shipped_stack("dev"), PackSettings.read({"raygang:nodeShapes": "[1]"})
    )
    assert "nodeShapes: is not a list of node shapes" in _messages(found)


# --- gang-submitter-not-member -------------------------------------------------------------------


def test_submitter_counted_in_min_member() -> None:
    stack = _edit(shipped_stack("dev"), "PodGroup", lambda p: p["spec"].update(minMember=4))
    found = rules.submitter_not_member(stack, PackSettings.read(DEV))
    assert len(found) == 1
    assert "spec.minMember 4 counts the submitter (Job default/demo-job)" in found[0].message
    assert "Fix: minMember 3" in found[0].message
    # Without a submitter pod naming the group, a minMember of 4 is only a wrong number.
    alone = [r for r in stack if r.kind != "Job"]
    assert rules.submitter_not_member(alone, PackSettings.read(DEV)) == []


# --- gang-pod-annotations ------------------------------------------------------------------------


def test_volcano_pods_without_group() -> None:
    def change(p: dict[str, Any]) -> None:
        del p["spec"]["workerGroupSpecs"][0]["template"]["metadata"]["annotations"]

    found = rules.pod_group_annotations(
        _edit(shipped_stack("dev"), "RayCluster", change), PackSettings.read(DEV)
    )
    assert [f.message.split(":")[0:2] for f in found] == [
        ["RayCluster default/demo-job", " spec.workerGroupSpecs[0].template.metadata.annotations"]
    ]
    assert "not a gang" in found[0].message


def test_group_no_podgroup_provides() -> None:
    def change(p: dict[str, Any]) -> None:
        p["spec"]["headGroupSpec"]["template"]["metadata"]["annotations"][
            "scheduling.k8s.io/group-name"
        ] = "elsewhere"

    found = rules.pod_group_annotations(
        _edit(shipped_stack("dev"), "RayCluster", change), PackSettings.read(DEV)
    )
    assert (
        "names PodGroup elsewhere, which this stack does not declare, and no cluster snapshot "
        "shows it" in _messages(found)
    )


def test_task_spec_missing_or_wrong() -> None:
    def change(p: dict[str, Any]) -> None:
        p["spec"]["headGroupSpec"]["template"]["metadata"]["annotations"][
            "volcano.sh/task-spec"
        ] = "head"
        del p["spec"]["workerGroupSpecs"][0]["template"]["metadata"]["annotations"][
            "volcano.sh/task-spec"
        ]

    text = _messages(
        rules.pod_group_annotations(
            _edit(shipped_stack("dev"), "RayCluster", change), PackSettings.read(DEV)
        )
    )
    assert (
        "headGroupSpec.template.metadata.annotations[volcano.sh/task-spec]: is 'head'; "
        "KubeRay's Volcano adapter gives this pod 'headgroup'" in text
    )
    assert (
        "workerGroupSpecs[0].template.metadata.annotations[volcano.sh/task-spec]: is missing; "
        "KubeRay's Volcano adapter gives this pod 'compute'" in text
    )


def test_scheduler_or_group_unknown_cannot_judge_yet() -> None:
    def change(p: dict[str, Any]) -> None:
        p["spec"]["headGroupSpec"]["template"]["metadata"]["annotations"][
            "scheduling.k8s.io/group-name"
        ] = UNKNOWN

    found = rules.pod_group_annotations(
        _edit(shipped_stack("dev"), "RayCluster", change), PackSettings.read(DEV)
    )
    assert [(f.judged, f.message.split(" yet")[0]) for f in found] == [
        (False, "cannot judge RayCluster default/demo-job: spec.headGroupSpec.template")
    ]


def test_kuberay_grouped_cluster_needs_no_annotations() -> None:
    cluster = copy.deepcopy(dict(find(shipped_stack("dev"), "RayCluster").props))
    cluster["metadata"] = {
        "name": "mine",
        "namespace": "default",
        "labels": {"ray.io/scheduler-name": "volcano"},
    }
    for t in (cluster["spec"]["headGroupSpec"], cluster["spec"]["workerGroupSpecs"][0]):
        t["template"].pop("metadata")
    found = _run([resource(cluster)])
    assert found == {spec.name: [] for spec in POLICIES}


# --- gang-queue-exists ---------------------------------------------------------------------------


def test_queue_neither_declared_nor_known() -> None:
    stack = [r for r in shipped_stack("dev") if r.kind != "Queue"]
    found = rules.queue_exists(stack, PackSettings.read(DEV))
    assert [f.message for f in found] == [
        "PodGroup default/ray-demo-job-pg: spec.queue: queue ray-batch is neither declared in this "
        "stack nor known to exist (list it in knownQueues, or give a cluster snapshot): Volcano's "
        "webhook refuses a PodGroup whose queue does not exist"
    ]
    known = PackSettings.read(DEV, {"knownQueues": ["ray-batch"]})
    assert rules.queue_exists(stack, known) == []
    per_stack = PackSettings.read({**DEV, "raygang-policy:knownQueues": '["ray-batch"]'})
    assert rules.queue_exists(stack, per_stack) == []


def test_podgroup_queue_unknown_at_preview_falls_back_to_the_clusters_label() -> None:
    # shipped_stack leaves the PodGroup's queue unknown, as the engine has it at preview; the
    # RayCluster's label (what KubeRay's adapter reads) names it: everything is judged.
    stack = shipped_stack("dev")
    assert find(stack, "PodGroup").props["spec"]["queue"] is UNKNOWN
    stack = [r for r in stack if r.kind != "Queue"]
    assert "queue ray-batch is neither declared" in _messages(
        rules.queue_exists(stack, PackSettings.read(DEV))
    )


def test_queue_unknown_everywhere_judges_the_numbers_not_the_queue() -> None:
    stack = _edit(
        _edit(
            shipped_stack("dev"),
            "RayCluster",
            lambda p: p["metadata"]["labels"].pop("volcano.sh/queue-name"),
        ),
        "PodGroup",
        lambda p: p["spec"].update(minMember=5),
    )
    stack = _edit(
        stack,
        "RayCluster",
        lambda p: p["metadata"]["labels"].update({"volcano.sh/queue-name": UNKNOWN}),
    )
    found = _run(stack)
    for name in ("gang-queue-exists", "gang-admissible"):
        assert [f.judged for f in found[name]] == [False], name
        assert "PodGroup default/ray-demo-job-pg: spec.queue" in found[name][0].message
    assert "minMember 5 (want 3)" in _messages(found["gang-podgroup-matches-kuberay"])


def test_queue_missing_from_the_snapshot_in_volcanos_words() -> None:
    # A snapshot holding Queues (only `default` here): the preflight's queue check decides,
    # with the webhook's refusal.
    snapshot = str(REPO / "tests/fixtures/preflight/overcommit.yaml")
    stack = [r for r in shipped_stack("dev") if r.kind != "Queue"]
    found = rules.queue_exists(stack, PackSettings.read({}, {"clusterSnapshot": snapshot}))
    assert [f.message for f in found] == [
        "PodGroup default/ray-demo-job-pg: queue ray-batch does not exist and this stack does "
        "not create it (existing: default)"
    ]


def test_group_provided_by_the_snapshot() -> None:
    def change(p: dict[str, Any]) -> None:
        for t in (p["spec"]["headGroupSpec"], *p["spec"]["workerGroupSpecs"]):
            t["template"]["metadata"]["annotations"]["scheduling.k8s.io/group-name"] = (
                "ray-sweep-pg"
            )
        p["metadata"]["namespace"] = "ml"

    stack = [find(_edit(shipped_stack("dev"), "RayCluster", change), "RayCluster")]
    snapshot = str(REPO / "tests/fixtures/preflight/overcommit.yaml")
    assert (
        rules.pod_group_annotations(stack, PackSettings.read({}, {"clusterSnapshot": snapshot}))
        == []
    )
    assert "no cluster snapshot shows it" in _messages(
        rules.pod_group_annotations(stack, PackSettings.read({}))
    )


def test_rayjob_grouped_by_kuberay_is_planned_as_it_is() -> None:
    # A RayJob resource KubeRay's adapter groups itself: raygang plans it directly.
    job = {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {
            "name": "solo",
            "namespace": "default",
            "labels": {"ray.io/scheduler-name": "volcano", "volcano.sh/queue-name": "nowhere"},
        },
        "spec": {
            "entrypoint": "python -c pass",
            "rayClusterSpec": copy.deepcopy(
                dict(find(shipped_stack("dev"), "RayCluster").props["spec"])
            ),
        },
    }
    worker = job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["template"]["spec"]
    worker["containers"][0]["resources"] = {"requests": {"cpu": "12"}, "limits": {"cpu": "12"}}
    found = _run([resource(job)])
    assert "RayJob default/solo: metadata.labels: queue nowhere is neither declared" in _messages(
        found["gang-queue-exists"]
    )
    found = _run([resource(job)], PackSettings.read(DEV, {"knownQueues": ["nowhere"]}))
    assert found["gang-queue-exists"] == []
    assert "RayJob default/solo can never be admitted as declared" in _messages(
        found["gang-admissible"]
    )
    job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["minReplicas"] = 5
    found = _run([resource(job)])
    assert "RayJob default/solo: spec.rayClusterSpec.workerGroupSpecs[0]" in _messages(
        found["gang-valid-input"]
    )


def test_volcanos_default_queue_exists() -> None:
    stack = _edit(
        [r for r in shipped_stack("dev") if r.kind != "Queue"],
        "PodGroup",
        lambda p: p["spec"].update(queue="default"),
    )
    assert rules.queue_exists(stack, PackSettings.read(DEV)) == []


# --- gang-admissible -----------------------------------------------------------------------------


def test_never_admissible_in_volcanos_words() -> None:
    def change(p: dict[str, Any]) -> None:
        worker = p["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
        worker["resources"] = {"requests": {"cpu": "12"}, "limits": {"cpu": "12"}}

    stack = _edit(shipped_stack("dev"), "RayCluster", change)
    found = rules.admissible(stack, PackSettings.read(DEV))
    assert len(found) == 1
    assert found[0].message.startswith(
        "PodGroup default/ray-demo-job-pg can never be admitted as declared:"
    )
    assert "Insufficient cpu" in found[0].message or "insufficient cpu" in found[0].message.lower()
    # Without node shapes or a snapshot nothing says the nodes are too small: no finding.
    assert rules.admissible(stack, PackSettings.read({})) == []
    # Node shapes given as the policy's own config serve as well as the stack's.
    shapes = [{"name": "big", "allocatable": {"cpu": "8", "memory": "32Gi"}}]
    assert rules.admissible(stack, PackSettings.read({}, {"nodeShapes": shapes}))


# --- security ------------------------------------------------------------------------------------


def test_named_service_account_token_not_needed() -> None:
    def change(p: dict[str, Any]) -> None:
        p["spec"]["workerGroupSpecs"][0]["template"]["spec"]["serviceAccountName"] = "ray-runner"
        p["spec"]["headGroupSpec"]["template"]["spec"]["serviceAccountName"] = "ray-runner"

    cluster = find(_edit(shipped_stack("dev"), "RayCluster", change), "RayCluster")
    found = rules.unneeded_token(cluster)
    assert [f.message.split(":")[1].strip() for f in found] == [
        "spec.headGroupSpec.template.spec",
        "spec.workerGroupSpecs[0].template.spec",
    ]
    assert "mounts the token of ServiceAccount ray-runner" in found[0].message
    # The autoscaler on the head uses its token; the workers still do not.
    props = copy.deepcopy(dict(cluster.props))
    props["spec"]["enableInTreeAutoscaling"] = True
    auto = StackResource(cluster.type, cluster.urn, cluster.name, props)
    assert [f.message.split(":")[1].strip() for f in rules.unneeded_token(auto)] == [
        "spec.workerGroupSpecs[0].template.spec"
    ]
    props["spec"]["workerGroupSpecs"][0]["template"]["spec"]["automountServiceAccountToken"] = False
    assert rules.unneeded_token(StackResource(cluster.type, cluster.urn, cluster.name, props)) == []


def test_cluster_admin_binding() -> None:
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "ray-admin"},
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "ClusterRole",
            "name": "cluster-admin",
        },
        "subjects": [{"kind": "ServiceAccount", "name": "ray-runner", "namespace": "default"}],
    }
    found = rules.no_cluster_admin(resource(binding))
    assert [f.message for f in found] == [
        "ClusterRoleBinding ray-admin: roleRef: binds ClusterRole cluster-admin to ServiceAccount "
        "ray-runner; grant a Role with the verbs the workload uses instead"
    ]
    binding["roleRef"]["name"] = "view"
    assert rules.no_cluster_admin(resource(binding)) == []
    binding["roleRef"]["name"] = UNKNOWN
    assert [f.judged for f in rules.no_cluster_admin(resource(binding))] == [False]


# --- raygang-job-records -------------------------------------------------------------------------


def test_owner_reference_missing() -> None:
    stack = _edit(
        shipped_stack("dev"), "RayCluster", lambda p: p["metadata"].pop("ownerReferences")
    )
    found = rules.raygang_records(stack, PackSettings.read(DEV))
    assert [f.message for f in found] == [
        "RayCluster default/demo-job: metadata.ownerReferences: has no reference to its job record "
        "ConfigMap demo-job: deleting the job would leave it behind"
    ]


def test_two_records_for_one_job() -> None:
    stack = shipped_stack("dev")
    record = find(stack, "ConfigMap")
    twin = StackResource(
        record.type,
        record.urn.replace("default/demo-job", "again/demo-job"),
        "again/demo-job-record",
        record.props,
    )
    found = rules.raygang_records([*stack, twin], PackSettings.read(DEV))
    assert any("2 RayJobGangs write the job record default/demo-job" in f.message for f in found)


def test_owner_reference_unknown_cannot_judge() -> None:
    stack = _edit(
        shipped_stack("dev"), "Job", lambda p: p["metadata"].update(ownerReferences=UNKNOWN)
    )
    assert [f.judged for f in rules.raygang_records(stack, PackSettings.read(DEV))] == [False]


# --- settings ------------------------------------------------------------------------------------


def test_enforcement_per_stack() -> None:
    names = [p.name for p in POLICIES]
    levels, problems = enforcement_overrides(
        {
            "raygang-policy:enforcement": (
                '{"all": "advisory", "gang-admissible": "mandatory", "nope": "x"}'
            )
        },
        names,
    )
    assert levels["gang-admissible"] == "mandatory"
    assert levels["gang-queue-exists"] == "advisory"
    assert problems == ["raygang-policy:enforcement: 'nope' is not a policy of this pack"]
    assert enforcement_overrides({}, names) == ({}, [])


def test_default_levels() -> None:
    levels = {p.name: p.level for p in POLICIES}
    assert levels["gang-admissible"] == "mandatory"
    assert levels["security-no-unneeded-token"] == "advisory"
    assert levels["security-no-cluster-admin"] == "advisory"


MALFORMED = {
    "cluster spec a string": ("RayCluster", lambda p: p.update(spec="big")),
    "cluster metadata a list": ("RayCluster", lambda p: p.update(metadata=["x"])),
    "worker groups of strings": (
        "RayCluster",
        lambda p: p["spec"].update(workerGroupSpecs=["compute"]),
    ),
    "head template a number": (
        "RayCluster",
        lambda p: p["spec"]["headGroupSpec"].update(template=3),
    ),
    "annotations a list": (
        "RayCluster",
        lambda p: p["spec"]["headGroupSpec"]["template"]["metadata"].update(annotations=["a"]),
    ),
    "replicas a string": (
        "RayCluster",
        lambda p: p["spec"]["workerGroupSpecs"][0].update(replicas="two"),
    ),
    "podgroup spec a list": ("PodGroup", lambda p: p.update(spec=[1])),
    "minResources a list": ("PodGroup", lambda p: p["spec"].update(minResources=["cpu"])),
    "job template a string": ("Job", lambda p: p["spec"].update(template="pod")),
    "owner references a dict": ("Job", lambda p: p["metadata"].update(ownerReferences={})),
    "queue weight negative": ("Queue", lambda p: p["spec"].update(weight=-1)),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_input_never_crashes_a_rule(case: str) -> None:
    kind, change = MALFORMED[case]
    found = _run(_edit(shipped_stack("dev"), kind, change))
    # Something names the damage, and every message is text (no rule raised).
    assert any(found.values()), case
    if case == "podgroup spec a list":
        assert [f.message for f in found["gang-podgroup-matches-kuberay"]] == [
            "PodGroup default/ray-demo-job-pg: spec: is [1], not a map with minMember and "
            "minResources"
        ]
    assert all(isinstance(f.message, str) and f.message for fs in found.values() for f in fs)
