"""The submitter's pod evicted after ``ray job submit``: its retry never submits twice.

kwok runs no containers, so the story is told in two halves, each where it is real:

* here, on the local control plane: the submitter Job's pod is evicted through the Eviction
  API (what ``kubectl drain`` and the node-pressure eviction use), the Job controller makes a
  retry pod from the same template, so with the same ``RAY_JOB_SUBMISSION_ID``, the record's
  submission ID and attempt are unchanged, the Job is not replaced, and the next ``up``
  converges. kwok finishes a Job's pod the moment it runs, so the pod is evicted while it
  waits for a node (its ``submitterPodTemplate`` selects a node added only afterwards): the
  Eviction API and the Job controller act on it as on a running one.
* with a real Ray head (``tests/test_submitter_ray.py``,
  ``test_an_evicted_pods_retry_follows_the_job_it_submitted``, marker ``ray``): the pod's
  command is killed right after its ``ray job submit`` succeeded and run again as the retry
  runs it; Ray holds one job of that ID and the retry submitted nothing (the guard's
  ``ray job status`` found the job).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from raygang_localcluster import LocalCluster, LocalPulumi

from tests.e2e.faults.conftest import record
from tests.e2e.faults.harness import (
    NS,
    SELECTOR,
    Case,
    case_node,
    job,
    lost,
    open_case,
    until,
)

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

NAME = "fault-f"
SUBMITTER_TEMPLATE = {
    "spec": {
        "nodeSelector": {SELECTOR: "f-sub"},
        "containers": [
            {
                "name": "ray-job-submitter",
                "image": "rayproject/ray:2.52.0",
                "resources": {"requests": {"cpu": "500m", "memory": "200Mi"}},
            }
        ],
    }
}


def _submitter_pods(case: Case) -> list[dict[str, Any]]:
    pods: list[dict[str, Any]] = case.cluster.get("pods", "-n", NS, "-l", f"job-name={NAME}")[
        "items"
    ]
    return pods


def _sid(pod: dict[str, Any]) -> str | None:
    for container in pod["spec"]["containers"]:
        for env in container.get("env") or []:
            if env["name"] == "RAY_JOB_SUBMISSION_ID":
                return str(env.get("value"))
    return None


def _evict(cluster: LocalCluster, pod: str) -> None:
    """What ``kubectl drain`` does for each pod: a policy/v1 Eviction of it."""
    eviction = {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": pod, "namespace": NS},
    }
    cluster.kubectl("create", "--raw", f"/api/v1/namespaces/{NS}/pods/{pod}/eviction",
                    "-f", "-", input=json.dumps(eviction))  # fmt: skip


def test_f_the_submitter_pod_evicted(project: LocalPulumi, cluster: LocalCluster) -> None:
    case = open_case(
        project, cluster, NAME, [job(NAME, NAME, "f", submitterPodTemplate=SUBMITTER_TEMPLATE)],
        nodes=[case_node("f")], up=True,
    )  # fmt: skip
    assert case.ready(NAME)
    pods = until(lambda: _submitter_pods(case) or None, 300, "the submitter's pod")
    assert len(pods) == 1 and not pods[0]["spec"].get("nodeName"), pods  # waiting for its node
    evicted = pods[0]["metadata"]
    early = case.snapshot(NAME)
    sid = early["record"]["raygang.dev/submission-id"]
    assert sid and _sid(pods[0]) == sid

    _evict(cluster, evicted["name"])
    until(lambda: all(p["metadata"]["uid"] != evicted["uid"] for p in _submitter_pods(case)),
          120, "the evicted pod gone")  # fmt: skip
    retry = until(lambda: _submitter_pods(case) or None, 120, "the Job controller's retry pod")
    assert len(retry) == 1 and retry[0]["metadata"]["uid"] != evicted["uid"], retry
    retry_sid = _sid(retry[0])
    cluster.add_nodes([case_node("f-sub")])  # the retry can run from now on
    case.finished(NAME)
    status = (case.get("jobs.batch", NAME) or {}).get("status", {})
    ups = case.converge()
    before = case.snapshot(NAME)
    assert case.up().returncode == 0, case.outputs[-1]
    after = case.snapshot(NAME)
    gone = lost(early, before, after)
    record(
        "the submitter's pod evicted (Eviction API; on kwok before it ran, the Ray half in "
        "tests/test_submitter_ray.py kills the command after its submit)",
        f"pod {evicted['name']} evicted; the Job controller's retry pod "
        f"{retry[0]['metadata']['name']} runs the same submission ID ({retry_sid == sid}); the Job "
        f"{'succeeded' if status.get('succeeded') else 'did not succeed'} "
        f"(succeeded {status.get('succeeded')}, failed {status.get('failed')}), the same Job "
        f"({early['submitter uid'] == after['submitter uid']}), attempt "
        f"{after['record']['raygang.dev/attempt']}; with a real Ray head the retry found the "
        "job with `ray job status` and did not submit again",
        ups,
        gone,
    )
    assert retry_sid == sid
    assert status.get("succeeded") == 1, status
    # Nothing done twice by raygang: the same Job (its retry is the Job controller's, with
    # the same submission ID), the same attempt and submission ID in the record.
    assert after["submitter uid"] == early["submitter uid"]
    assert after["record"] == early["record"] and after["record"]["raygang.dev/attempt"] == "1"
    assert after["submitter pods"] == 1
    case.clean()
    assert gone == "nothing", gone
