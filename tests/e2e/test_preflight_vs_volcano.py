"""A gang its queue cannot hold: the preview refuses it with the preflight's words, and when
applied anyway the real Volcano keeps it where the preflight said, with the same words."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang_localcluster import LocalCluster, LocalPulumi, wait_until

from tests.e2e.conftest import REPO, make_pulumi

pytestmark = pytest.mark.e2e

STACK = "tight"
JOB = "tight-job"
QUEUE = "ray-tight"
PG = f"ray-{JOB}-pg"
NS = "default"


def _tight_stack(project: Path) -> None:
    """The dev stack with its own names and a queue capped at 4 cpu: the gang needs 5500m."""
    dev = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())
    config = dev["config"]
    queue = config["raygang:queues"][0]
    queue["name"] = QUEUE
    queue["spec"]["capability"]["cpu"] = "4"
    job = config["raygang:jobs"][0]
    job["metadata"]["name"] = JOB
    job["metadata"]["labels"]["volcano.sh/queue-name"] = QUEUE
    # Volcano keeps the PodGroup Pending; the RayCluster never gets ready, so do not wait long.
    config["raygang:clusterReadyTimeoutSeconds"] = 20
    (project / "stacks" / f"Pulumi.{STACK}.yaml").write_text(yaml.safe_dump(dev, sort_keys=False))


def _preflight(project: Path) -> dict[str, Any]:
    """What our planner says offline, through the same CLI users run in CI."""
    done = subprocess.run(
        [sys.executable, "-m", "raygang", "plan", "--stack", STACK, "--project-dir",
         str(project), "--format", "json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.stdout, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)["jobs"][0]["preflight"]
    return result


@pytest.fixture(scope="module")
def tight(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> LocalPulumi:
    workdir = tmp_path_factory.mktemp("tight")
    pulumi = make_pulumi(tools, cluster, workdir, ())
    _tight_stack(pulumi.project)
    pulumi.run("stack", "init", STACK)
    return pulumi


def test_h_volcano_holds_the_gang_where_the_preflight_said(
    tight: LocalPulumi, cluster: LocalCluster
) -> None:
    predicted = _preflight(tight.project)
    assert predicted["verdict"] == "stuck" and predicted["neverAdmitted"], predicted
    first = predicted["reasons"][0]
    volcano_words = first.split(" -- ", 1)[0]

    refused = tight.run("preview", "--stack", STACK, check=False)
    assert refused.returncode != 0
    assert volcano_words in refused.stdout + refused.stderr

    tight.config_set("raygang:preflight", "warn", STACK)
    # Applied anyway: everything is created, and the RayCluster never gets ready.
    tight.run("up", "--yes", "--skip-preview", "--stack", STACK, check=False)
    pg = cluster.get("podgroups.scheduling.volcano.sh", PG, "-n", NS)
    assert pg["spec"]["minMember"] == 3

    def volcano_said() -> list[str]:
        events = cluster.get(
            "events", "-n", NS, "--field-selector",
            f"involvedObject.kind=PodGroup,involvedObject.name={PG}",
        )["items"]  # fmt: skip
        return [e["message"] for e in events if e.get("reason") == "Unschedulable"]

    messages = wait_until(volcano_said, 60, "Volcano's verdict on the PodGroup")
    # Never admitted: enqueue refuses, so the PodGroup stays Pending and no pod is bound.
    phase = cluster.get("podgroups.scheduling.volcano.sh", PG, "-n", NS)["status"]["phase"]
    assert phase == "Pending"
    assert volcano_words in messages, (volcano_words, messages)
    pods = cluster.get("pods", "-n", NS, "-l", f"ray.io/cluster={JOB}")["items"]
    assert pods and not [p for p in pods if p["spec"].get("nodeName")]

    tight.run("destroy", "--yes", "--skip-preview", "--stack", STACK)
