"""Code packages on the local control plane (issue 28): a job's local working directory,
shipped as ConfigMaps and mounted in the submitter only, versioned by its hash.

The stack's job names ``raygang.dev/working-dir: ./code`` (inline in stack config: relative
to the project directory). After ``up``: the ConfigMaps hold exactly the package's bytes, the
submitter pod (kwok finishes it at once) has the projected volume of them, and the job record
keeps the submission in its history. An unchanged directory gives an empty preview; one
changed file gives a new hash, new ConfigMaps and a new submission, the record's history
keeping both. The steps share one stack and run in file order.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang.codepkg import CodePackage, pack_directory
from raygang_localcluster import LocalCluster, LocalPulumi, copy_project, local_pulumi, wait_until

from tests.e2e.conftest import REPO
from tests.e2e.jobs import small_rayjob

pytestmark = pytest.mark.e2e

STACK = "code"
NS = "default"
JOB = "code-job"
QUEUE = "code-queue"


def _write_stack(pulumi: LocalPulumi) -> None:
    job = small_rayjob(JOB, QUEUE, namespace=NS, entrypoint="python main.py")
    job["metadata"]["annotations"] = {"raygang.dev/working-dir": "./code"}
    config = {
        "raygang:queues": [
            {"name": QUEUE, "spec": {"weight": 1, "capability": {"cpu": "8", "memory": "16Gi"}}}
        ],
        "raygang:clusterReadyTimeoutSeconds": 60,
        "raygang:liveFacts": True,
        "raygang:jobs": [job],
    }
    path = pulumi.project / "stacks" / f"Pulumi.{STACK}.yaml"
    kept = (yaml.safe_load(path.read_text()) if path.exists() else None) or {}
    kept["config"] = config
    path.write_text(yaml.safe_dump(kept, sort_keys=False))


def _write_code(pulumi: LocalPulumi, version: str) -> CodePackage:
    code = pulumi.project / "code"
    (code / "mypkg").mkdir(parents=True, exist_ok=True)
    (code / "mypkg" / "__init__.py").write_text(f'__version__ = "{version}"\n')
    (code / "main.py").write_text("import mypkg\nprint('mypkg version', mypkg.__version__)\n")
    return pack_directory("./code", pulumi.project, "test")


@pytest.fixture(scope="module")
def project(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> LocalPulumi:
    bin_dir, _ = tools
    workdir = tmp_path_factory.mktemp("code")
    # The program's virtualenv is the one these tests run in (raygang is installed there).
    copied = copy_project(REPO, workdir / "project", venv=Path(sys.prefix))
    pulumi = local_pulumi(bin_dir, cluster.kubeconfig, copied, workdir, ())
    _write_stack(pulumi)
    pulumi.run("stack", "init", STACK)
    return pulumi


def _up(pulumi: LocalPulumi) -> None:
    pulumi.run("up", "--yes", "--skip-preview", "--stack", STACK)


def _record(cluster: LocalCluster) -> dict[str, str]:
    annotations: dict[str, str] = cluster.get("configmap", JOB, "-n", NS)["metadata"]["annotations"]
    return annotations


def _history(cluster: LocalCluster) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = json.loads(_record(cluster)["raygang.dev/history"])
    return history


def _pieces(cluster: LocalCluster) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = cluster.get(
        "configmaps", "-n", NS, "-l", f"ray.io/originated-from-cr-name={JOB}"
    )["items"]
    return [cm for cm in items if cm["metadata"]["name"].startswith(f"ray-{JOB}-code-")]


def _quiet(pulumi: LocalPulumi) -> None:
    """`up` until the job's finish is recorded, then a preview must propose nothing."""
    _up(pulumi)
    done = pulumi.run("preview", "--expect-no-changes", "--diff", "--stack", STACK, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_the_package_is_in_configmaps_and_mounted_by_the_submitter(
    project: LocalPulumi, cluster: LocalCluster
) -> None:
    package = _write_code(project, "1.0.0")
    preview = project.run("preview", "--diff", "--stack", STACK)
    assert package.sha256 in preview.stdout  # the hash shows in the diff
    _up(project)
    (piece,) = _pieces(cluster)
    assert piece["metadata"]["name"] == f"ray-{JOB}-code-{package.short_hash}-0"
    assert piece["immutable"] is True
    assert base64.b64decode(piece["binaryData"]["part-000"]) == package.data
    # The submitter pod, and only it, mounts the package.
    pods = cluster.get("pods", "-n", NS, "-l", f"job-name={JOB}")["items"]
    assert pods, "the submitter pod"
    volumes = pods[0]["spec"]["volumes"]
    (projected,) = [v for v in volumes if "projected" in v]
    sources = projected["projected"]["sources"]
    assert [s["configMap"]["name"] for s in sources] == [piece["metadata"]["name"]]
    cluster_spec = json.dumps(cluster.get("rayclusters.ray.io", JOB, "-n", NS)["spec"])
    assert "raygang-code" not in cluster_spec
    job = cluster.get("jobs.batch", JOB, "-n", NS)
    assert job["metadata"]["annotations"]["raygang.dev/code-package"] == package.sha256
    (entry,) = _history(cluster)
    assert entry["codePackage"] == package.sha256
    assert entry["submissionId"] == _record(cluster)["raygang.dev/submission-id"]


def test_b_an_unchanged_directory_changes_nothing(
    project: LocalPulumi, cluster: LocalCluster
) -> None:
    # kwok finished the submitter: this `up` records it, then nothing is left to do.
    wait_until(
        lambda: cluster.get("jobs.batch", JOB, "-n", NS).get("status", {}).get("succeeded"),
        60,
        "the submitter Job complete",
    )
    _quiet(project)
    (entry,) = _history(cluster)
    assert entry["result"] == "succeeded"


def test_c_a_changed_file_is_a_new_package_and_a_new_submission(
    project: LocalPulumi, cluster: LocalCluster
) -> None:
    before = _history(cluster)
    package = _write_code(project, "1.0.1")
    _up(project)
    names = [cm["metadata"]["name"] for cm in _pieces(cluster)]
    assert names == [f"ray-{JOB}-code-{package.short_hash}-0"]
    (piece,) = _pieces(cluster)
    assert base64.b64decode(piece["binaryData"]["part-000"]) == package.data
    history = _history(cluster)
    assert history[0] == before[0]
    assert history[-1]["codePackage"] == package.sha256
    assert history[-1]["submissionId"] != before[0]["submissionId"]
    assert history[-1]["submissionId"] == _record(cluster)["raygang.dev/submission-id"]
    wait_until(
        lambda: cluster.get("jobs.batch", JOB, "-n", NS).get("status", {}).get("succeeded"),
        60,
        "the new submitter Job complete",
    )
    _quiet(project)


def test_d_destroy_leaves_nothing(project: LocalPulumi, cluster: LocalCluster) -> None:
    project.run("destroy", "--yes", "--skip-preview", "--stack", STACK)
    assert _pieces(cluster) == []
    assert cluster.kubectl("get", "configmap", JOB, "-n", NS, check=False).returncode != 0
