"""Small builders for RayJob manifests in tests (the shapes KubeRay's own tests use), the
fixture files several suites share, and the problems a load reports.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import strategies as st
from raygang.kube.errors import Problem, SpecError
from raygang.loader import load_files

FIXTURES = Path(__file__).resolve().parent / "fixtures"
BAD = sorted((FIXTURES / "bad").glob("*.yaml"))
GOOD = sorted((FIXTURES / "good").glob("*.yaml"))

BASH = shutil.which("bash") or "/bin/bash"

# Text a Go string and a bash word can both hold: no NUL, no lone surrogate.
shell_text = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=40
)

# KubeRay samples raygang refuses, and why (test_cli.py checks the refusal).
REFUSED = {
    "ray-job.use-existing-raycluster.yaml": "clusterSelector: the gang needs a rayClusterSpec",
}
# Samples raygang cannot plan yet, with the reason (strict xfail: fixing one fails CI).
BROKEN: dict[str, str] = {}

_UNSET: Any = object()


def expectations(path: Path) -> list[tuple[str, str]]:
    """The ``# expect: path | message`` lines of a bad fixture."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# expect:"):
            where, _, what = line.removeprefix("# expect:").partition(" | ")
            out.append((where.strip(), what.strip()))
    return out


def container(
    name: str = "c",
    requests: dict[str, Any] | None = None,
    limits: dict[str, Any] | None = None,
    image: str = "rayproject/ray:2.52.0",
    **extra: Any,
) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    out: dict[str, Any] = {"name": name, "image": image, **extra}
    if resources:
        out["resources"] = resources
    return out


def worker(
    group: str = "workers",
    replicas: Any = _UNSET,
    min_replicas: Any = _UNSET,
    max_replicas: Any = _UNSET,
    num_of_hosts: Any = _UNSET,
    containers: list[dict[str, Any]] | None = None,
    suspend: Any = _UNSET,
    **pod: Any,
) -> dict[str, Any]:
    out: dict[str, Any] = {"groupName": group, "rayStartParams": {}}
    for key, value in (
        ("replicas", replicas),
        ("minReplicas", min_replicas),
        ("maxReplicas", max_replicas),
        ("numOfHosts", num_of_hosts),
        ("suspend", suspend),
    ):
        if value is not _UNSET:
            out[key] = value
    out["template"] = {"spec": {"containers": containers or [container("ray-worker")], **pod}}
    return out


def rayjob(
    name: str = "rayjob-sample",
    head: list[dict[str, Any]] | None = None,
    workers: list[dict[str, Any]] | None = None,
    mode: str | None = None,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    autoscaling: bool | None = None,
    submitter_template: dict[str, Any] | None = None,
    namespace: str = "default",
    head_pod: dict[str, Any] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    cluster: dict[str, Any] = {
        "rayVersion": "2.52.0",
        "headGroupSpec": {
            "rayStartParams": {},
            "template": {
                "spec": {
                    "containers": head or [container("ray-head", {"cpu": "1", "memory": "2Gi"})],
                    **(head_pod or {}),
                }
            },
        },
        "workerGroupSpecs": workers or [],
    }
    if autoscaling is not None:
        cluster["enableInTreeAutoscaling"] = autoscaling
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    body: dict[str, Any] = {
        "entrypoint": "python /home/ray/app/main.py",
        **spec,
        "rayClusterSpec": cluster,
    }
    if mode is not None:
        body["submissionMode"] = mode
    if submitter_template is not None:
        body["submitterPodTemplate"] = submitter_template
    return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": meta, "spec": body}


def job_doc(name: str = "demo", **meta: Any) -> dict[str, Any]:
    docs = list(yaml.safe_load_all((FIXTURES / "good" / "interactive.yaml").read_text()))
    (job,) = [d for d in docs if d and d["kind"] == "RayJob"]
    job["metadata"] = {"name": name, **meta} if name else dict(meta)
    return job


def write(path: Path, *docs: Any) -> Path:
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


def stuck_file(tmp_path: Path) -> Path:
    queue = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": "tiny"},
        "spec": {"weight": 1, "capability": {"cpu": "1", "memory": "1Gi"}},
    }
    job = job_doc("big")
    job["metadata"]["labels"] = {"volcano.sh/queue-name": "tiny"}
    return write(tmp_path / "stuck.yaml", queue, job)


def problems_of(*paths: Path) -> tuple[Problem, ...]:
    with pytest.raises(SpecError) as caught:
        load_files(list(paths))
    return caught.value.problems
