"""Differential test of the preflight against the real Volcano scheduler (v1.14.1).

Each scenario is generated from a seed: kwok nodes (cpu, memory, gpu, labels, taints),
queues (weight, capability, guarantee, Open or Closed), other gangs already Running (their
pods placed by Volcano) or Inqueue (a PodGroup holding its reservation, no pods), and then
our gang: a RayJob planned by ``raygang plan``, whose PodGroup is created as rendered and
whose head and worker pods are made from the RayCluster's templates as KubeRay would
(the submitter from the Job's template once the gang is placed).

The cluster as it was before our gang is snapshotted (``kubectl get ... -A -o yaml``) and
given to ``raygang plan --cluster``; Volcano's outcome (PodGroup phase, conditions,
events, pod bindings, or the webhook's denial) is compared with the preflight's verdict,
phase and first reason (its Volcano words, before `` -- ``).

``python -m benchmarks.volcano_differential --scenarios 200 --seed 1 [--json FILE]``

``--family weighted``: two queues of different weights competing for the same nodes
(:func:`generate_weighted`), where allocate's queue order and the deserved shares decide
who gets the room.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml
from raygang_localcluster import LocalCluster, NodeShape, default_paths

REPO = Path(__file__).resolve().parents[1]
LABEL = "raygang-diff"
GROUP = "scheduling.k8s.io/group-name"
PG_API = "scheduling.volcano.sh/v1beta1"
TAINT = {"key": "dedicated", "value": "ray", "effect": "NoSchedule"}
SETTLE_S = 2.5  # unchanged this long: settled (the schedule period is 1 s)
CAP_S = 20.0


# --- Scenarios ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Node:
    name: str
    cpu: str
    memory: str
    gpu: int
    pool: str
    tainted: bool


@dataclass(frozen=True)
class Queue:
    name: str
    weight: int
    capability: dict[str, str]
    guarantee: dict[str, str]
    closed: bool
    priority: int = 0


@dataclass(frozen=True)
class Pod:
    cpu: str
    memory: str
    gpu: int


@dataclass(frozen=True)
class Gang:
    """Another gang of the cluster: Running (pods created) or Inqueue (no pods yet).

    ``may_wait``: its pods may stay Pending (its queue's deserved share caps it, or a pod
    fits no node), so it is settled Inqueue too. ``min_resources``: its PodGroup's, when not
    its pods' sum.
    """

    name: str
    queue: str
    pods: tuple[Pod, ...]
    with_pods: bool
    may_wait: bool = False
    min_resources: dict[str, str] | None = None


@dataclass(frozen=True)
class Group:
    name: str
    replicas: int
    pod: Pod
    pool: str | None
    tolerates: bool


@dataclass(frozen=True)
class Scenario:
    index: int
    namespace: str
    nodes: tuple[Node, ...]
    queues: tuple[Queue, ...]
    gangs: tuple[Gang, ...]
    queue: str
    head: Pod
    groups: tuple[Group, ...]
    submitter: bool
    head_tolerates: bool = False

    @property
    def job(self) -> str:
        return f"g{self.index}"

    @property
    def podgroup(self) -> str:
        return f"ray-{self.job}-pg"


def _milli(value: int) -> str:
    return f"{value}m" if value % 1000 else str(value // 1000)


def _pod(rng: random.Random, big: bool) -> Pod:
    cpu = rng.choice([500, 1000, 2000, 3000, 4000] + ([6000, 8000] if big else []))
    mem = rng.choice([1, 2, 4, 8] + ([16, 24] if big else []))
    gpu = rng.choice([1, 2]) if rng.random() < 0.3 else 0
    return Pod(_milli(cpu), f"{mem}Gi", gpu)


def generate(seed: int, index: int) -> Scenario:
    """One scenario, a pure function of (seed, index)."""
    rng = random.Random(f"{seed}/{index}")
    ns = f"d{seed}-{index}"
    nodes = tuple(
        Node(
            f"{ns}-n{j}",
            str(rng.choice([2, 4, 8, 16])),
            f"{rng.choice([8, 16, 32, 64])}Gi",
            rng.choice([1, 2, 4, 8]) if rng.random() < 0.4 else 0,
            rng.choice(["a", "b"]),
            rng.random() < 0.2,
        )
        for j in range(rng.randint(1, 4))
    )
    queues: list[Queue] = []
    for j in range(rng.randint(0, 2)):
        capability: dict[str, str] = {}
        if rng.random() < 0.5:
            capability["cpu"] = str(rng.choice([2, 4, 8, 16, 32]))
            if rng.random() < 0.5:
                capability["memory"] = f"{rng.choice([8, 16, 32, 64])}Gi"
            if rng.random() < 0.3:
                capability["nvidia.com/gpu"] = str(rng.choice([1, 2, 4]))
        guarantee: dict[str, str] = {}
        if rng.random() < 0.25:
            guarantee["cpu"] = str(rng.choice([1, 2, 4]))
            if "cpu" in capability and int(capability["cpu"]) < int(guarantee["cpu"]):
                guarantee["cpu"] = capability["cpu"]
        queues.append(
            Queue(f"{ns}-q{j}", rng.randint(1, 4), capability, guarantee, rng.random() < 0.1)
        )
    open_queues = ["default"] + [q.name for q in queues if not q.closed]
    gangs = tuple(
        Gang(
            f"e{k}",
            rng.choice(open_queues),
            tuple(_pod(rng, False) for _ in range(rng.randint(1, 3))),
            rng.random() < 0.7,
        )
        for k in range(rng.randint(0, 3))
    )
    roll = rng.random()
    queue = f"{ns}-missing" if roll < 0.04 else rng.choice(["default"] + [q.name for q in queues])
    any_tainted = any(n.tainted for n in nodes)
    groups = tuple(
        Group(
            f"w{k}",
            rng.randint(1, 4),
            _pod(rng, True),
            rng.choice(["a", "b"]) if rng.random() < 0.15 else None,
            any_tainted and rng.random() < 0.5,
        )
        for k in range(rng.randint(1, 2))
    )
    head = _pod(rng, False)
    head = Pod(head.cpu, head.memory, 0)
    return Scenario(
        index, ns, nodes, tuple(queues), gangs, queue, head, groups, rng.random() < 0.6,
        any_tainted and rng.random() < 0.5,
    )  # fmt: skip


def generate_weighted(seed: int, index: int) -> Scenario:
    """Two queues of different weights competing for nodes of one size, a pure function of
    (seed, index).

    qb (another team) has a Running gang filling whole nodes and a waiting one whose
    deserved share may cap it; qa (ours) may hold a gang whose one pod is bigger than any
    node, which raises qa's request and so lowers qb's deserved share below the room the
    nodes have. Then our gang in qa: allocate's queue order (priority, then allocated /
    deserved) decides who is served first, and a capped gang takes nothing.
    """
    rng = random.Random(f"weighted/{seed}/{index}")
    ns = f"w{seed}-{index}"
    cpu = rng.choice([4, 8])
    count = rng.randint(4, 6)
    nodes = tuple(Node(f"{ns}-n{j}", str(cpu), "32Gi", 0, "a", False) for j in range(count))
    qa = Queue(f"{ns}-qa", rng.choice([1, 2]), {}, {}, False)
    qb = Queue(f"{ns}-qb", rng.choice([1, 2, 3, 4]), {}, {}, False,
               priority=1 if rng.random() < 0.2 else 0)  # fmt: skip
    whole = Pod(str(cpu), "1Gi", 0)
    half = Pod(_milli(cpu * 500), "1Gi", 0)
    # A PodGroup asking less than its pods keeps overcommit's budget for our gang.
    small = {"cpu": "1", "memory": "1Gi"}
    running = rng.randint(1, count - 2)
    waiting = (whole,) * rng.randint(1, count - running)
    gangs = [
        Gang("b-run", qb.name, (whole,) * running, True),
        Gang("b-wait", qb.name, waiting, True, may_wait=True,
             min_resources=small if rng.random() < 0.6 else None),
    ]  # fmt: skip
    if rng.random() < 0.7:
        huge = Pod(str(cpu + 4), "1Gi", 0)
        gangs.append(Gang("a-huge", qa.name, (huge,), True, may_wait=True, min_resources=small))
    groups = (Group("w0", rng.randint(1, 3), rng.choice([half, whole]), None, False),)
    head = rng.choice([half, whole])
    return Scenario(index, ns, nodes, (qa, qb), tuple(gangs), qa.name, head, groups, False)


FAMILIES = {"mixed": generate, "weighted": generate_weighted}


# --- Manifests ------------------------------------------------------------------------------
def _resources(pod: Pod) -> dict[str, Any]:
    requests: dict[str, str] = {"cpu": pod.cpu, "memory": pod.memory}
    out: dict[str, Any] = {"requests": requests}
    if pod.gpu:
        requests["nvidia.com/gpu"] = str(pod.gpu)
        out["limits"] = {"nvidia.com/gpu": str(pod.gpu)}
    return out


def node_shape(node: Node) -> NodeShape:
    return NodeShape(
        node.name, cpu=node.cpu, memory=node.memory,
        extra={"nvidia.com/gpu": str(node.gpu)} if node.gpu else {},
        labels={"pool": node.pool, LABEL: "1"},
        taints=[TAINT] if node.tainted else [],
    )  # fmt: skip


def queue_manifest(q: Queue) -> dict[str, Any]:
    spec: dict[str, Any] = {"weight": q.weight, "reclaimable": True}
    if q.priority:
        spec["priority"] = q.priority
    if q.capability:
        spec["capability"] = q.capability
    if q.guarantee:
        spec["guarantee"] = {"resource": q.guarantee}
        spec["deserved"] = q.guarantee  # the webhook wants guarantee <= deserved
    return {
        "apiVersion": PG_API, "kind": "Queue",
        "metadata": {"name": q.name, "labels": {LABEL: "1"}}, "spec": spec,
    }  # fmt: skip


def _sum(pods: Sequence[Pod]) -> dict[str, str]:
    cpu = sum(_to_milli(p.cpu) for p in pods)
    out = {"cpu": _milli(cpu), "memory": f"{sum(int(p.memory[:-2]) for p in pods)}Gi"}
    gpu = sum(p.gpu for p in pods)
    if gpu:
        out["nvidia.com/gpu"] = str(gpu)
    return out


def _to_milli(cpu: str) -> int:
    return int(cpu[:-1]) if cpu.endswith("m") else int(cpu) * 1000


def gang_manifests(s: Scenario, g: Gang) -> list[dict[str, Any]]:
    pg = {
        "apiVersion": PG_API, "kind": "PodGroup",
        "metadata": {"name": g.name, "namespace": s.namespace},
        "spec": {"minMember": len(g.pods), "minResources": g.min_resources or _sum(g.pods),
                 "queue": g.queue},
    }  # fmt: skip
    out: list[dict[str, Any]] = [pg]
    if g.with_pods:
        for i, p in enumerate(g.pods):
            out.append(_bare_pod(s.namespace, f"{g.name}-{i}", g.name, p))
    return out


def _bare_pod(ns: str, name: str, group: str, pod: Pod) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "annotations": {GROUP: group}},
        "spec": {
            "schedulerName": "volcano",
            "containers": [{"name": "c", "image": "busybox", "resources": _resources(pod)}],
        },
    }  # fmt: skip


def rayjob(s: Scenario) -> dict[str, Any]:
    def template(container: str, pod: Pod, pool: str | None, tolerates: bool) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "containers": [{"name": container, "image": "rayproject/ray:2.52.0",
                            "resources": _resources(pod)}],
        }  # fmt: skip
        if pool:
            spec["nodeSelector"] = {"pool": pool}
        if tolerates:
            spec["tolerations"] = [{**TAINT, "operator": "Equal"}]
        return {"spec": spec}

    spec: dict[str, Any] = {
        "entrypoint": "python x.py",
        "rayClusterSpec": {
            "rayVersion": "2.52.0",
            "headGroupSpec": {
                "rayStartParams": {},
                "template": template("ray-head", s.head, None, s.head_tolerates),
            },
            "workerGroupSpecs": [
                {
                    "groupName": g.name,
                    "replicas": g.replicas,
                    "minReplicas": g.replicas,
                    "maxReplicas": g.replicas,
                    "rayStartParams": {},
                    "template": template("ray-worker", g.pod, g.pool, g.tolerates),
                }
                for g in s.groups
            ],
        },
    }
    if not s.submitter:
        spec["submissionMode"] = "InteractiveMode"
    return {
        "apiVersion": "ray.io/v1", "kind": "RayJob",
        "metadata": {"name": s.job, "namespace": s.namespace,
                     "labels": {"volcano.sh/queue-name": s.queue}},
        "spec": spec,
    }  # fmt: skip


def kuberay_pods(cluster: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The head and worker pods KubeRay makes from a RayCluster's templates."""
    name = cluster["metadata"]["name"]
    ns = cluster["metadata"]["namespace"]
    spec = cluster["spec"]
    groups = [("headgroup", "head", 1, spec["headGroupSpec"]["template"], f"{name}-head")]
    for g in spec.get("workerGroupSpecs", []):
        for i in range(int(g.get("replicas", 0))):
            groups.append(
                (g["groupName"], "worker", 1, g["template"], f"{name}-{g['groupName']}-worker-{i}")
            )
    out = []
    for group, kind, _, template, pod_name in groups:
        meta = template.get("metadata", {})
        labels = {
            **meta.get("labels", {}), "ray.io/cluster": name, "ray.io/node-type": kind,
            "ray.io/group": group, "ray.io/is-ray-node": "yes",
        }  # fmt: skip
        out.append({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": pod_name, "namespace": ns, "labels": labels,
                         "annotations": dict(meta.get("annotations", {}))},
            "spec": template["spec"],
        })  # fmt: skip
    return out


def submitter_pod(job: Mapping[str, Any]) -> dict[str, Any]:
    template = job["spec"]["template"]
    meta = template.get("metadata", {})
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": f"{job['metadata']['name']}-submitter",
            "namespace": job["metadata"]["namespace"],
            "labels": {**meta.get("labels", {}), "batch.kubernetes.io/job-name":
                       job["metadata"]["name"]},
            "annotations": dict(meta.get("annotations", {})),
        },
        "spec": template["spec"],
    }  # fmt: skip


# --- Running one scenario -------------------------------------------------------------------
@dataclass
class Outcome:
    """What Volcano did, and what the preflight said."""

    index: int
    scenario: dict[str, Any]
    volcano_verdict: str = ""
    volcano_phase: str | None = None
    volcano_texts: list[str] = field(default_factory=list)
    predicted_verdict: str = ""
    predicted_phase: str | None = None
    predicted_first: str = ""
    predicted_reasons: list[str] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0
    files: list[str] = field(default_factory=list)

    @property
    def verdict_ok(self) -> bool:
        return self.predicted_verdict == self.volcano_verdict

    @property
    def phase_ok(self) -> bool:
        return self.predicted_phase == self.volcano_phase

    @property
    def first_ok(self) -> bool:
        if self.volcano_verdict == "admitted":
            return self.predicted_verdict == "admitted"
        if not self.predicted_first:
            return False
        if self.volcano_phase == "Refused":
            return any(self.predicted_first in t for t in self.volcano_texts)
        return any(words_match(self.predicted_first, t) for t in self.volcano_texts)


def _plans(job_file: Path, snapshot: Path) -> tuple[str, str]:
    """``raygang plan`` twice, side by side: the manifests (YAML), and the preflight on the
    snapshot (JSON)."""
    base = [sys.executable, "-m", "raygang", "plan", str(job_file), "--preflight", "warn"]
    running = [
        subprocess.Popen([*base, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for extra in (["--format", "yaml"], ["--format", "json", "--cluster", str(snapshot)])
    ]
    outs = []
    for proc in running:
        stdout, stderr = proc.communicate(timeout=120)
        if proc.returncode != 0:
            raise RuntimeError(f"raygang plan failed ({proc.returncode}): {stderr.strip()}")
        outs.append(stdout)
    return outs[0], outs[1]


def predict(job_file: Path, snapshot: Path) -> dict[str, Any]:
    """The preflight's result on a stored scenario (for --replay)."""
    return _preflight_of(_plans(job_file, snapshot)[1])


def _preflight_of(text: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(text)["jobs"][0]["preflight"]
    return result


def words_match(predicted: str, shown: str) -> bool:
    """The preflight's words against Volcano's: ``*`` in a pod name stands for KubeRay's
    random suffix."""
    pattern = "".join("[a-z0-9-]+" if part == "*" else re.escape(part)
                      for part in re.split(r"(\*)", predicted))  # fmt: skip
    return re.fullmatch(pattern, shown) is not None


SNAPSHOT_KINDS = "nodes,pods,queues.scheduling.volcano.sh,podgroups.scheduling.volcano.sh"


class Runner:
    def __init__(self, cluster: LocalCluster, workdir: Path) -> None:
        self.cluster = cluster
        self.workdir = workdir

    def kubectl(self, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
        return self.cluster.kubectl(*args, input=input, check=False)

    def apply(self, manifests: Sequence[Mapping[str, Any]]) -> subprocess.CompletedProcess[str]:
        body = json.dumps({"apiVersion": "v1", "kind": "List", "items": list(manifests)})
        return self.kubectl("create", "-f", "-", input=body)

    def state(self, ns: str) -> dict[str, Any]:
        got = json.loads(
            self.kubectl("get", "podgroups.scheduling.volcano.sh,pods,events", "-n", ns,
                         "-o", "json").stdout or '{"items": []}'
        )  # fmt: skip
        pgs, pods, events = {}, {}, []
        for item in got["items"]:
            kind, name = item["kind"], item["metadata"]["name"]
            if kind == "PodGroup":
                status = item.get("status", {})
                pgs[name] = (
                    status.get("phase"),
                    tuple(
                        (c.get("type"), c.get("status"), c.get("message", ""))
                        for c in status.get("conditions", [])
                    ),
                )
            elif kind == "Pod":
                pods[name] = item["spec"].get("nodeName", "")
            elif kind == "Event":
                obj = item["involvedObject"]
                events.append((obj["kind"], obj["name"], item.get("reason"), item["message"]))
        return {"pgs": pgs, "pods": pods, "events": sorted(set(events))}

    def settle(self, ns: str, done: Any) -> dict[str, Any]:
        start = time.monotonic()
        last = self.state(ns)
        changed = start
        while True:
            time.sleep(0.5)
            now = self.state(ns)
            t = time.monotonic()
            if done(now):
                return now
            key = (now["pgs"], now["pods"])
            if key != (last["pgs"], last["pods"]):
                changed = t
            last = now
            if t - changed >= SETTLE_S or t - start >= CAP_S:
                return now

    def run(self, s: Scenario) -> Outcome:
        t0 = time.monotonic()
        out = Outcome(s.index, asdict(s))
        try:
            self._run(s, out)
        except Exception as exc:
            out.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.cleanup(s)
        out.seconds = time.monotonic() - t0
        return out

    def _run(self, s: Scenario, out: Outcome) -> None:
        ns = s.namespace
        self.cluster.add_nodes([node_shape(n) for n in s.nodes])
        setup = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}]
        setup += [queue_manifest(q) for q in s.queues]
        done = self.apply(setup)
        if done.returncode != 0:
            raise RuntimeError(f"setup: {done.stderr.strip()}")
        for q in s.queues:
            if q.closed:
                self._close(q.name)
        self._wait_queues(s)
        others = [m for g in s.gangs for m in gang_manifests(s, g)]
        if others:
            done = self.apply(others)
            if done.returncode != 0:
                raise RuntimeError(f"other gangs: {done.stderr.strip()}")
            want = {g.name for g in s.gangs}
            self.settle(ns, lambda st: self._others_settled(st, s) and want <= set(st["pgs"]))
        snapshot = self.workdir / f"{ns}-snapshot.yaml"
        snapshot.write_text(self.kubectl("get", SNAPSHOT_KINDS, "-A", "-o", "yaml").stdout)
        job_file = self.workdir / f"{ns}-job.yaml"
        job_file.write_text(yaml.safe_dump(rayjob(s), sort_keys=False))
        out.files = [str(job_file), str(snapshot)]
        manifests, preflight = _plans(job_file, snapshot)
        plan = [d for d in yaml.safe_load_all(manifests) if d]
        self.record(out, _preflight_of(preflight))
        self._gang(s, out, plan)

    @staticmethod
    def record(out: Outcome, predicted: Mapping[str, Any]) -> None:
        out.predicted_verdict = predicted["verdict"]
        out.predicted_phase = predicted["phase"]
        out.predicted_reasons = list(predicted["reasons"])
        if out.predicted_reasons:
            out.predicted_first = out.predicted_reasons[0].split(" -- ", 1)[0]

    def _gang(self, s: Scenario, out: Outcome, plan: list[dict[str, Any]]) -> None:
        ns = s.namespace
        by_kind = {d["kind"]: d for d in plan}
        pg = by_kind["PodGroup"]
        pods = kuberay_pods(by_kind["RayCluster"])
        created = self.apply([pg, *pods])
        if created.returncode != 0:
            if "podgroup" in created.stderr.lower() or "queue" in created.stderr.lower():
                out.volcano_verdict, out.volcano_phase = "stuck", "Refused"
                out.volcano_texts = [created.stderr.strip()]
                return
            raise RuntimeError(f"our gang: {created.stderr.strip()}")
        names = {p["metadata"]["name"] for p in pods}

        def gang_placed(st: dict[str, Any]) -> bool:
            running = st["pgs"].get(s.podgroup, (None,))[0] == "Running"
            return running and all(st["pods"].get(n) for n in names)

        st = self.settle(ns, gang_placed)
        submitter_ok = True
        if gang_placed(st) and "Job" in by_kind:
            sub = submitter_pod(by_kind["Job"])
            self.apply([sub])
            name = sub["metadata"]["name"]
            st = self.settle(ns, lambda x: bool(x["pods"].get(name)))
            submitter_ok = bool(st["pods"].get(name))
        phase, conditions = st["pgs"].get(s.podgroup, (None, ()))
        out.volcano_phase = phase
        out.volcano_verdict = "admitted" if gang_placed(st) and submitter_ok else "stuck"
        ours = names | {f"{s.job}-submitter", s.podgroup}
        texts = [c[2] for c in conditions if c[2]]
        texts += [e[3] for e in st["events"] if e[1] in ours and e[2] != "Scheduled"]
        out.volcano_texts = sorted(set(texts))

    def _others_settled(self, st: dict[str, Any], s: Scenario) -> bool:
        for g in s.gangs:
            phase = st["pgs"].get(g.name, (None,))[0]
            if g.with_pods:
                # Bound is not enough: the PodGroup turns Running a session later, and
                # until then overcommit still counts its whole minResources as Inqueue.
                # A gang that may wait is settled once nothing changes (settle's timeout).
                if phase != "Running":
                    return False
            elif phase != "Inqueue":
                return False
        return True

    def _close(self, name: str) -> None:
        self.kubectl("patch", "queues.scheduling.volcano.sh", name, "--subresource=status",
                     "--type=merge", "-p", '{"status":{"state":"Closed"}}')  # fmt: skip

    def _wait_queues(self, s: Scenario) -> None:
        want = {q.name: ("Closed" if q.closed else "Open") for q in s.queues}
        deadline = time.monotonic() + 15
        while want and time.monotonic() < deadline:
            got = self.cluster.get("queues.scheduling.volcano.sh", "-l", LABEL)["items"]
            states = {q["metadata"]["name"]: q.get("status", {}).get("state") for q in got}
            if all(states.get(k) == v for k, v in want.items()):
                break
            for k, v in want.items():
                if v == "Closed" and states.get(k) != "Closed":
                    self._close(k)
            time.sleep(0.3)
        if s.queues:
            time.sleep(1.0)  # a scheduling session sees the queues

    def cleanup(self, s: Scenario) -> None:
        ns = s.namespace
        self.kubectl("delete", "pods,podgroups.scheduling.volcano.sh", "--all", "-n", ns,
                     "--force", "--grace-period=0", "--ignore-not-found")  # fmt: skip
        self.kubectl("delete", "namespace", ns, "--wait=false", "--ignore-not-found")
        self.kubectl("delete", "queues.scheduling.volcano.sh,nodes", "-l", LABEL,
                     "--ignore-not-found")  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            left = self.kubectl(
                "get", "podgroups.scheduling.volcano.sh,pods", "-A", "-o", "name"
            ).stdout.split()
            gone = self.kubectl(
                "get", "queues.scheduling.volcano.sh,nodes", "-l", LABEL, "-o", "name"
            ).stdout.split()
            if not left and not gone:
                break
            time.sleep(0.3)
        time.sleep(0.5)  # the scheduler's cache sees the deletions


# --- Report ---------------------------------------------------------------------------------
def summary(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    ran = [o for o in outcomes if not o.error]
    n = len(ran) or 1
    return {
        "scenarios": len(outcomes),
        "errors": len(outcomes) - len(ran),
        "verdict": sum(o.verdict_ok for o in ran) / n,
        "phase": sum(o.phase_ok for o in ran) / n,
        "first_reason": sum(o.first_ok for o in ran) / n,
        "stuck": sum(o.volcano_verdict == "stuck" for o in ran),
        "phases": {
            p or "None": sum(o.volcano_phase == p for o in ran)
            for p in sorted({o.volcano_phase for o in ran}, key=str)
        },
    }


def report(outcomes: Sequence[Outcome], stream: Any = sys.stdout) -> None:
    s = summary(outcomes)
    print(f"scenarios {s['scenarios']} (errors {s['errors']}); Volcano: {s['stuck']} stuck, "
          f"phases {s['phases']}", file=stream)  # fmt: skip
    print(f"  verdict      {s['verdict']:7.1%}", file=stream)
    print(f"  phase        {s['phase']:7.1%}", file=stream)
    print(f"  first reason {s['first_reason']:7.1%}", file=stream)
    for o in outcomes:
        if o.error:
            print(f"- #{o.index} ERROR {o.error}", file=stream)
        elif not (o.verdict_ok and o.phase_ok and o.first_ok):
            print(f"- #{o.index} volcano {o.volcano_verdict}/{o.volcano_phase}, preflight "
                  f"{o.predicted_verdict}/{o.predicted_phase}", file=stream)  # fmt: skip
            print(f"    preflight: {o.predicted_first!r}", file=stream)
            for t in o.volcano_texts:
                print(f"    volcano:   {t!r}", file=stream)


def run_scenarios(
    cluster: LocalCluster,
    scenarios: Sequence[Scenario],
    workdir: Path,
    progress: bool = False,
    json_file: Path | None = None,
) -> list[Outcome]:
    """Run them one after the other (``json_file`` is rewritten after each)."""
    runner = Runner(cluster, workdir)
    outcomes: list[Outcome] = []
    for s in scenarios:
        o = runner.run(s)
        outcomes.append(o)
        _write(json_file, outcomes)
        if progress:
            mark = "ok" if (not o.error and o.verdict_ok and o.phase_ok and o.first_ok) else "XX"
            print(f"#{s.index} {mark} {o.volcano_verdict}/{o.volcano_phase} "
                  f"{o.seconds:.1f}s {o.error}", file=sys.stderr, flush=True)  # fmt: skip
    return outcomes


def start_cluster(workdir: Path) -> LocalCluster:
    bin_dir, share_dir = default_paths(REPO)
    cluster = LocalCluster(bin_dir, share_dir, workdir / "cluster", nodes=[], kuberay=False)
    cluster.start()
    return cluster


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.volcano_differential")
    p.add_argument("--scenarios", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--first", type=int, default=0, help="index of the first scenario")
    p.add_argument("--family", choices=sorted(FAMILIES), default="mixed",
                   help="mixed: random nodes, queues and gangs; weighted: two weighted "
                   "queues with competing gangs")  # fmt: skip
    p.add_argument("--json", type=Path, help="write every outcome and the summary here")
    p.add_argument("--workdir", type=Path, help="keep snapshots and job files here")
    p.add_argument("--replay", type=Path, metavar="JSON",
                   help="re-run the preflight on the scenarios of an earlier --json file "
                   "(Volcano's side as recorded)")  # fmt: skip
    args = p.parse_args(argv)
    if args.replay:
        outcomes = replay(args.replay)
        report(outcomes)
        _write(args.json, outcomes)
        return 0
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="raygang-differential-"))
    workdir.mkdir(parents=True, exist_ok=True)
    make = FAMILIES[args.family]
    scenarios = [make(args.seed, i) for i in range(args.first, args.first + args.scenarios)]
    cluster = start_cluster(workdir)
    try:
        outcomes = run_scenarios(cluster, scenarios, workdir, progress=True, json_file=args.json)
    finally:
        cluster.stop()
    report(outcomes)
    _write(args.json, outcomes)
    return 0


def _write(path: Path | None, outcomes: Sequence[Outcome]) -> None:
    if path is None:
        return
    body = {"summary": summary(outcomes), "outcomes": [
        {**asdict(o), "verdict_ok": o.verdict_ok, "phase_ok": o.phase_ok,
         "first_ok": o.first_ok} for o in outcomes]}  # fmt: skip
    path.write_text(json.dumps(body, indent=1))


def replay(path: Path) -> list[Outcome]:
    outcomes = []
    names = {f.name for f in fields(Outcome)}
    for item in json.loads(path.read_text())["outcomes"]:
        o = Outcome(**{k: v for k, v in item.items() if k in names})
        if o.files and not o.error:
            Runner.record(o, predict(Path(o.files[0]), Path(o.files[1])))
        outcomes.append(o)
    return outcomes


if __name__ == "__main__":
    sys.exit(main())
