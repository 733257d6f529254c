"""KubeRay's own sample RayJobs through a program of one's own, as the README shows it.

raygang is installed with ``pip install`` (a wheel, not editable) into a virtualenv of its
own; a Pulumi program written as the README's "Using the components in your own program"
section writes it creates every sample with its companions, and every PodGroup read back
from the API server must equal what ``raygang plan`` of the same files declares. The samples
are upstream's (``../shared/samples/kuberay``; skipped with the reason where that folder is
absent, as in a user's fresh clone). Each file goes to a namespace of its own (several
samples share a name), declared as a Namespace in the file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang_localcluster import LocalCluster, NodeShape, local_pulumi

from tests.e2e.conftest import REPO

pytestmark = pytest.mark.e2e

SAMPLES = REPO.parent / "shared" / "samples" / "kuberay"
# raygang refuses this one by design: a RayJob on an existing RayCluster has no cluster spec
# to size a gang from (README, "What raygang refuses").
REFUSED = {"ray-job.use-existing-raycluster.yaml"}

# Room for every sample on kwok's fake nodes, with the labels their node selectors name.
BIG = {"cpu": "2000", "memory": "16Ti", "pods": 200}
TPU = "cloud.google.com/gke-tpu-accelerator"
TOPOLOGY = "cloud.google.com/gke-tpu-topology"
NODES = (
    NodeShape("samples-general", **BIG),
    NodeShape(
        "samples-t4",
        **BIG,
        extra={"nvidia.com/gpu": "64"},
        labels={"cloud.google.com/gke-accelerator": "nvidia-tesla-t4"},
    ),
    *(
        NodeShape(
            f"samples-{accelerator}-{topology}",
            **BIG,
            extra={"google.com/tpu": "512"},
            labels={TPU: accelerator, TOPOLOGY: topology},
        )
        for accelerator, topology in (
            ("tpu-v4-podslice", "2x2x1"),
            ("tpu-v6e-slice", "2x2"),
            ("tpu-v6e-slice", "4x4"),
            ("tpu-v6e-slice", "16x16"),
        )
    ),
)

# The README's program, word for word but for the folder it reads and the ready timeout.
PROGRAM = textwrap.dedent(
    """
    from pathlib import Path

    import pulumi
    from raygang import (JobSettings, RayJobGang, RayJobGangArgs, VolcanoQueue,
                         create_companions, load_files)

    docs = load_files(sorted(Path("jobs").glob("*.yaml")))
    queues = {q.name: VolcanoQueue(q.name, q) for q in docs.queues}
    companions = create_companions(docs.companions)
    for item in docs.jobs:
        label = item.raw["metadata"].get("labels", {}).get("volcano.sh/queue-name")
        job = RayJobGang(
            f"{item.namespace}/{item.name}",
            RayJobGangArgs(manifest=item.raw, queue=queues.get(label or ""), source=item.source,
                           companions=[companions[c.key] for c in docs.companions_of(item)],
                           settings=JobSettings(cluster_ready_timeout_seconds=300)),
        )
        pulumi.export(item.source, job.gang_summary)
    """
)


def _samples() -> list[Path]:
    if not SAMPLES.is_dir():
        pytest.skip(f"{SAMPLES} is absent (the samples are test data shipped beside the repo)")
    return sorted(p for p in SAMPLES.glob("ray-job.*.yaml") if p.name not in REFUSED)


def _service_accounts(job: dict[str, Any]) -> set[str]:
    cluster = job.get("spec", {}).get("rayClusterSpec", {})
    groups = [cluster.get("headGroupSpec", {}), *cluster.get("workerGroupSpecs", [])]
    names = {g.get("template", {}).get("spec", {}).get("serviceAccountName") for g in groups}
    return {n for n in names if n}


def _in_namespace(docs: list[Any], namespace: str) -> list[Any]:
    out: list[Any] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}]
    declared = {d["metadata"]["name"] for d in docs if d and d.get("kind") == "ServiceAccount"}
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") not in ("Queue",):
            doc.setdefault("metadata", {})["namespace"] = namespace
        out.append(doc)
        if isinstance(doc, dict) and doc.get("kind") == "RayJob":
            # A sample that names a ServiceAccount its file lacks (pytorch-image-classifier)
            # gets it in the file, as the README's Troubleshooting says to do: the API
            # server refuses every pod of an unknown ServiceAccount.
            for name in sorted(_service_accounts(doc) - declared):
                out.append({"apiVersion": "v1", "kind": "ServiceAccount",
                            "metadata": {"name": name, "namespace": namespace}})  # fmt: skip
    return out


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """raygang as a user installs it: a wheel built from the checkout, in a virtualenv of its
    own. Its dependencies (the same pins) are the test environment's, reached through a path
    file: resolving them from the index again took 9 minutes here, for nothing under test."""
    where = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    pip = [str(where / "bin" / "python"), "-m", "pip", "install", "--quiet",
           "--disable-pip-version-check", "--no-deps"]  # fmt: skip
    subprocess.run([*pip, str(REPO)], check=True, timeout=900)
    ask = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = subprocess.run(
        [str(where / "bin" / "python"), "-c", ask], capture_output=True, text=True, check=True
    ).stdout.strip()
    # A plain path line: the directory joins sys.path after the venv's own site-packages, and
    # its own .pth files (the checkout's editable install) are not processed.
    (Path(site) / "raygang_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return where


def _clean_env() -> dict[str, str]:
    # Nothing of the test's own interpreter may leak into the user's: no PYTHONPATH.
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def test_every_sample_podgroup_on_the_api_server_is_what_raygang_plan_declares(
    tools: tuple[Path, Path],
    cluster: LocalCluster,
    venv: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    samples = _samples()
    workdir = tmp_path_factory.mktemp("samples")
    project = workdir / "project"
    (project / "jobs").mkdir(parents=True)
    (project / "Pulumi.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "own-program",
                "runtime": {"name": "python", "options": {"virtualenv": str(venv)}},
            }
        )
    )
    (project / "__main__.py").write_text(PROGRAM)
    for index, sample in enumerate(samples):
        docs = list(yaml.safe_load_all(sample.read_text()))
        (project / "jobs" / sample.name).write_text(
            yaml.safe_dump_all(_in_namespace(docs, f"sample-{index:02d}"), sort_keys=False)
        )
    # The package installed, not this checkout: the module comes from the virtualenv.
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import raygang; print(raygang.__file__)"],
        capture_output=True, text=True, check=True, env=_clean_env(), cwd=workdir,
    ).stdout  # fmt: skip
    assert str(venv) in where and str(REPO) not in where, where

    planned = subprocess.run(
        [str(venv / "bin" / "raygang"), "plan", "--format", "yaml", "--preflight", "off",
         *sorted(str(p) for p in (project / "jobs").glob("*.yaml"))],
        capture_output=True, text=True, env=_clean_env(), cwd=project, check=False,
    )  # fmt: skip
    assert planned.returncode == 0, planned.stderr
    declared = {
        (d["metadata"]["namespace"], d["metadata"]["name"]): d["spec"]
        for d in yaml.safe_load_all(planned.stdout)
        if d and d.get("kind") == "PodGroup"
    }
    assert len(declared) == len(samples), sorted(declared)

    cluster.add_nodes(NODES)
    bin_dir, _ = tools
    pulumi = local_pulumi(bin_dir, cluster.kubeconfig, project, workdir, ("samples",))
    pulumi.env = {k: v for k, v in pulumi.env.items() if k != "PYTHONPATH"}
    try:
        pulumi.run("up", "--yes", "--skip-preview", "--stack", "samples")
        live = {
            (g["metadata"]["namespace"], g["metadata"]["name"]): g["spec"]
            for g in cluster.get("podgroups.scheduling.volcano.sh", "-A")["items"]
            if g["metadata"]["namespace"].startswith("sample-")
        }
        assert sorted(live) == sorted(declared)
        for key, spec in declared.items():
            got = live[key]
            # Volcano's webhook drops a zero minMember and fills in the default queue.
            for field, default in (("minMember", 0), ("queue", "default")):
                assert got.get(field, default) == (spec.get(field) or default), (key, field)
            assert (got.get("minResources") or {}) == (spec.get("minResources") or {}), key
            assert got.get("priorityClassName") == spec.get("priorityClassName"), key
        done = pulumi.run("preview", "--expect-no-changes", "--stack", "samples", check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    finally:
        pulumi.run("destroy", "--yes", "--skip-preview", "--stack", "samples", check=False)
        for node in NODES:
            cluster.kubectl("delete", "node", node.name, "--wait=false", check=False)
    left = cluster.get("podgroups.scheduling.volcano.sh", "-A")["items"]
    assert not [g for g in left if g["metadata"]["namespace"].startswith("sample-")]
    # Printed for the closing note: what came out, sample by sample.
    print(json.dumps({f"{k[0]}/{k[1]}": v.get("minMember", 0) for k, v in live.items()}))
