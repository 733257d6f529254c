"""``raygang:liveFacts`` reads, on the real API server: what is listed, what is left out, and
what a user is told when the kubeconfig, the network or RBAC says no.

The objects are plain ones in a namespace of their own (a suspended Job, pods no scheduler
takes), so nothing here waits for a controller.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang_localcluster import LocalCluster, LocalPulumi, local_pulumi

from tests.e2e.conftest import make_pulumi
from tests.e2e.test_package_yaml import yaml_project

NS = "live-facts"
REFUSAL = "The RayCluster spec is invalid live-facts/held: worker group g can be suspended only"


def _meta(name: str, **labels: str) -> dict[str, Any]:
    return {"name": name, "namespace": NS, **({"labels": labels} if labels else {})}


def _event(name: str, reason: str, kind: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": _meta(name),
        "involvedObject": {"kind": kind, "name": "held", "namespace": NS},
        "reason": reason,
        "type": "Warning",
        "message": REFUSAL,
    }


def _pod(name: str, **labels: str) -> dict[str, Any]:
    # No node has this scheduler: the pod stays Pending and nothing else touches it.
    spec = {"schedulerName": "nobody", "containers": [{"name": "c", "image": "ray"}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": _meta(name, **labels), "spec": spec}


def _object(api_version: str, kind: str, name: str, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": _meta(name), **fields}


@pytest.fixture(scope="module")
def objects(cluster: LocalCluster) -> LocalCluster:
    cluster.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}])
    record = _object("v1", "ConfigMap", "record", data={"a": "1"})
    record["metadata"]["labels"] = {"app.kubernetes.io/managed-by": "raygang"}
    container = {"name": "c", "image": "ray"}
    template = {"spec": {"restartPolicy": "Never", "containers": [container]}}
    cluster.apply(
        [
            record,
            _object("v1", "ConfigMap", "someone-elses"),
            _object("batch/v1", "Job", "held", spec={"suspend": True, "template": template}),
            _object(
                "scheduling.volcano.sh/v1beta1", "PodGroup", "ray-held-pg", spec={"minMember": 1}
            ),
            _pod("held-head", **{"ray.io/cluster": "held"}),
            _pod("not-ray"),
            _event("held.refused", "InvalidRayClusterSpec", "RayCluster"),
            _event("held.created", "Created", "RayCluster"),
            _event("held.job-refused", "InvalidRayClusterSpec", "RayJob"),
        ]
    )
    return cluster


# Each read runs in a process of its own, as the Pulumi program does: the kubernetes client
# reads $KUBECONFIG once, when it is imported, so one process cannot try several.
_DRIVER = """
import json, sys
from raygang import live_cluster_scoped, live_podgroup_fields, live_snapshot
from raygang.lifecycle.facts import live
from raygang.lifecycle.facts.live import LIVE_KINDS, LiveKind
try:
    found = eval(sys.argv[1])
except RuntimeError as exc:
    print(json.dumps({"error": str(exc)}))
    sys.exit(0)
if hasattr(found, "objects"):
    found = {"source": found.source, "objects": [[*k, v] for k, v in sorted(found.objects.items())]}
elif found is not None:
    found = sorted(list(item) if isinstance(item, tuple) else item for item in found)
print(json.dumps({"found": found}))
"""


def _read(call: str, kubeconfig: Path, **env: str) -> Any:
    """``call`` in a new process with ``kubeconfig``: what it returns, or its RuntimeError."""
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER, call],
        env={**os.environ, "KUBECONFIG": str(kubeconfig), **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=180,
    )
    return json.loads(done.stdout)


def _objects(found: Any) -> dict[tuple[str, str, str], Any]:
    return {(kind, ns, name): obj for kind, ns, name, obj in found["found"]["objects"]}


def test_the_snapshot_holds_what_the_facts_need_and_nothing_else(objects: LocalCluster) -> None:
    found = _read(f"live_snapshot([{NS!r}, {NS!r}], context='raygang-local')", objects.kubeconfig)
    assert found["found"]["source"] == "live"
    read = _objects(found)
    # Records by label, KubeRay's pods by label, the operator's refusals of a RayCluster by
    # reason and kind: the namespace's other ConfigMaps (kube-root-ca.crt too), pods and
    # events are not read.
    assert sorted(read) == [
        ("ConfigMap", NS, "record"),
        ("Event", NS, "held.refused"),
        ("Job", NS, "held"),
        ("Pod", NS, "held-head"),
        ("PodGroup", NS, "ray-held-pg"),
    ]
    # Each object as the API server holds it (kubectl hides managedFields), with the kind
    # and apiVersion a list item lacks.
    record = read[("ConfigMap", NS, "record")]
    del record["metadata"]["managedFields"]
    assert record == objects.get("configmap", "record", "-n", NS)
    assert read[("Job", NS, "held")]["apiVersion"] == "batch/v1"


def test_a_kind_the_server_does_not_serve_is_skipped(objects: LocalCluster) -> None:
    # A CRD that is not installed (KubeRay or Volcano absent): nothing of that kind exists.
    widgets = "LiveKind('example.com/v1', 'Widget', 'widgets')"
    call = f"live_snapshot([{NS!r}], kinds=({widgets}, *LIVE_KINDS))"
    read = _objects(_read(call, objects.kubeconfig))
    assert ("ConfigMap", NS, "record") in read
    assert not [key for key in read if key[0] == "Widget"]


def test_discovery_names_the_cluster_scoped_kinds_without_their_subresources(
    cluster: LocalCluster,
) -> None:
    scoped = {tuple(pair) for pair in _read("live_cluster_scoped()", cluster.kubeconfig)["found"]}
    assert {("", "Node"), ("", "Namespace"), ("scheduling.volcano.sh", "Queue")} <= scoped
    assert ("", "Pod") not in scoped and ("ray.io", "RayCluster") not in scoped
    # `nodes/proxy` is cluster-scoped and of kind NodeProxyOptions: a subresource, not a kind.
    assert ("", "NodeProxyOptions") not in scoped


def test_aggregated_discovery_agrees_with_asking_every_group_version(
    cluster: LocalCluster,
) -> None:
    # Two requests (apidiscovery.k8s.io/v2) against one per group version: the same kinds.
    api = "live.LiveCluster.connect()"
    aggregated = _read(f"live._scoped_aggregated({api})", cluster.kubeconfig)["found"]
    every_version = _read(f"live._scoped_by_group_version({api})", cluster.kubeconfig)["found"]
    assert aggregated is not None and len(aggregated) > 10
    assert aggregated == every_version


def test_the_podgroup_crd_s_fields_are_read_from_the_server(cluster: LocalCluster) -> None:
    fields = _read("live_podgroup_fields()", cluster.kubeconfig)["found"]
    assert {"minMember", "queue", "subGroupPolicy"} <= set(fields)


def test_nothing_is_left_in_the_temporary_directory(objects: LocalCluster, tmp_path: Path) -> None:
    # The kubernetes client's DynamicClient caches its discovery in
    # $TMPDIR/osrcp-<hash>.json; raygang's reads leave nothing behind.
    temp = tmp_path / "tmp"
    temp.mkdir()
    call = f"(live_cluster_scoped(), live_podgroup_fields(), live_snapshot([{NS!r}]))[0]"
    assert "found" in _read(call, objects.kubeconfig, TMPDIR=str(temp))
    assert sorted(p.name for p in temp.iterdir()) == []


def test_an_unknown_context_is_named(cluster: LocalCluster) -> None:
    error = _read(f"live_snapshot([{NS!r}], context='nope')", cluster.kubeconfig)["error"]
    # The client's own words after ours name the context too.
    ours, _, clients = error.partition(": ")
    assert ours == "cannot load the kubeconfig (context nope)" and "nope" in clients


def test_no_kubeconfig_is_a_clear_error(tmp_path: Path) -> None:
    error = _read("live_cluster_scoped()", tmp_path / "absent", HOME=str(tmp_path))["error"]
    assert error == "cannot load the kubeconfig: Invalid kube-config file. No configuration found."


def _user_kubeconfig(cluster: LocalCluster, path: Path, server: str, token: str) -> Path:
    admin = json.loads(cluster.kubeconfig.read_text())
    ca = admin["clusters"][0]["cluster"]["certificate-authority"]
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server, "certificate-authority": ca}}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "c",
    }
    path.write_text(json.dumps(config))
    return path


def test_an_unreachable_server_is_named_with_the_request(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = f"https://127.0.0.1:{port}"
    config = _user_kubeconfig(cluster, tmp_path / "kubeconfig", server, "t")
    error = _read(f"live_snapshot([{NS!r}])", config)["error"]
    assert error.startswith(f"GET {server}/apis/batch/v1/namespaces/{NS}/jobs: ")
    assert "Connection refused" in error


def test_what_rbac_refuses_is_said_in_the_server_s_words(
    objects: LocalCluster, tmp_path: Path
) -> None:
    objects.kubectl("create", "serviceaccount", "reader", "-n", NS, check=False)
    token = objects.kubectl("create", "token", "reader", "-n", NS).stdout.strip()
    admin = json.loads(objects.kubeconfig.read_text())
    server = admin["clusters"][0]["cluster"]["server"]
    config = _user_kubeconfig(objects, tmp_path / "kubeconfig", server, token)
    # Discovery is open to every authenticated user; the CRD is not: read as unknown.
    assert ["", "Node"] in _read("live_cluster_scoped()", config)["found"]
    assert _read("live_podgroup_fields()", config) == {"found": None}
    assert _read(f"live_snapshot([{NS!r}])", config)["error"] == (
        f"GET {server}/apis/batch/v1/namespaces/{NS}/jobs: 403 Forbidden: jobs.batch is "
        f'forbidden: User "system:serviceaccount:{NS}:reader" cannot list resource "jobs" '
        f'in API group "batch" in the namespace "{NS}"'
    )


# --- the stack program reads the cluster its kubernetes provider deploys to ---------------


def _two_contexts(cluster: LocalCluster, path: Path) -> Path:
    """The admin kubeconfig with a second context, ``elsewhere`` (a port nothing listens
    on), made the current one: only ``raygang-local`` reaches the cluster."""
    config = json.loads(cluster.kubeconfig.read_text())
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = {"server": f"https://127.0.0.1:{port}"}
    config["clusters"].append({"name": "elsewhere", "cluster": server})
    admin = {"cluster": "elsewhere", "user": "raygang-admin"}
    config["contexts"].append({"name": "elsewhere", "context": admin})
    config["current-context"] = "elsewhere"
    path.write_text(json.dumps(config))
    return path


@pytest.fixture
def stack(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path: Path
) -> tuple[LocalPulumi, Path]:
    pulumi = make_pulumi(tools, cluster, tmp_path)
    pulumi.config_set("raygang:liveFacts", True, "dev")
    elsewhere = _two_contexts(cluster, tmp_path / "kubeconfig")
    pulumi.env["KUBECONFIG"] = str(elsewhere)
    return pulumi, elsewhere


def test_live_facts_follow_the_provider_s_context(stack: tuple[LocalPulumi, Path]) -> None:
    pulumi, _ = stack
    # The current context reaches nothing: facts read from it would fail the preview.
    done = pulumi.run("preview", "--stack", "dev", check=False)
    assert done.returncode != 0
    assert "raygang: cannot read the cluster's state: GET https://127.0.0.1:" in done.stdout
    pulumi.config_set("kubernetes:context", "raygang-local", "dev")
    pulumi.run("preview", "--stack", "dev")


def test_live_facts_follow_the_provider_s_kubeconfig_contents(
    stack: tuple[LocalPulumi, Path], cluster: LocalCluster
) -> None:
    pulumi, _ = stack
    contents = cluster.kubeconfig.read_text()
    pulumi.run("config", "set", "--secret", "--stack", "dev", "kubernetes:kubeconfig", contents)
    done = pulumi.run("preview", "--stack", "dev")
    # The secret is used, never printed.
    assert "raygang-admin" not in done.stdout + done.stderr


def test_a_cluster_override_is_refused_with_live_facts(stack: tuple[LocalPulumi, Path]) -> None:
    pulumi, _ = stack
    pulumi.config_set("kubernetes:context", "raygang-local", "dev")
    pulumi.config_set("kubernetes:cluster", "raygang-local", "dev")
    done = pulumi.run("preview", "--stack", "dev", check=False)
    assert done.returncode != 0
    assert (
        "the kubernetes provider's config: kubernetes:cluster: live facts are read from the "
        "cluster of kubernetes:context, and cannot follow a kubernetes:cluster override"
        in done.stdout
    )


def test_the_package_s_live_facts_follow_the_provider_s_context(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path: Path
) -> None:
    # The same rule through the component provider: the YAML example's job, liveFacts on.
    bin_dir, _ = tools
    project = yaml_project(tmp_path, bin_dir)
    doc = yaml.safe_load((project / "Pulumi.yaml").read_text())
    doc["resources"]["demoJob"]["properties"]["liveFacts"] = True
    (project / "Pulumi.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    pulumi = local_pulumi(bin_dir, cluster.kubeconfig, project, tmp_path, ["dev"])
    pulumi.env["KUBECONFIG"] = str(_two_contexts(cluster, tmp_path / "kubeconfig"))
    done = pulumi.run("preview", "--stack", "dev", check=False)
    assert done.returncode != 0
    assert "raygang: cannot read the cluster's state: GET https://127.0.0.1:" in done.stdout
    pulumi.config_set("kubernetes:context", "raygang-local", "dev")
    pulumi.run("preview", "--stack", "dev")


def _exec_kubeconfig(cluster: LocalCluster, workdir: Path) -> tuple[Path, Path]:
    """A kubeconfig whose user is a credential plugin, as on EKS (``aws eks get-token``) or
    GKE: each run appends its parent's command line to a log. The plugin hands out a token
    of a cluster-admin ServiceAccount, so the provider deploys with it too."""
    cluster.kubectl("create", "serviceaccount", "plugin-admin", "-n", "kube-system", check=False)
    cluster.kubectl(
        "create", "clusterrolebinding", "plugin-admin", "--clusterrole=cluster-admin",
        "--serviceaccount=kube-system:plugin-admin", check=False,
    )  # fmt: skip
    token = cluster.kubectl("create", "token", "plugin-admin", "-n", "kube-system").stdout
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "kind": "ExecCredential",
        "status": {"token": token.strip()},
    }
    log = workdir / "plugin-runs.log"
    plugin = workdir / "get-token"
    plugin.write_text(
        "#!/bin/sh\n"
        f"tr '\\0' ' ' < /proc/$PPID/cmdline >> {log}\n"
        f"echo >> {log}\n"
        f"echo '{json.dumps(credential)}'\n"
    )
    plugin.chmod(0o755)
    config = json.loads(cluster.kubeconfig.read_text())
    user = {"exec": {"apiVersion": credential["apiVersion"], "command": str(plugin)}}
    config["users"] = [{"name": "plugin", "user": user}]
    for context in config["contexts"]:
        context["context"]["user"] = "plugin"
    path = workdir / "plugin-kubeconfig"
    path.write_text(json.dumps(config))
    return path, log


def test_a_program_run_loads_the_kubeconfig_once(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path: Path
) -> None:
    # Discovery, the snapshot and the PodGroup CRD are read through one connection: the
    # credential plugin runs once in the program, not once per read (three before).
    pulumi = make_pulumi(tools, cluster, tmp_path)
    pulumi.config_set("raygang:liveFacts", True, "dev")
    kubeconfig, log = _exec_kubeconfig(cluster, tmp_path)
    pulumi.env["KUBECONFIG"] = str(kubeconfig)
    pulumi.run("preview", "--stack", "dev")
    runs = log.read_text().splitlines()
    # Each run's parent: the program (Python) or the provider, for its own client.
    by_provider = [run for run in runs if "pulumi-resource-kubernetes" in run]
    by_program = [run for run in runs if run not in by_provider]
    assert by_provider, runs  # the provider deployed with the plugin's token: the log is real
    assert len(by_program) == 1 and "pulumi-language-python-exec" in by_program[0], runs
