"""Faults of the control plane while `pulumi up` runs, injected for real on the local cluster:
the API server, the KubeRay operator, Volcano's scheduler and controllers stopped and started
again, and `pulumi up` itself interrupted.

Each case asserts the fault took effect (the process was down, the pod half bound, the
engine interrupted) before it asserts recovery: a later `up` with live facts converges, the
record's attempt and submission IDs, the UIDs of the objects and the PodGroup's numbers are
those of the first run, the submitter ran once, and `pulumi refresh` plus a preview find
nothing to change. Each case has a stack, a queue and a node of its own; a component a case
stopped is started again even when the case fails.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from raygang_localcluster import LocalCluster, LocalPulumi

from tests.e2e.faults.conftest import record
from tests.e2e.faults.harness import (
    NS,
    PG_KIND,
    QUEUE_KIND,
    RC_KIND,
    awaiting,
    case_node,
    job,
    lost,
    open_case,
    pending_operations,
    until,
)

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

COMPONENTS = ("kube-apiserver", "vc-scheduler", "vc-controller-manager", "ray-operator", "kwok")
# How long a fault lasts: long enough for the engine and the controllers to meet it.
OUTAGE_S = 20.0
# The gang of one head and one worker, 1 cpu and 1Gi each, once the job has finished (kwok
# finishes the submitter's pod at once): the submitter's reservation is gone, the cluster
# kept, as KubeRay's cleanup recomputes it.
FINISHED_GANG = (2, {"cpu": "2", "memory": "2Gi"})


@pytest.fixture(autouse=True)
def restore(cluster: LocalCluster) -> Iterator[None]:
    """Whatever a case stopped runs again after it, pass or fail."""
    yield
    for name in COMPONENTS:
        if not cluster.running(name):
            cluster.start_component(name)


def _api_down(cluster: LocalCluster) -> bool:
    return cluster.kubectl("get", "--raw", "/readyz", check=False, timeout=15).returncode != 0


def test_a_api_server_down_while_up_waits_for_the_raycluster(
    project: LocalPulumi, cluster: LocalCluster
) -> None:
    name = "fault-a"
    case = open_case(project, cluster, name, [job(name, name, "a")])
    run = case.start_up()
    until(lambda: case.get(RC_KIND, name), 600, "the RayCluster created")
    early = case.snapshot(name)
    assert run.alive() and not case.ready(name)  # `up` waits for it: its pods cannot be placed

    cluster.stop_component("kube-apiserver")
    assert not cluster.running("kube-apiserver") and _api_down(cluster)
    time.sleep(OUTAGE_S)
    during = run.alive()
    cluster.start_component("kube-apiserver")
    cluster.add_nodes([case_node("a")])
    code = run.wait(900)
    first = run.text()
    case.finished(name)
    ups = case.converge()
    before = case.snapshot(name)
    # One more `up` with live facts, as a user would run later: nothing changes.
    assert case.up().returncode == 0, case.outputs[-1]
    after = case.snapshot(name)
    assert case.ready(name)
    assert after["podgroup numbers"] == FINISHED_GANG
    assert after["record"]["raygang.dev/attempt"] == "1"
    assert after["submitter pods"] == 1
    gone = lost(early, before, after)
    record(
        "kube-apiserver stopped 20 s while `up` waited for the RayCluster",
        f"`up` {'kept waiting' if during else 'had exited'} during the outage, "
        f"then {'succeeded' if code == 0 else 'failed: ' + _last_error(first)}",
        ups,
        gone,
    )
    case.clean()
    assert gone == "nothing", gone


def test_b_kuberay_operator_down_during_up(project: LocalPulumi, cluster: LocalCluster) -> None:
    name = "fault-b"
    case = open_case(project, cluster, name, [job(name, name, "b")], nodes=[case_node("b")])
    cluster.stop_component("ray-operator")
    assert not cluster.running("ray-operator")
    run = case.start_up()
    until(lambda: case.get(RC_KIND, name), 600, "the RayCluster created")
    early = case.snapshot(name)
    time.sleep(OUTAGE_S)
    # No operator: nobody made the cluster's pods, and `up` is still waiting.
    assert case.pods(name) == [] and run.alive() and not case.ready(name)
    cluster.start_component("ray-operator")
    code = run.wait(900)
    case.finished(name)
    ups = case.converge()
    before = case.snapshot(name)
    assert case.up().returncode == 0, case.outputs[-1]
    after = case.snapshot(name)
    assert after["podgroup numbers"] == FINISHED_GANG and after["ray pods"] == 2
    assert after["submitter pods"] == 1
    gone = lost(early, before, after)
    record(
        "KubeRay operator down when `up` created the RayCluster, back 20 s later",
        "no pods while it was down; `up` kept waiting and "
        f"{'succeeded' if code == 0 else 'failed: ' + _last_error(run.text())} once it was back",
        ups,
        gone,
    )
    case.clean()
    assert gone == "nothing", gone


def _bind(cluster: LocalCluster, pod: str, node: str) -> None:
    """What a scheduler does for one task: a Binding of the pod to the node."""
    binding = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": pod, "namespace": NS},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node},
    }
    cluster.kubectl("create", "--raw", f"/api/v1/namespaces/{NS}/pods/{pod}/binding",
                    "-f", "-", input=json.dumps(binding))  # fmt: skip


def test_c_scheduler_killed_with_the_gang_half_bound(
    project: LocalPulumi, cluster: LocalCluster
) -> None:
    name = "fault-c"
    case = open_case(project, cluster, name, [job(name, name, "c")], nodes=[case_node("c")])
    cluster.kill_component("vc-scheduler")
    assert not cluster.running("vc-scheduler")
    run = case.start_up()
    until(lambda: len(case.pods(name)) == 2, 600, "the head and worker pods created")
    early = case.snapshot(name)
    # The scheduler died after binding one task of the gang: the head is bound, the worker
    # is not (the Binding is the one the scheduler's bind would have made).
    head = next(p["metadata"]["name"] for p in case.pods(name) if "head" in p["metadata"]["name"])
    _bind(cluster, head, "fault-c")
    time.sleep(OUTAGE_S)
    assert case.bound(name) == [head], case.bound(name)  # half bound, and it stays so
    cluster.start_component("vc-scheduler")
    pods = {p["metadata"]["name"] for p in case.pods(name)}
    whole = until(lambda: set(case.bound(name)) == pods, 300, "the gang whole")
    code = run.wait(900)
    case.finished(name)
    ups = case.converge()
    before = case.snapshot(name)
    assert case.up().returncode == 0, case.outputs[-1]
    after = case.snapshot(name)
    assert after["podgroup numbers"] == FINISHED_GANG and after["submitter pods"] == 1
    gone = lost(early, before, after)
    record(
        "vc-scheduler SIGKILLed with the gang half bound (head bound, worker not), restarted",
        f"half bound while it was down; {'whole' if whole else 'not whole'} after its restart; "
        f"`up` {'succeeded' if code == 0 else 'failed'}",
        ups,
        gone,
    )
    case.clean()
    assert gone == "nothing", gone


def test_c_controllers_down_while_the_queue_should_open(
    project: LocalPulumi, cluster: LocalCluster
) -> None:
    name = "fault-c2"
    case = open_case(project, cluster, name, [job(name, name, "c2")], nodes=[case_node("c2")])
    cluster.stop_component("vc-controller-manager")
    assert not cluster.running("vc-controller-manager")
    run = case.start_up()
    until(lambda: case.get(QUEUE_KIND, "fault-c2"), 600, "the Queue created")
    time.sleep(OUTAGE_S)
    queue_obj = case.get(QUEUE_KIND, "fault-c2") or {}
    state = queue_obj.get("status", {}).get("state")
    # Nobody opens it: `up` waits for Open and created nothing of the job yet.
    assert state != "Open" and run.alive(), (state, run.text())
    assert case.get(PG_KIND, f"ray-{name}-pg") is None
    cluster.start_component("vc-controller-manager")
    code = run.wait(900)
    case.finished(name)
    ups = case.converge()
    before = case.snapshot(name)
    early = before  # the fault came before any object of the job
    assert case.up().returncode == 0, case.outputs[-1]
    after = case.snapshot(name)
    assert after["podgroup numbers"] == FINISHED_GANG and after["submitter pods"] == 1
    gone = lost(early, before, after)
    record(
        "vc-controller-manager down while the new Queue should open",
        f"the Queue stayed {state or 'without a state'}, no PodGroup; `up` "
        f"{'succeeded' if code == 0 else 'failed'} once the controllers were back",
        ups,
        gone,
    )
    case.clean()
    assert gone == "nothing", gone


def test_d_up_interrupted_between_the_podgroup_and_the_raycluster(
    project: LocalPulumi, cluster: LocalCluster
) -> None:
    name = "fault-d"
    rc_step = f"RayCluster {NS}/{name}-raycluster"
    case = open_case(project, cluster, name, [job(name, name, "d")])

    # SIGKILL (the terminal closed, the machine out of memory) while `up` waits for the
    # RayCluster it just created, the PodGroup made.
    run = case.start_up()
    until(lambda: case.get(RC_KIND, name), 600, "the RayCluster created")
    early = case.snapshot(name)
    assert case.get(PG_KIND, f"ray-{name}-pg") and run.alive() and not case.ready(name)
    run.kill()
    assert not run.alive()
    kill_pending = [p.get("type") for p in pending_operations(project, case.stack)]

    # Run it again, doing what the refusals say, until an `up` waits for the RayCluster again.
    fixes: list[str] = []
    refusals: list[str] = []
    for _ in range(4):
        run = case.start_up()
        until(lambda: not run.alive() or awaiting(run.text(), rc_step), 600,  # noqa: B023
              "the next `up` waiting for the RayCluster, or refused")  # fmt: skip
        if run.alive():
            break
        run.popen.wait(timeout=60)
        out = run.text()
        refusals.append(_last_error(out))
        if "currently locked" in out:
            fixes.append("pulumi cancel --yes")
            project.run("cancel", "--yes", "--stack", case.stack)
        elif "Server-Side Apply field conflict" in out:
            # The killed run's create reached the API server but not the state: the provider
            # will not adopt the object. Nothing of the attempt ran yet (the submitter comes
            # after the RayCluster is ready), so the object goes and the next `up` makes it.
            fixes.append(f"kubectl delete raycluster {name}")
            cluster.kubectl("delete", RC_KIND, name, "-n", NS, "--wait=true")
        else:
            raise AssertionError(out)
    assert run.alive() and not case.ready(name), run.text()

    # Ctrl-C once while that `up` waits for the RayCluster.
    run.interrupt()
    run.popen.wait(timeout=120)  # a graceful cancel: it must end by itself
    sigint_code = run.popen.returncode
    sigint_failed = f"{rc_step} **creating failed**" in run.text() or (
        f"{rc_step} **updating failed**" in run.text()
    )
    sigint_pending = [p.get("type") for p in pending_operations(project, case.stack)]

    cluster.add_nodes([case_node("d")])  # the gang can be placed from now on
    case.up()  # whether it succeeds is the convergence's to tell
    case.finished(name)
    ups = case.converge()
    before = case.snapshot(name)
    assert case.up().returncode == 0, case.outputs[-1]
    after = case.snapshot(name)
    assert after["podgroup numbers"] == FINISHED_GANG and after["submitter pods"] == 1
    # The killed run's pending create outlives every later `up` (each warns about it), by
    # Pulumi's design: its snapshot manager copies every pending CREATE of the previous state
    # into the next ("these must require user intervention to be cleared or resolved"), and
    # only `pulumi refresh --clear-pending-creates` (README, step 4) drops it.
    left = [p.get("type") for p in pending_operations(project, case.stack)]
    fixes.append("pulumi refresh --clear-pending-creates --yes")
    project.run("refresh", "--clear-pending-creates", "--yes", "--skip-preview",
                "--stack", case.stack)  # fmt: skip
    cleared = [p.get("type") for p in pending_operations(project, case.stack)]
    recreated = any(f.startswith("kubectl delete") for f in fixes)
    if recreated:  # the fix replaced the RayCluster on purpose; the rest must be the same
        early = {**early, "raycluster uid": after["raycluster uid"]}
    gone = lost(early, before, after)
    record(
        "`pulumi up` SIGKILLed while it waited for the RayCluster (PodGroup made); the next "
        "`up` interrupted with SIGINT at the same point",
        f"SIGKILL: pending operations {kill_pending}; the next `up` refused "
        f"{len(refusals)} time(s) ({'; '.join(refusals) or 'none'}), fixed by "
        f"{' then '.join(f'`{f}`' for f in fixes) or 'nothing'}; SIGINT: exit {sigint_code}, "
        f"the RayCluster's step {'failed' if sigint_failed else 'not reported failed'}, "
        f"pending operations {sigint_pending}; after convergence still pending: {left} "
        f"(Pulumi keeps a pending create until the user clears it), after "
        f"`pulumi refresh --clear-pending-creates`: {cleared}",
        ups,
        gone,
    )
    assert kill_pending, "the SIGKILL left no pending operation: it came too late"
    # Ctrl-C leaves no pending operation of its own (the one left is the killed run's).
    assert sigint_code != 0 and sigint_failed and sigint_pending == kill_pending, run.text()
    # Every `up` since carried the killed run's pending create; README's step 4 dropped it.
    assert left == [t for t in kill_pending if t == "creating"], (left, kill_pending)
    assert cleared == [], cleared
    case.clean()  # refresh and preview clean, no pending operation
    assert gone == "nothing", gone


def _last_error(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if "error" in line.lower()]
    return lines[-1][:200] if lines else "(no error line)"
