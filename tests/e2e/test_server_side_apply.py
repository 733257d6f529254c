"""Every object ``raygang plan --format yaml`` prints passes the real API server's validation
(the CRDs' OpenAPI schemas and CEL rules, built-in types' validation) on a server-side
dry-run apply, for our stacks and every KubeRay sample raygang plans."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from raygang_localcluster import LocalCluster

from tests.e2e.conftest import REPO

pytestmark = pytest.mark.e2e

SAMPLES = REPO.parent / "shared" / "samples" / "kuberay"


def _plan(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "raygang", "plan", "--format", "yaml",
         *args],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def _server_side_dry_run(cluster: LocalCluster, manifests: str) -> None:
    docs = [d for d in yaml.safe_load_all(manifests) if d]
    for ns in sorted({d["metadata"]["namespace"] for d in docs if "namespace" in d["metadata"]}):
        cluster.kubectl("create", "namespace", ns, check=False)
    # Volcano's admission webhook refuses a PodGroup whose queue does not exist, as a real
    # install does: queues are created for real (as `pulumi up` creates them first), the rest
    # is validated without being stored.
    # A PodGroup without a queue goes to `default` (Volcano's mutating webhook), which exists.
    queues = {d["spec"].get("queue", "default") for d in docs if d["kind"] == "PodGroup"}
    queues -= {d["metadata"]["name"] for d in docs if d["kind"] == "Queue"} | {"default"}
    cluster.apply(
        [d for d in docs if d["kind"] == "Queue"]
        + [{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": {"name": q}, "spec": {"weight": 1}} for q in sorted(queues)]
    )  # fmt: skip
    done = cluster.kubectl(
        "apply", "--server-side", "--dry-run=server", "--field-manager=raygang-e2e",
        "-f", "-", input=manifests, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("stack", ["dev", "ml-platform"])
def test_i_stack_manifests_pass_server_side_validation(cluster: LocalCluster, stack: str) -> None:
    done = _plan("--stack", stack)
    assert done.returncode == 0, done.stderr
    _server_side_dry_run(cluster, done.stdout)


def _samples() -> list[Path]:
    return sorted(SAMPLES.glob("ray-job.*.yaml")) if SAMPLES.is_dir() else []


@pytest.mark.skipif(not SAMPLES.is_dir(), reason=f"{SAMPLES} is absent (a user's fresh clone)")
def test_i_every_planned_kuberay_sample_passes_server_side_validation(
    cluster: LocalCluster,
) -> None:
    planned = []
    for sample in _samples():
        done = _plan(str(sample))
        if done.returncode != 0:
            continue  # refused by raygang with its reason; the unit tests cover which and why
        planned.append(sample.name)
        _server_side_dry_run(cluster, done.stdout)
    assert len(planned) >= 10, planned
