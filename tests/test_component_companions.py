"""Companion objects and the queue argument under the SDK's mocks (issue 17 items 1 and 7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from pulumi.runtime import rpc

from tests.builders import container, rayjob, worker
from tests.pulumi_harness import CM_T, RC_T, install, run_program

pytestmark = pytest.mark.pulumi

SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "samples" / "kuberay"
GOOD = Path(__file__).resolve().parent / "fixtures" / "good"
SECRET_T = "kubernetes:core/v1:Secret"
SA_T = "kubernetes:core/v1:ServiceAccount"
ROLE_T = "kubernetes:rbac.authorization.k8s.io/v1:Role"
BINDING_T = "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding"
WIDGET_T = "kubernetes:example.com/v1:Widget"


@pytest.fixture(params=[False, True], ids=["up", "preview"])
def preview(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def small_job(name: str, **kw: Any) -> dict[str, Any]:
    return rayjob(
        name=name,
        workers=[worker("w", 1, 1, 1, 1, [container("w", {"cpu": "1", "memory": "1Gi"})])],
        **kw,
    )


COMPANIONS: list[dict[str, Any]] = [
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "code"}, "data": {"a": "b"}},
    {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "creds"},
        "stringData": {"token": "hunter2"},
    },
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "bind"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
        "subjects": [{"kind": "ServiceAccount", "name": "sa"}],
    },
    {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {"size": 3},
        "extra": {"kept": True},
    },
]


def manifests_config(*paths: Path) -> dict[str, str]:
    return {"raygang:manifests": json.dumps([str(p) for p in paths])}


def test_companions_are_created_once_before_every_cluster_of_their_file(
    tmp_path: Path, preview: bool
) -> None:
    path = tmp_path / "jobs.yaml"
    docs = [small_job("one"), small_job("two"), *COMPANIONS]
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    monitor = install(manifests_config(path), preview)
    run_program(monitor)

    made = {r.name: r for r in monitor.registrations}
    config_map = made["default/ConfigMap/code"]
    secret = made["default/Secret/creds"]
    binding = made["default/RoleBinding.rbac.authorization.k8s.io/bind"]
    widget = made["default/Widget.example.com/w"]
    assert (config_map.type, secret.type, binding.type, widget.type) == (
        CM_T,
        SECRET_T,
        BINDING_T,
        WIDGET_T,
    )
    companions = [config_map, secret, binding, widget]
    # Created once, at the top of the stack (not inside one job's component), unchanged but
    # for the namespace.
    for companion in companions:
        assert monitor.names().count(companion.name) == 1
        assert "RayJobGang" not in companion.parent
        assert companion.inputs["metadata"]["namespace"] == "default"
    assert config_map.inputs["data"] == {"a": "b"}
    assert binding.inputs["roleRef"]["name"] == "r"
    assert binding.inputs["subjects"] == [{"kind": "ServiceAccount", "name": "sa"}]
    assert widget.inputs["spec"] == {"size": 3} and widget.inputs["extra"] == {"kept": True}
    # Before both RayClusters, which depend on each of them explicitly.
    clusters = monitor.of_type(RC_T)
    assert len(clusters) == 2
    for cluster in clusters:
        for companion in companions:
            assert companion.urn in cluster.dependencies
            assert monitor.registrations.index(companion) < monitor.registrations.index(cluster)


def test_a_secret_companion_is_sent_as_a_secret(tmp_path: Path) -> None:
    path = tmp_path / "jobs.yaml"
    path.write_text(yaml.safe_dump_all([small_job("one"), COMPANIONS[1]], sort_keys=False))
    monitor = install(manifests_config(path), preview=False)
    seen: list[Any] = []
    secret_outputs: list[str] = []
    original = monitor.RegisterResource

    def keep(request: Any) -> Any:
        if request.type == SECRET_T:
            seen.append(request.object)
            secret_outputs.extend(request.additionalSecretOutputs)
        return original(request)

    monitor.RegisterResource = keep  # type: ignore[method-assign]
    run_program(monitor)
    (raw,) = seen
    string_data = raw.fields["stringData"].struct_value
    # The wire form of a secret value: the secret signature beside the value.
    assert string_data.fields[rpc._special_sig_key].string_value == rpc._special_secret_sig
    assert {"data", "stringData"} <= set(secret_outputs)


@pytest.mark.skipif(not SAMPLES.is_dir(), reason=f"{SAMPLES} is absent")
def test_kuberays_rbac_sample_under_the_program(preview: bool) -> None:
    path = SAMPLES / "ray-job.platform-events.yaml"
    monitor = install(manifests_config(path), preview)
    run_program(monitor)
    types = [r.type for r in monitor.registrations]
    assert types.count(SA_T) == 1 and types.count(ROLE_T) == 1 and types.count(BINDING_T) == 1
    (cluster,) = monitor.of_type(RC_T)
    code = monitor.by_name("default/ConfigMap/ray-job-code-sample")
    assert code.urn in cluster.dependencies


# --- RayJobGangArgs(queue=...) ----------------------------------------------------------
def run_gang(manifest: dict[str, Any], queue_name: str | None, declare: bool = True) -> None:
    from raygang import RayJobGang, RayJobGangArgs, VolcanoQueue

    @pulumi.runtime.test
    def program() -> Any:
        queue = (
            VolcanoQueue(queue_name, {"metadata": {"name": queue_name}, "spec": {"weight": 1}})
            if queue_name
            else None
        )
        RayJobGang("etl", RayJobGangArgs(manifest=manifest, queue=queue, source="jobs/etl.yaml"))

    program()


def test_a_queue_other_than_the_label_is_an_error() -> None:
    install({}, preview=True)
    manifest = small_job("etl", labels={"volcano.sh/queue-name": "team-a"})
    with pytest.raises(pulumi.RunError) as info:
        run_gang(manifest, "team-b")
    message = str(info.value)
    assert "jobs/etl.yaml: metadata.labels['volcano.sh/queue-name']: names queue 'team-a'" in (
        message
    )
    assert "RayJobGangArgs.queue is VolcanoQueue 'team-b'" in message


def test_a_queue_for_a_job_without_label_is_an_error() -> None:
    install({}, preview=True)
    with pytest.raises(pulumi.RunError) as info:
        run_gang(small_job("etl"), "team-b")
    assert "is absent (Volcano's default queue)" in str(info.value)


def test_the_matching_queue_is_a_dependency(preview: bool) -> None:
    monitor = install({}, preview)
    run_gang(small_job("etl", labels={"volcano.sh/queue-name": "team-a"}), "team-a")
    (queue,) = monitor.of_type("kubernetes:scheduling.volcano.sh/v1beta1:Queue")
    (record,) = monitor.of_type(CM_T)
    assert queue.urn in record.dependencies


def test_a_plan_with_a_declared_queue_needs_the_queue() -> None:
    from raygang import RayJobGang, RayJobGangArgs
    from raygang.cli import build_plan

    from tests.pulumi_harness import ROOT

    install({}, preview=True)
    job = build_plan([], "dev", None, ROOT).jobs[0]
    assert job.plan.queue_declared

    @pulumi.runtime.test
    def program() -> Any:
        RayJobGang("demo", RayJobGangArgs(job=job))

    with pytest.raises(pulumi.RunError) as info:
        program()
    assert "RayJobGangArgs.queue is not given" in str(info.value)


def test_the_readme_program_reads_multi_document_files(tmp_path: Path, preview: bool) -> None:
    """The README's "own program" snippet: load_files, create_companion, RayJobGang."""
    from raygang import (
        JobSettings,
        RayJobGang,
        RayJobGangArgs,
        VolcanoQueue,
        create_companions,
        load_files,
    )

    labels = {"volcano.sh/queue-name": "team-a"}
    etl = tmp_path / "etl.yaml"
    etl.write_text(yaml.safe_dump_all([small_job("etl", labels=labels), COMPANIONS[0]]))
    train = small_job("", labels=labels)
    train["metadata"] = {"generateName": "train-", "labels": labels}
    (tmp_path / "train.yaml").write_text(yaml.safe_dump_all([train]))
    monitor = install({}, preview)

    @pulumi.runtime.test
    def program() -> Any:
        queue = VolcanoQueue("team-a", {"metadata": {"name": "team-a"}, "spec": {"weight": 1}})
        docs = load_files([etl, tmp_path / "train.yaml"])
        companions = create_companions(docs.companions)
        for item in docs.jobs:
            RayJobGang(
                f"{item.namespace}/{item.name}",
                RayJobGangArgs(
                    manifest=item.raw,
                    queue=queue,
                    source=item.source,
                    companions=[companions[c.key] for c in docs.companions_of(item)],
                    settings=JobSettings(wait_for_completion=True),
                ),
            )

    program()
    gangs = sorted(r.name for r in monitor.of_type("raygang:index:RayJobGang"))
    assert gangs[0] == "default/etl" and gangs[1].startswith("default/train-")
    code = monitor.by_name("default/ConfigMap/code")
    etl_cluster = monitor.by_name("default/etl-raycluster")
    train_cluster = monitor.by_name(f"{gangs[1]}-raycluster")
    assert code.urn in etl_cluster.dependencies
    assert code.urn not in train_cluster.dependencies


def test_the_program_and_the_cli_apply_one_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from raygang.cli import EXIT_NEVER_ADMITTED, main

    from tests.builders import stuck_file

    path = stuck_file(tmp_path)
    assert main(["plan", str(path)]) == EXIT_NEVER_ADMITTED
    cli_error = next(
        line for line in capsys.readouterr().err.splitlines() if "can never be admitted" in line
    )
    monitor = install(manifests_config(path), preview=True)
    with pytest.raises(pulumi.RunError) as info:
        run_program(monitor)
    assert cli_error in str(info.value)
    monitor = install({**manifests_config(path), "raygang:preflight": "warn"}, preview=True)
    run_program(monitor)  # warn: the preview goes on, as `raygang plan --preflight warn` exits 0
    assert main(["plan", str(path), "--preflight", "warn"]) == 0


@pytest.mark.parametrize("stack", ["dev", "ml-platform"])
def test_stack_settings_resolve_the_same_in_the_cli_and_the_program(stack: str) -> None:
    from raygang.settings import read_stack_file, settings_from_getter

    from tests.pulumi_harness import ROOT, stack_config

    config = stack_config(stack)

    def get(key: str) -> object:
        # As __main__ reads pulumi.Config: JSON text for structured values, else the string.
        raw = config.get(f"raygang:{key}")
        if raw is None:
            return None
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw

    program = settings_from_getter(get, f"stack {stack} config")
    assert read_stack_file(ROOT / "stacks" / f"Pulumi.{stack}.yaml") == program


def test_a_namespace_companion_comes_before_everything_in_it(tmp_path: Path) -> None:
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-x"}}
    path = tmp_path / "jobs.yaml"
    docs = [namespace, small_job("one", namespace="team-x"), COMPANIONS[0]]
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    monitor = install(manifests_config(path), preview=False)
    run_program(monitor)
    space = monitor.by_name("cluster/Namespace/team-x")
    assert "namespace" not in space.inputs["metadata"]
    assert space.urn in monitor.by_name("team-x/ConfigMap/code").dependencies
    assert space.urn in monitor.by_name("team-x/one-record").dependencies
    assert space.urn in monitor.by_name("team-x/one-raycluster").dependencies


def raycluster(name: str, namespace: str) -> dict[str, Any]:
    """The good fixture's RayCluster of its own, renamed."""
    doc: dict[str, Any] = yaml.safe_load((GOOD / "raycluster.yaml").read_text())
    doc["metadata"].update(name=name, namespace=namespace)
    return doc


def test_a_rayclusters_companions_are_created_before_it_in_its_namespace(
    tmp_path: Path, preview: bool
) -> None:
    # A file of RayClusters of their own and no RayJob: the companions take the clusters'
    # namespace, and each RayCluster waits for every one of them, as a RayJob's does.
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}
    path = tmp_path / "clusters.yaml"
    docs = [namespace, *COMPANIONS, raycluster("c1", "team-a"), raycluster("c2", "team-a")]
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    monitor = install(manifests_config(path), preview)
    run_program(monitor)

    space = monitor.by_name("cluster/Namespace/team-a")
    companions = [
        space,
        monitor.by_name("team-a/ConfigMap/code"),
        monitor.by_name("team-a/Secret/creds"),
        monitor.by_name("team-a/RoleBinding.rbac.authorization.k8s.io/bind"),
        monitor.by_name("team-a/Widget.example.com/w"),
    ]
    for companion in companions:
        assert monitor.names().count(companion.name) == 1
        assert "RayClusterGang" not in companion.parent
    for name in ("c1", "c2"):
        cluster = monitor.by_name(f"RayCluster/team-a/{name}-raycluster")
        assert cluster.type == RC_T
        for companion in companions:
            assert companion.urn in cluster.dependencies
            assert monitor.registrations.index(companion) < monitor.registrations.index(cluster)
        # The PodGroup is the cluster's first object in the namespace.
        podgroup = monitor.by_name(f"RayCluster/team-a/{name}-podgroup")
        assert space.urn in podgroup.dependencies
        assert not set(c.urn for c in companions[1:]) & set(podgroup.dependencies)


@pytest.mark.parametrize(
    ("manifest", "typ"),
    [
        (
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": "high"},
                "value": 1000,
                "globalDefault": False,
                "preemptionPolicy": "Never",
            },
            "kubernetes:scheduling.k8s.io/v1:PriorityClass",
        ),
        (
            {
                "apiVersion": "v1",
                "kind": "ServiceAccount",
                "metadata": {"name": "sa", "namespace": "default"},
                "automountServiceAccountToken": False,
                "imagePullSecrets": [{"name": "pull"}],
            },
            SA_T,
        ),
        (
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": "data", "namespace": "default"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}},
                },
            },
            "kubernetes:core/v1:PersistentVolumeClaim",
        ),
    ],
    ids=["priorityclass", "serviceaccount", "pvc"],
)
def test_typed_kinds_keep_every_top_level_field(manifest: dict[str, Any], typ: str) -> None:
    from raygang import create_companion
    from raygang.plan import Companion

    monitor = install({}, preview=False)

    @pulumi.runtime.test
    def program() -> Any:
        create_companion(Companion("f.yaml (document 2)", manifest))

    program()
    (made,) = monitor.registrations
    assert made.type == typ
    assert made.inputs == manifest


def test_a_field_the_kind_does_not_have_is_a_clear_error() -> None:
    from raygang import create_companion
    from raygang.plan import Companion

    install({}, preview=True)
    bad = {**COMPANIONS[0], "metadata": {"name": "code", "namespace": "default"}, "dta": {}}

    @pulumi.runtime.test
    def program() -> Any:
        create_companion(Companion("f.yaml (document 2)", bad))

    with pytest.raises(pulumi.RunError) as info:
        program()
    assert "f.yaml (document 2): ConfigMap has no field dta" in str(info.value)
