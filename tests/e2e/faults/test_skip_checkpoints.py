"""`PULUMI_SKIP_CHECKPOINTS=true`, which the README recommends for large stacks on a
self-managed backend: Pulumi then writes the state once, when `up` ends, instead of before and
after every step. The README's recommendation rests on this case, on the real engine: while
`up` runs the state holds nothing of it, after a failed and after an interrupted (Ctrl-C)
`up` it holds every object that `up` made (the same UIDs as on the API server), and the next
`up` converges without making any of them again.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from raygang_localcluster import LocalCluster, LocalPulumi

from tests.e2e.faults.conftest import record
from tests.e2e.faults.harness import (
    NS,
    PG_KIND,
    QUEUE_KIND,
    RC_KIND,
    Case,
    awaiting,
    case_node,
    exported,
    job,
    lost,
    open_case,
    pending_operations,
    until,
)

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

NAME = "fault-h"
# Short enough that the first `up` fails on the RayCluster's wait (its node is not there yet).
SHORT_WAIT_S = 20


def _skipping(project: LocalPulumi) -> LocalPulumi:
    return LocalPulumi(project.project, {**project.env, "PULUMI_SKIP_CHECKPOINTS": "true"})


def _state(case: Case) -> dict[str, str]:
    """The Kubernetes objects in the stack's state: kind/name -> the UID recorded for it."""
    state = exported(case.pulumi, case.stack)
    found: dict[str, str] = {}
    for resource in state.get("deployment", {}).get("resources") or []:
        kind = resource.get("type", "")
        if not kind.startswith("kubernetes:"):  # not the stack, a component or a provider
            continue
        meta = (resource.get("outputs") or {}).get("metadata") or {}
        found[f"{kind.rpartition(':')[2]}/{meta.get('name')}"] = meta.get("uid", "")
    return found


def _live(case: Case) -> dict[str, str]:
    """The same objects' UIDs as the API server has them."""
    kinds = {
        "Queue": (QUEUE_KIND, NAME),
        "ConfigMap": ("configmap", NAME),
        "PodGroup": (PG_KIND, f"ray-{NAME}-pg"),
        "RayCluster": (RC_KIND, NAME),
    }
    found: dict[str, str] = {}
    for kind, (resource, name) in kinds.items():
        got: dict[str, Any] | None
        if kind == "Queue":  # cluster-scoped
            done = case.cluster.kubectl("get", resource, name, "-o", "json", check=False)
            got = json.loads(done.stdout) if done.returncode == 0 else None
        else:
            got = case.get(resource, name)
        if got is not None:
            found[f"{kind}/{name}"] = got["metadata"]["uid"]
    return found


def test_h_a_failed_and_an_interrupted_up_write_the_state_once_at_the_end(
    project: LocalPulumi, cluster: LocalCluster
) -> None:
    case = open_case(_skipping(project), cluster, NAME, [job(NAME, NAME, "h")])
    case.pulumi.config_set("raygang:clusterReadyTimeoutSeconds", SHORT_WAIT_S, case.stack)

    # 1. An `up` that fails: the RayCluster is never ready within its wait.
    run = case.start_up()
    until(lambda: case.get(RC_KIND, NAME), 600, "the RayCluster created")
    during = _state(case)  # the setting took effect: nothing written while `up` runs
    failed_code = run.wait(600)
    after_failure = _state(case)
    live = _live(case)
    assert during == {}, during
    assert failed_code != 0, run.text()
    assert set(live) == {"Queue/fault-h", "ConfigMap/fault-h", "PodGroup/ray-fault-h-pg",
                         "RayCluster/fault-h"}, live  # fmt: skip
    assert {k: v for k, v in after_failure.items() if k in live} == live, (after_failure, live)
    assert pending_operations(case.pulumi, case.stack) == []
    early = case.snapshot(NAME)

    # 2. The next `up` (the usual wait again) interrupted with Ctrl-C while it waits.
    case.pulumi.config_set("raygang:clusterReadyTimeoutSeconds", 600, case.stack)
    run = case.start_up()
    rc_step = f"RayCluster {NS}/{NAME}-raycluster"
    until(lambda: not run.alive() or awaiting(run.text(), rc_step), 600,
          "the second `up` waiting for the RayCluster")  # fmt: skip
    assert run.alive(), run.text()
    run.interrupt()
    interrupted_code = run.wait(120)  # a graceful cancel ends by itself
    after_interrupt = _state(case)
    assert interrupted_code != 0, run.text()
    assert {k: v for k, v in after_interrupt.items() if k in live} == live, after_interrupt
    assert pending_operations(case.pulumi, case.stack) == []

    # 3. The node arrives; `up`s with live facts converge on the same objects.
    cluster.add_nodes([case_node("h")])
    case.up()
    case.finished(NAME)
    ups = case.converge()
    before = case.snapshot(NAME)
    assert case.up().returncode == 0, case.outputs[-1]
    after = case.snapshot(NAME)
    gone = lost(early, before, after)
    record(
        "`pulumi up` with PULUMI_SKIP_CHECKPOINTS=true: failed (the RayCluster's wait ran "
        "out), then interrupted with SIGINT while it waited",
        f"state while the first `up` ran: {len(during)} objects; after it failed (exit "
        f"{failed_code}): {len(after_failure)}, the API server's UIDs; after SIGINT (exit "
        f"{interrupted_code}): {len(after_interrupt)}; no pending operation either time",
        ups,
        gone,
    )
    assert after["submitter pods"] == 1
    case.clean()
    assert gone == "nothing", gone
