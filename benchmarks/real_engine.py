"""``python -m benchmarks.real_engine``: the real Pulumi engine on a local control plane.

For each size N (default 1, 10, 100 small RayJobs) and on one cluster (etcd, kube-apiserver,
Volcano, KubeRay, kwok nodes; :mod:`raygang_localcluster`), four ways of creating the same
objects, one after the other, each cleaned away before the next:

* **raygang**: ``pulumi preview`` and ``pulumi up`` of a copy of this project, whose stack
  reads the jobs from a manifest file (``raygang:manifests``) and declares the queue;
* **bare**: a minimal Pulumi program registering the objects ``raygang plan --format yaml``
  renders from the same stack, with the ownerReferences raygang's component adds (each job's
  PodGroup, RayCluster and Job owned by its record ConfigMap, whose UID the program reads from
  the record it creates, as the component does; ``raygang plan --format json`` says which
  record owns what), as plain ``pulumi_kubernetes`` resources: ``core.v1.ConfigMap``,
  ``batch.v1.Job`` and ``apiextensions.CustomResource``, as the component does, but with no
  component, no planning and no other resource options. Each is registered with the
  ``depends_on`` raygang's component gives it (the plan's ``dependsOn``: the record after the
  Queue, the PodGroup after the record, the RayCluster after the PodGroup, the submitter Job
  after the RayCluster is ready), and a PodGroup reads its queue name from the Queue's ID, as
  raygang's does (Volcano's admission webhook refuses a PodGroup, even a dry run, whose queue
  does not exist). Until commit a5c7210 (2026-12-03, first run 14:11 UTC) bare's and
  kubectl's objects had no ownerReferences. Until 2026-12-03 (session 16, first run 17:04
  UTC) bare had no ``depends_on``: its submitter Jobs did not wait for their RayCluster, and
  its RayClusters read their group name from their PodGroup's ID, which made it unknown in a
  preview, so the provider skipped the server-side dry run of every RayCluster that raygang's
  preview makes (the API server's ``apiserver_request_total`` counted 100 RayCluster dry runs
  in raygang's preview of 100 jobs and none in bare's);
* **component**: the bare program with each job's objects registered under one plain
  ``pulumi.ComponentResource`` of the type and name raygang gives its component (no outputs,
  no planning), and the Queue under another, as raygang's program registers them. The issue
  asks for a component per job; raygang / component is then what raygang adds to it, and
  component / bare what the engine and the SDK charge for the component itself;
* **kubectl**: ``kubectl apply --server-side --dry-run=server`` (its "preview"; the PodGroups
  of a queue still to be created are left out, as Pulumi's preview skips them, and no
  ownerReferences: no record has a UID yet), then ``kubectl apply --server-side`` of the
  Queue and the records, ``kubectl wait`` for the Queue Open, one ``kubectl get`` of the
  records' UIDs, the rest but the submitter Jobs with their ownerReferences, ``kubectl wait``
  for what the Pulumi await annotations of the rendered objects wait for (every RayCluster
  ``status.state=ready``), then the submitter Jobs: the order raygang's ``up`` keeps (and
  KubeRay's operator, which creates the submitter once its cluster is ready), so it ends where
  raygang's ``up`` ends, reached in the same order. After each ``up`` every variant's objects
  are checked: the Queue Open, every RayCluster ready, every Job there, each owned object
  owned by its record's UID.

The Pulumi variants use the same CLI, language host, provider and default parallelism.
Their previews are timed ``--previews K`` times (3 by default), interleaved, the order swapped
every round, and the median counts, so that neither is always timed first, right after the
previous size's cleanup (one preview each, raygang first, read 1.25-1.30 in three runs on one
machine; interleaved, the medians at 100 jobs still moved between 1.03 and 1.47 from run to
run on that 2-core machine: benchmarks/RESULTS.md, 2026-12-03).
After each Pulumi variant's ``up``, its stack is previewed K times more as it now stands
(``--expect-no-changes``: what a pull request's ``pulumi preview`` costs when nothing changed),
one variant at a time, since the variants create the same objects.
Each ``up`` runs with ``--skip-preview``, so preview and up are timed apart, and writes the
engine's event log, from which :mod:`benchmarks.real_engine_timeline` says per kind how long
the create steps took and how many were in flight; the size of its state file after ``up``
is reported beside it. With ``--parallel N ...``, raygang's ``up`` of the largest size runs
again with each ``--parallel N``; with ``--skip-checkpoints``, again with
``PULUMI_SKIP_CHECKPOINTS=true`` (the engine then writes the state once, at the end, instead
of the whole file before and after every step), at the default and at each ``--parallel N``,
and bare's ``up`` with it at the default (raygang / bare without the state's rewrites);
``--variants`` runs only some of the four (``--sizes 100 --variants raygang kubectl
--parallel 32`` is one iteration on raygang's ``up``, its ratio to kubectl measured in the
same run). In the same run, ``raygang plan --cluster`` of 100 jobs against a 500-node snapshot
(:mod:`benchmarks.preflight`) is timed against the real ``pulumi preview`` of 100 jobs.
Times are one run each (an ``up`` of 100 jobs is minutes long): the ratios are what travels
between machines, the seconds are this machine's. Nothing is asserted; the targets are
reported met or MISSED.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, TextIO

import yaml
from raygang_localcluster import (
    LocalCluster,
    LocalPulumi,
    NodeShape,
    copy_project,
    default_paths,
    local_pulumi,
    wait_until,
)

from benchmarks.measure import byte_compile, format_seconds, load_average, machine_info
from benchmarks.preflight import PREFLIGHT_JOBS, PreflightResult, run_preflight_plan
from benchmarks.real_engine_timeline import Timeline, read_timeline

__all__ = ["BENCH_NODES", "NAMESPACE", "QUEUE", "SizeResult", "main", "run", "small_rayjob"]

REPO = Path(__file__).resolve().parents[1]
NAMESPACE = "raygang-bench"
QUEUE = "raygang-bench"
IMAGE = "rayproject/ray:2.52.0"
FIELD_MANAGER = "raygang-bench"
VARIANTS = ("raygang", "component", "bare", "kubectl")
# The ratios reported, (numerator, denominator): raygang / component is what raygang adds to a
# plain component per job; component / bare what Pulumi charges for the component itself.
RATIOS = (("raygang", "bare"), ("raygang", "kubectl"), ("raygang", "component"),
          ("component", "bare"))  # fmt: skip
# Those of the Pulumi variants: the preview of an unchanged stack has no kubectl counterpart.
PULUMI_RATIOS = tuple(r for r in RATIOS if "kubectl" not in r)
# 100 jobs of 2-3 Ray pods and a submitter pod each fit on these with room to spare.
BENCH_NODES = tuple(
    NodeShape(f"bench-node-{i}", cpu="64", memory="256Gi", pods=500) for i in range(4)
)
READY_TIMEOUT_S = 1800.0
# name: (limit, what the value is), at the largest size run (100 jobs by default).
TARGETS: dict[str, tuple[float, str]] = {
    "preview-raygang/bare": (1.1, "pulumi preview, raygang / the same objects registered bare"),
    "up-raygang/bare": (1.1, "pulumi up, raygang / the same objects registered bare"),
    "up-raygang/kubectl": (2.0, "pulumi up, raygang / kubectl apply --server-side + wait"),
    "plan-preflight/preview": (
        0.25,
        f"raygang plan --cluster ({PREFLIGHT_JOBS} jobs, 500-node snapshot) / raygang's "
        "pulumi preview of the same number of jobs",
    ),
}
GONE_TIMEOUT_S = 600.0
# With a DIY backend (this benchmark's file:// state) the engine writes the whole state before
# and after every step, one write at a time, each growing with the stack: O(N^2) bytes for an
# `up` of N jobs (pulumi pkg/v3 backend/snapshot.go, defaultServiceLoop). Set, it keeps the
# state in memory and writes it once at the end (unsafeServiceLoop); Pulumi Cloud sends
# deltas (journaling) instead.
SKIP_CHECKPOINTS = {"PULUMI_SKIP_CHECKPOINTS": "true"}
SKIP_CHECKPOINTS_TEXT = " ".join(f"{k}={v}" for k, v in SKIP_CHECKPOINTS.items())

WAITS = {
    "raygang": "Queue Open, every RayCluster ready (pulumi.com/waitFor), then the submitter "
    "Job (depends_on the RayCluster; awaited until it exists)",
    "bare": "the same annotations on the same objects: Queue Open, RayClusters ready; the "
    "same depends_on (the plan's dependsOn: the submitter Job after its RayCluster), the "
    "PodGroups read their queue from the Queue's ID (as raygang's do), and the owned objects "
    "their record's UID from the record",
    "component": "what bare's up waits for, with each job's objects registered under one plain "
    "ComponentResource (no outputs) of raygang's type and name, the Queue under another",
    "kubectl": "apply the Queue and the records, `kubectl wait` for the Queue Open (Volcano's "
    "webhook refuses PodGroups in a queue that is not), read the records' UIDs, apply the "
    "rest but the submitter Jobs, `kubectl wait` for every RayCluster ready, then apply the "
    "Jobs (as raygang and KubeRay order them)",
}
PREVIEWS = {
    "raygang": "pulumi preview (the program, then the provider checks each object)",
    "bare": "pulumi preview",
    "component": "pulumi preview",
    "kubectl": "kubectl apply --server-side --dry-run=server of every object but the "
    "PodGroups in the queue still to be created (which Pulumi does not dry-run either)",
}

# The bare program: every object of the rendered plan as one plain resource, no component.
BARE_PROGRAM = '''\
"""Bare pulumi_kubernetes resources: the objects of a rendered raygang plan, one each; with
``components`` set, each job's under one plain ComponentResource, as raygang's component."""

import json
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.apiextensions import CustomResource

config = pulumi.Config()
# Each object with the (kind, namespace, name) of those it depends on, from the plan, and
# the (type, name) of the raygang component that registers it.
entries = json.loads(Path(config.require("objects")).read_text())
objects = {}
for entry in entries:
    meta = entry["object"]["metadata"]
    objects[entry["object"]["kind"], meta.get("namespace"), meta["name"]] = entry
made = {}
# The "component" variant: each job's objects (and the Queue) under one plain component.
components = {} if config.get_bool("components") else None


def parent(entry):
    """The plain component ``entry``'s object is registered under, if components are on."""
    if components is None or entry["component"] is None:
        return None
    key = tuple(entry["component"])
    if key not in components:
        components[key] = pulumi.ComponentResource(*key)
        components[key].register_outputs({})
    return components[key]


def make(key):
    """The resource of the object ``key``, registered after those it depends on."""
    if key in made:
        return made[key]
    entry = objects[key]
    after = [make(tuple(d)) for d in entry["dependsOn"]]
    obj = entry["object"]
    meta, spec = owned(obj["metadata"]), obj.get("spec")
    kind, namespace = obj["kind"], meta.get("namespace")
    name = f"{kind}-{namespace or 'cluster'}-{meta['name']}".lower()
    opts = pulumi.ResourceOptions(depends_on=after, parent=parent(entry))
    if obj["apiVersion"] == "v1" and kind == "ConfigMap":
        made[key] = k8s.core.v1.ConfigMap(name, metadata=meta, data=obj.get("data"), opts=opts)
    elif obj["apiVersion"] == "batch/v1" and kind == "Job":
        made[key] = k8s.batch.v1.Job(name, metadata=meta, spec=spec, opts=opts)
    else:
        if kind == "PodGroup" and ("Queue", None, spec["queue"]) in objects:
            # As raygang does: the queue read from the Queue's ID, so the provider skips the
            # dry run Volcano's webhook refuses while the Queue does not exist.
            queue = make(("Queue", None, spec["queue"]))
            spec = {**spec, "queue": queue.id.apply(lambda _, q=spec["queue"]: q)}
        made[key] = CustomResource(
            name, api_version=obj["apiVersion"], kind=kind, metadata=meta, spec=spec, opts=opts
        )
    return made[key]


def owned(meta):
    """``meta`` with the UID of each owner (a record ConfigMap this program creates) filled
    in from its outputs, as raygang's component does."""
    refs = meta.get("ownerReferences")
    if not refs:
        return meta
    uids = [make((r["kind"], meta.get("namespace"), r["name"])).metadata.apply(lambda m: m.uid)
            for r in refs]
    return {**meta, "ownerReferences": [{**r, "uid": u} for r, u in zip(refs, uids)]}


for key in objects:
    make(key)
'''


def small_rayjob(index: int, namespace: str = NAMESPACE, queue: str = QUEUE) -> dict[str, Any]:
    """A tiny RayJob: one head and one or two workers of 100m/128Mi, a 100m submitter."""
    resources = {
        "requests": {"cpu": "100m", "memory": "128Mi"},
        "limits": {"cpu": "100m", "memory": "128Mi"},
    }
    workers = 1 + index % 2

    def template(name: str) -> dict[str, Any]:
        return {"spec": {"containers": [{"name": name, "image": IMAGE, "resources": resources}]}}

    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {
            "name": f"bench-{index:04d}",
            "namespace": namespace,
            "labels": {"volcano.sh/queue-name": queue},
        },
        "spec": {
            "entrypoint": f"python -c 'print({index})'",
            "shutdownAfterJobFinishes": True,
            "ttlSecondsAfterFinished": 3600,
            "submitterPodTemplate": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {"name": "ray-job-submitter", "image": IMAGE, "resources": resources}
                    ],
                }
            },
            "rayClusterSpec": {
                "rayVersion": "2.52.0",
                "enableInTreeAutoscaling": False,
                "headGroupSpec": {"rayStartParams": {}, "template": template("ray-head")},
                "workerGroupSpecs": [
                    {
                        "groupName": "workers",
                        "replicas": workers,
                        "minReplicas": workers,
                        "maxReplicas": workers,
                        "rayStartParams": {},
                        "template": template("ray-worker"),
                    }
                ],
            },
        },
    }


def _stack_config(manifest: str, nodes: Sequence[NodeShape]) -> dict[str, Any]:
    shapes = [
        {"name": f"{s.cpu}x{s.memory}", "allocatable": {"cpu": s.cpu, "memory": s.memory}}
        for s in {(n.cpu, n.memory): n for n in nodes}.values()
    ]
    return {
        "config": {
            "raygang:manifests": [manifest],
            "raygang:waitForCompletion": False,
            "raygang:nodeShapes": shapes,
            "raygang:queues": [
                {
                    "name": QUEUE,
                    "spec": {
                        "weight": 1,
                        "reclaimable": True,
                        "capability": {"cpu": "1000", "memory": "4Ti"},
                    },
                }
            ],
        }
    }


@dataclass
class VariantResult:
    """One way of creating the objects of one size."""

    variant: str
    preview_seconds: float
    up_seconds: float
    cleanup_seconds: float
    preview: str
    waits_for: str
    timeline: Timeline | None = None
    #: The stack's state file after ``up`` (the Pulumi variants), in bytes.
    state_bytes: int | None = None
    #: Every timed preview, in the order taken; ``preview_seconds`` is their median.
    preview_samples: tuple[float, ...] = ()
    #: Previews of the stack after its ``up``, finding nothing to change (the pull-request
    #: case), in the order taken.
    unchanged_samples: tuple[float, ...] = ()

    @property
    def unchanged_seconds(self) -> float | None:
        """The median of :attr:`unchanged_samples`; None when none was taken."""
        return statistics.median(self.unchanged_samples) if self.unchanged_samples else None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {**asdict(self), "unchanged_seconds": self.unchanged_seconds}


@dataclass
class SizeResult:
    """Every variant at one size."""

    jobs: int
    objects: int
    kinds: dict[str, int]
    variants: dict[str, VariantResult] = field(default_factory=dict)
    parallel: dict[int, VariantResult] = field(default_factory=dict)
    #: raygang's ``up`` again with PULUMI_SKIP_CHECKPOINTS=true, by ``--parallel`` (0: default).
    skip_checkpoints: dict[int, VariantResult] = field(default_factory=dict)
    #: bare's ``up`` again with PULUMI_SKIP_CHECKPOINTS=true (default ``--parallel``): beside
    #: raygang's, what the two programs cost without the state's rewrites, which grow with
    #: each one's state file.
    bare_skip_checkpoints: VariantResult | None = None

    def ratio(self, phase: str, other: str, ours_name: str = "raygang") -> float | None:
        """``ours_name``'s time (raygang's) over ``other``'s for ``phase`` (``preview``,
        ``up`` or ``unchanged``: the preview after ``up``)."""
        ours, theirs = self.variants.get(ours_name), self.variants.get(other)
        if ours is None or theirs is None:
            return None
        a, b = getattr(ours, f"{phase}_seconds"), getattr(theirs, f"{phase}_seconds")
        return a / b if a is not None and b is not None and b > 0 else None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "jobs": self.jobs,
            "objects": self.objects,
            "kinds": self.kinds,
            "variants": {k: v.as_dict() for k, v in self.variants.items()},
            "raygang_up_with_parallel": {str(k): v.as_dict() for k, v in self.parallel.items()},
            "raygang_up_skip_checkpoints": {
                str(k): v.as_dict() for k, v in self.skip_checkpoints.items()
            },
            "bare_up_skip_checkpoints": (
                self.bare_skip_checkpoints.as_dict() if self.bare_skip_checkpoints else None
            ),
            "ratios": {
                **{
                    f"{phase}_{ours}_over_{other}": self.ratio(phase, other, ours)
                    for phase in ("preview", "up")
                    for ours, other in RATIOS
                },
                **{
                    f"unchanged_{ours}_over_{other}": self.ratio("unchanged", other, ours)
                    for ours, other in PULUMI_RATIOS
                },
            },
        }


# A job's record: the object raygang's component makes every other object of the job owned
# by (ownerReferences, as a RayJob owns its RayCluster and submitter), once it has a UID.
RECORD_KIND = "ConfigMap"


def owner_reference(record: str, uid: str | None) -> dict[str, Any]:
    """The ownerReference raygang's component gives an object its job record ``record``
    owns (``uid`` None until the record exists); every variant's objects carry it. The
    benchmark uses only raygang's public surface, so this is written here too; after every
    ``up`` :meth:`Bench._check_ready` compares it with raygang's own objects, so the two
    cannot drift apart unseen."""
    return {
        "apiVersion": "v1",
        "kind": RECORD_KIND,
        "name": record,
        "uid": uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }


Key = tuple[str, str | None, str]  # (kind, namespace, name); a Queue has no namespace


def owners(document: Mapping[str, Any]) -> dict[Key, str]:
    """``(kind, namespace, name)`` of each object a job record owns, and its record's name,
    from ``raygang plan --format json``: a job's record is the ConfigMap named as the job, in
    its namespace; it owns the job's other objects but its companions and its Queue."""
    owned: dict[Key, str] = {}
    for job in document["jobs"]:
        name, namespace = job["name"], job["namespace"]
        rows = [r for r in job["resources"] if not r.get("companion") and r["kind"] != "Queue"]
        record = (RECORD_KIND, namespace, name)
        if record not in {(r["kind"], r["namespace"], r["name"]) for r in rows}:
            raise RuntimeError(f"the plan of {namespace}/{name} has no record ConfigMap")
        for r in rows:
            key = (r["kind"], r["namespace"], r["name"])
            if key != record:
                owned[key] = name
    return owned


def dependencies(document: Mapping[str, Any]) -> dict[Key, tuple[Key, ...]]:
    """What each object of ``raygang plan --format json`` depends on (its ``dependsOn``):
    the order raygang's component registers them in (``depends_on``), which the bare program
    keeps: the record after the Queue, the PodGroup after the record, the RayCluster after the
    PodGroup, the submitter Job after the RayCluster (ready). As the component, a reference
    to an object the stack does not create (a Queue it only names) orders nothing."""
    depends: dict[Key, tuple[Key, ...]] = {}
    for job in document["jobs"]:
        rows = {f"{r['kind']}/{r['name']}": (r["kind"], r["namespace"], r["name"])
                for r in job["resources"]}  # fmt: skip
        for r in job["resources"]:
            after = tuple(rows[ref] for ref in r["dependsOn"] if ref in rows)
            depends[r["kind"], r["namespace"], r["name"]] = after
    return depends


@dataclass(frozen=True)
class Rendered:
    """The objects ``raygang plan --format yaml`` renders for one size, and which job record
    owns which of them (raygang's component adds those ownerReferences once each record has
    a UID), as the YAML texts kubectl applies and the objects the bare program registers."""

    objects: list[dict[str, Any]]
    owned: dict[Key, str]  # (kind, namespace, name) -> its record's name
    depends: dict[Key, tuple[Key, ...]]  # what each object depends on (:func:`dependencies`)

    @classmethod
    def of(cls, objects: list[dict[str, Any]], document: Mapping[str, Any]) -> Rendered:
        """``objects`` (the YAML plan) and ``document`` (the JSON plan) of one stack."""
        return cls(objects, owners(document), dependencies(document))

    def with_owner(self, obj: dict[str, Any], uids: Mapping[str, str | None]) -> dict[str, Any]:
        """``obj`` with the ownerReference to its record, if one owns it (``uids``: each
        record's UID by name)."""
        record = self.owned.get(_key(obj))
        if record is None:
            return obj
        meta = {**obj["metadata"], "ownerReferences": [owner_reference(record, uids[record])]}
        return {**obj, "metadata": meta}

    def _is_record(self, obj: Mapping[str, Any]) -> bool:
        kind, namespace, name = _key(obj)
        return (
            kind == RECORD_KIND
            and (RECORD_KIND, namespace, name) not in self.owned
            and any(key[1] == namespace and record == name for key, record in self.owned.items())
        )

    def _text(
        self, keep: Callable[[dict[str, Any]], bool], uids: Mapping[str, str] | None = None
    ) -> str:
        items = [o for o in self.objects if keep(o)]
        if uids is not None:
            items = [self.with_owner(o, uids) for o in items]
        return yaml.safe_dump_all(items, sort_keys=False)

    def first(self) -> str:
        """The Queues the stack creates and the job records: they need nothing made before."""
        return self._text(lambda o: o["kind"] == "Queue" or self._is_record(o))

    def others(self, uids: Mapping[str, str] | None = None) -> str:
        """Everything else but the submitter Jobs."""
        return self._text(
            lambda o: not (o["kind"] == "Queue" or self._is_record(o) or _is_job(o)), uids
        )

    def jobs(self, uids: Mapping[str, str] | None = None) -> str:
        """The submitter Jobs, created once their RayCluster is ready."""
        return self._text(_is_job, uids)

    def dry_run(self) -> str:
        """What can be dry-run before the Queues exist: not the PodGroups of a queue still to
        be created; no ownerReferences (no record has a UID yet)."""
        names = {o["metadata"]["name"] for o in self.objects if o["kind"] == "Queue"}
        return self._text(
            lambda o: not (o["kind"] == "PodGroup" and o["spec"].get("queue") in names)
        )

    def for_bare(self) -> list[dict[str, Any]]:
        """Every object (the owned ones with their ownerReference, whose UID, None here, the
        bare program reads from the record it creates), each with what it depends on and the
        (type, name) of the raygang component that registers it (:func:`component_of`)."""
        uids = dict.fromkeys(self.owned.values())
        return [
            {
                "object": self.with_owner(o, uids),
                "dependsOn": self.depends.get(_key(o), ()),
                "component": self.component_of(o),
            }
            for o in self.objects
        ]

    def component_of(self, obj: Mapping[str, Any]) -> tuple[str, str] | None:
        """The type and name of the component raygang's program registers ``obj`` under: its
        job's ``RayJobGang`` (``<namespace>/<job>``), a Queue's ``VolcanoQueue``; None for
        a companion."""
        kind, namespace, name = _key(obj)
        if kind == "Queue":
            return ("raygang:index:VolcanoQueue", name)
        record = name if self._is_record(obj) else self.owned.get((kind, namespace, name))
        return None if record is None else ("raygang:index:RayJobGang", f"{namespace}/{record}")


def _key(obj: Mapping[str, Any]) -> Key:
    meta = obj["metadata"]
    return (obj["kind"], meta.get("namespace"), meta["name"])


def _is_job(obj: Mapping[str, Any]) -> bool:
    return bool(obj["apiVersion"] == "batch/v1" and obj["kind"] == "Job")


def state_file_bytes(backend_url: str, project: str, stack: str) -> int | None:
    """The size of ``stack``'s state file in a ``file://`` backend, if there is one.

    The DIY backend keeps it at ``.pulumi/stacks/<project>/<stack>.json`` (``.gz`` or
    ``.zst`` when compressed), or ``.pulumi/stacks/<stack>.json`` in a legacy backend.
    """
    if not backend_url.startswith("file://"):
        return None
    stacks = Path(backend_url.removeprefix("file://")) / ".pulumi" / "stacks"
    for base in (stacks / project / stack, stacks / stack):
        for suffix in (".json", ".json.gz", ".json.zst"):
            path = base.with_name(base.name + suffix)
            if path.is_file():
                return path.stat().st_size
    return None


def _timed(func: Callable[[], object]) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


class Bench:
    """The projects, stacks and cluster of one run."""

    def __init__(
        self, cluster: LocalCluster, bin_dir: Path, workdir: Path, out: Callable[[str], None]
    ) -> None:
        self.cluster = cluster
        self.bin_dir = bin_dir
        self.workdir = workdir
        self.say = out
        self.raygang_dir = copy_project(REPO, workdir / "raygang-project")
        # The bare program twice: as it is, and with a plain component per job ("component").
        self.bare_dir = workdir / "bare-project"
        self.component_dir = workdir / "component-project"
        venv = (REPO / ".venv").resolve()
        for directory in (self.bare_dir, self.component_dir):
            directory.mkdir(parents=True, exist_ok=True)
            (directory / "Pulumi.yaml").write_text(
                yaml.safe_dump(
                    {
                        "name": f"raygang-bench-{directory.name.removesuffix('-project')}",
                        "runtime": {"name": "python", "options": {"virtualenv": str(venv)}},
                    },
                    sort_keys=False,
                )
            )
            (directory / "__main__.py").write_text(BARE_PROGRAM)
        self.raygang: LocalPulumi | None = None
        self.bare: LocalPulumi | None = None
        self.component: LocalPulumi | None = None
        self.rendered: dict[int, Rendered] = {}

    # -- set-up ------------------------------------------------------------------------

    def prepare(self, sizes: Sequence[int]) -> dict[int, Rendered]:
        """Write each size's manifest and stack files, render the plan, init the stacks."""
        self.cluster.kubectl("create", "namespace", NAMESPACE, check=False)
        wait_until(
            lambda: self._ok("get", "serviceaccount", "default", "-n", NAMESPACE),
            60,
            f"the default ServiceAccount of {NAMESPACE}",
        )
        rendered = self.rendered
        (self.raygang_dir / "bench").mkdir(exist_ok=True)
        for n in sizes:
            manifest = f"bench/jobs-{n}.yaml"
            (self.raygang_dir / manifest).write_text(
                yaml.safe_dump_all([small_rayjob(i) for i in range(n)], sort_keys=False)
            )
            stack = f"bench-n{n}"
            config = _stack_config(manifest, self.cluster.nodes)
            (self.raygang_dir / "stacks" / f"Pulumi.{stack}.yaml").write_text(
                yaml.safe_dump(config, sort_keys=False)
            )
            objects = [d for d in yaml.safe_load_all(self._plan(stack, "yaml")) if d]
            rendered[n] = Rendered.of(objects, json.loads(self._plan(stack, "json")))
            (self.workdir / f"rendered-{n}.yaml").write_text(
                yaml.safe_dump_all(objects, sort_keys=False)
            )
            objects_file = self.bare_dir / f"objects-{n}.json"
            objects_file.write_text(json.dumps(rendered[n].for_bare()))
            for project, components in (("bare", False), ("component", True)):
                config = {f"raygang-bench-{project}:objects": str(objects_file)}
                if components:
                    config[f"raygang-bench-{project}:components"] = "true"
                (self.workdir / f"{project}-project" / f"Pulumi.{stack}.yaml").write_text(
                    yaml.safe_dump({"config": config})
                )
        stacks = [f"bench-n{n}" for n in sizes]
        self.raygang, self.bare, self.component = (
            local_pulumi(self.bin_dir, self.cluster.kubeconfig, d, self.workdir, stacks)
            for d in (self.raygang_dir, self.bare_dir, self.component_dir)
        )
        for pulumi in (self.raygang, self.bare, self.component):
            # `--event-log` is a debug flag: the CLI offers it only with this set.
            pulumi.env["PULUMI_DEBUG_COMMANDS"] = "true"
            # Untimed: the first run of each program pays for cold caches (the language
            # host, the provider binary, Python's imports); the smallest stack warms them.
            pulumi.run("preview", "--stack", f"bench-n{min(sizes)}")
        self._kubectl_apply(rendered[min(sizes)].dry_run(), dry_run=True)
        return rendered

    def _plan(self, stack: str, form: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "raygang", "plan", "--format", form, "--stack", stack,
             "--project-dir", str(self.raygang_dir)],
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"raygang plan --stack {stack} failed:\n{done.stderr}")
        return done.stdout

    # -- the variants ------------------------------------------------------------------

    def run_size(
        self, n: int, rendered: Rendered, variants: Sequence[str] = VARIANTS, previews: int = 3
    ) -> SizeResult:
        objects = rendered.objects
        kinds: dict[str, int] = {}
        for obj in objects:
            kinds[obj["kind"]] = kinds.get(obj["kind"], 0) + 1
        result = SizeResult(jobs=n, objects=len(objects), kinds=kinds)
        assert self.raygang and self.bare and self.component
        pulumis = [(v, p) for v, p in (("raygang", self.raygang), ("component", self.component),
                                       ("bare", self.bare)) if v in variants]  # fmt: skip
        samples = self._previews(n, pulumis, previews)
        for variant, pulumi in pulumis:
            self.say(f"  N={n} {variant}: up, destroy ...")
            preview = statistics.median(samples[variant])
            made = self._up(variant, pulumi, n, preview, (), unchanged=previews)
            result.variants[variant] = replace(made, preview_samples=tuple(samples[variant]))

        def apply() -> None:
            self._kubectl_apply(rendered.first(), dry_run=False)
            self._kubectl_wait_queue()
            # The records' UIDs, for the ownerReferences of what each owns.
            uids = self._record_uids()
            self._kubectl_apply(rendered.others(uids), dry_run=False)
            self._kubectl_wait_clusters()
            self._kubectl_apply(rendered.jobs(uids), dry_run=False)

        def delete() -> None:
            # The Queue last: Volcano's webhook refuses deleting a queue that holds PodGroups.
            self._kubectl_delete(rendered.jobs())
            self._kubectl_delete(rendered.others())
            self._kubectl_delete(rendered.first())
            self._wait_gone()

        if "kubectl" not in variants:
            return result
        self.say(f"  N={n} kubectl: dry run, apply + wait, delete ...")
        preview = _timed(lambda: self._kubectl_apply(rendered.dry_run(), dry_run=True))
        up = _timed(apply)
        self._check_ready(n)
        result.variants["kubectl"] = self._done(
            VariantResult(
                "kubectl", preview, up, _timed(delete), PREVIEWS["kubectl"], WAITS["kubectl"]
            )
        )
        return result

    def _previews(
        self, n: int, pulumis: Sequence[tuple[str, LocalPulumi]], rounds: int
    ) -> dict[str, list[float]]:
        """``pulumi preview`` of each Pulumi variant ``rounds`` times, interleaved, the order
        swapped every round, so that neither is always the one timed first after the previous
        size's cleanup, while the controllers still settle."""
        stack = f"bench-n{n}"
        samples: dict[str, list[float]] = {v: [] for v, _ in pulumis}
        self.say(f"  N={n} preview x {rounds}, interleaved: {', '.join(samples)} ...")
        for index in range(rounds):
            order = pulumis if index % 2 == 0 else list(reversed(pulumis))
            for variant, pulumi in order:
                samples[variant].append(_timed(partial(pulumi.run, "preview", "--stack", stack)))
        for variant, taken in samples.items():
            shown = ", ".join(format_seconds(t) for t in taken)
            self.say(
                f"    {variant} preview {shown}: median {format_seconds(statistics.median(taken))}"
            )
        return samples

    def run_parallel(
        self, result: SizeResult, parallel: Sequence[int], skip_checkpoints: bool = False
    ) -> None:
        """raygang's ``up`` of ``result``'s size again with each ``--parallel N``; with
        ``skip_checkpoints``, again with PULUMI_SKIP_CHECKPOINTS=true at the default and at
        each ``--parallel N``, and bare's ``up`` (if it ran) with it at the default."""
        assert self.raygang is not None
        preview = result.variants["raygang"].preview_seconds
        for slots in parallel:
            self.say(f"  N={result.jobs} raygang --parallel {slots}: up, destroy ...")
            result.parallel[slots] = self._up(
                "raygang", self.raygang, result.jobs, preview, ("--parallel", str(slots))
            )
        if not skip_checkpoints:
            return
        skipping = LocalPulumi(self.raygang.project, {**self.raygang.env, **SKIP_CHECKPOINTS})
        for slots in (0, *parallel):
            extra = ("--parallel", str(slots)) if slots else ()
            what = " ".join(["raygang", SKIP_CHECKPOINTS_TEXT, *extra])
            self.say(f"  N={result.jobs} {what}: up, destroy ...")
            result.skip_checkpoints[slots] = self._up(
                "raygang", skipping, result.jobs, preview, extra, "-skip-checkpoints"
            )
        bare = result.variants.get("bare")
        if bare is None or self.bare is None:
            return
        self.say(f"  N={result.jobs} bare {SKIP_CHECKPOINTS_TEXT}: up, destroy ...")
        result.bare_skip_checkpoints = self._up(
            "bare",
            LocalPulumi(self.bare.project, {**self.bare.env, **SKIP_CHECKPOINTS}),
            result.jobs,
            bare.preview_seconds,
            (),
            "-skip-checkpoints",
        )

    def _up(
        self,
        variant: str,
        pulumi: LocalPulumi,
        n: int,
        preview: float,
        extra: Sequence[str],
        tag: str = "",
        unchanged: int = 0,
    ) -> VariantResult:
        """``up`` (its event log kept), the state checked, ``unchanged`` previews of the
        stack as it now is, then ``destroy`` until gone."""
        stack = f"bench-n{n}"
        log = self.workdir / f"events-{variant}-{n}{''.join(extra).replace('--', '-')}{tag}.jsonl"
        log.unlink(missing_ok=True)
        up = _timed(
            partial(
                pulumi.run, "up", "--yes", "--skip-preview", "--stack", stack,
                "--event-log", str(log), *extra,
            )
        )  # fmt: skip
        self._check_ready(n)
        # The pull-request case: a preview of the stack as deployed, with nothing to change
        # (--expect-no-changes fails the run when it finds something). One variant at a time,
        # not interleaved: the variants create the same objects, so only one is up at once.
        again = tuple(
            _timed(partial(pulumi.run, "preview", "--expect-no-changes", "--stack", stack))
            for _ in range(unchanged)
        )
        project = yaml.safe_load((pulumi.project / "Pulumi.yaml").read_text())["name"]
        state = state_file_bytes(pulumi.env.get("PULUMI_BACKEND_URL", ""), project, stack)

        def destroy() -> None:
            pulumi.run("destroy", "--yes", "--skip-preview", "--stack", stack)
            self._wait_gone()

        timeline = read_timeline(log) if log.is_file() else None
        return self._done(
            VariantResult(
                variant,
                preview,
                up,
                _timed(destroy),
                PREVIEWS[variant],
                WAITS[variant],
                timeline,
                state,
                unchanged_samples=again,
            )
        )

    def _done(self, v: VariantResult) -> VariantResult:
        again = ", ".join(format_seconds(t) for t in v.unchanged_samples)
        self.say(
            f"    preview {format_seconds(v.preview_seconds)}, up {format_seconds(v.up_seconds)}, "
            + (f"unchanged preview {again}, " if again else "")
            + f"cleanup {format_seconds(v.cleanup_seconds)} (load {_load(load_average())})"
        )
        return v

    def _kubectl_apply(self, text: str, dry_run: bool) -> None:
        args = ["apply", "--server-side", f"--field-manager={FIELD_MANAGER}", "-f", "-"]
        if dry_run:
            args.append("--dry-run=server")
        self.cluster.kubectl(*args, input=text, timeout=600)

    def _kubectl_wait_queue(self) -> None:
        timeout = f"--timeout={int(READY_TIMEOUT_S)}s"
        self.cluster.kubectl(
            "wait", "--for=jsonpath={.status.state}=Open", f"queues.scheduling.volcano.sh/{QUEUE}",
            timeout, timeout=READY_TIMEOUT_S + 30,
        )  # fmt: skip

    def _kubectl_wait_clusters(self) -> None:
        timeout = f"--timeout={int(READY_TIMEOUT_S)}s"
        self.cluster.kubectl(
            "wait", "--for=jsonpath={.status.state}=ready", "rayclusters.ray.io", "--all",
            "-n", NAMESPACE, timeout, timeout=READY_TIMEOUT_S + 30,
        )  # fmt: skip

    def _kubectl_delete(self, text: str) -> None:
        self.cluster.kubectl(
            "delete", "--ignore-not-found", "--wait=true", "-f", "-", input=text, timeout=600
        )

    # -- checks (untimed) --------------------------------------------------------------

    def _ok(self, *args: str) -> bool:
        return self.cluster.kubectl(*args, check=False).returncode == 0

    def _check_ready(self, n: int) -> None:
        """Every variant must leave the same state: the Queue Open, N RayClusters ready, N
        submitter Jobs, and each object a record owns owned by that record (its UID)."""
        queue = self.cluster.get("queues.scheduling.volcano.sh", QUEUE)
        state = queue.get("status", {}).get("state")
        items = self.cluster.get("rayclusters.ray.io", "-n", NAMESPACE)["items"]
        ready = [i for i in items if i.get("status", {}).get("state") == "ready"]
        jobs = self.cluster.get("jobs.batch", "-n", NAMESPACE)["items"]
        if state != "Open" or len(ready) != n or len(jobs) != n:
            raise RuntimeError(
                f"after up: queue {state!r}, {len(ready)}/{n} RayClusters ready, "
                f"{len(jobs)}/{n} submitter Jobs"
            )
        rendered = self.rendered[n]
        uids = self._record_uids()
        kinds = "podgroups.scheduling.volcano.sh,rayclusters.ray.io,jobs.batch,configmaps"
        for item in self.cluster.get(kinds, "-n", NAMESPACE)["items"]:
            record = rendered.owned.get(_key(item))
            want = [owner_reference(record, uids.get(record))] if record else None
            if item["metadata"].get("ownerReferences") != want:
                raise RuntimeError(
                    f"after up: {'/'.join(filter(None, _key(item)))} has ownerReferences "
                    f"{item['metadata'].get('ownerReferences')}, not {want}"
                )

    def _record_uids(self) -> dict[str, str]:
        """Each job record's UID, by name (the records are raygang's ConfigMaps)."""
        listed = self.cluster.get(
            "configmaps", "-n", NAMESPACE, "-l", "app.kubernetes.io/managed-by=raygang"
        )
        return {i["metadata"]["name"]: i["metadata"]["uid"] for i in listed["items"]}

    def _leftovers(self) -> list[str]:
        kinds = "rayclusters.ray.io,podgroups.scheduling.volcano.sh,jobs.batch,pods,services"
        done = self.cluster.kubectl("get", kinds, "-n", NAMESPACE, "-o", "name")
        left = done.stdout.split()
        done = self.cluster.kubectl(
            "get", "configmaps", "-n", NAMESPACE, "-l", "app.kubernetes.io/managed-by=raygang",
            "-o", "name",
        )  # fmt: skip
        left += done.stdout.split()
        if self._ok("get", "queues.scheduling.volcano.sh", QUEUE):
            left.append(f"queue/{QUEUE}")
        return left

    def _wait_gone(self) -> None:
        wait_until(lambda: not self._leftovers(), GONE_TIMEOUT_S, "cleanup", interval=1.0)


# -- report -------------------------------------------------------------------------------


def _load(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, float) else "n/a"


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _table(rows: Sequence[Sequence[str]], out: Callable[[str], None]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out(("  " + "  ".join(c.ljust(widths[i]) for i, c in enumerate(row))).rstrip())


def targets(
    results: Sequence[SizeResult], preflight: PreflightResult | None
) -> list[tuple[str, float | None, str]]:
    """Each target's value at the largest size run, with what it was measured on."""
    if not results:
        return [(name, None, "nothing ran") for name in TARGETS]
    last = results[-1]
    at = f"{last.jobs} jobs"
    ours = last.variants.get("raygang")
    plan: tuple[float | None, str] = (None, "not measured")
    if preflight is not None and ours is not None:
        plan = (
            preflight.seconds / ours.preview_seconds,
            f"plan {format_seconds(preflight.seconds)} ({preflight.jobs} jobs x "
            f"{preflight.nodes} nodes) / preview {format_seconds(ours.preview_seconds)} "
            f"({at})",
        )
    return [
        ("preview-raygang/bare", last.ratio("preview", "bare"), at),
        ("up-raygang/bare", last.ratio("up", "bare"), at),
        ("up-raygang/kubectl", last.ratio("up", "kubectl"), at),
        ("plan-preflight/preview", *plan),
    ]


def _megabytes(size: int | None) -> str:
    return "n/a" if size is None else f"{size / 1e6:.2f} MB"


def _timeline(name: str, variant: VariantResult, out: Callable[[str], None]) -> None:
    timeline = variant.timeline
    if timeline is None:
        return
    # The size the engine rewrote before and after every step (unless checkpoints are skipped).
    state = (
        f", state file {_megabytes(variant.state_bytes)} after up"
        if variant.state_bytes is not None
        else ""
    )
    out(
        f"  {name}: {format_seconds(timeline.seconds)} of events, at most "
        f"{timeline.max_in_flight} steps in flight{state}"
    )
    rows = [["    kind", "steps", "median", "longest", "first start", "last end"]]
    for k in timeline.kinds:
        rows.append(
            [
                "    " + k.kind.rsplit(":", 1)[-1],
                str(k.count),
                format_seconds(k.median_seconds),
                format_seconds(k.max_seconds),
                format_seconds(k.first_start),
                format_seconds(k.last_end),
            ]
        )
    _table(rows, out)


def _unchanged(results: Sequence[SizeResult], out: Callable[[str], None]) -> None:
    """The previews of each stack after its ``up`` (nothing to change): medians and ratios."""
    names = [n for n in VARIANTS if n != "kubectl" and any(n in r.variants for r in results)]
    rows = [["jobs", *names, *(f"{a}/{b}" for a, b in PULUMI_RATIOS)]]
    for r in results:
        medians = [r.variants[n].unchanged_seconds if n in r.variants else None for n in names]
        if all(m is None for m in medians):
            continue
        rows.append(
            [
                str(r.jobs),
                *("n/a" if m is None else format_seconds(m) for m in medians),
                *(_ratio(r.ratio("unchanged", b, a)) for a, b in PULUMI_RATIOS),
            ]
        )
    if len(rows) == 1:
        return
    out("")
    out(
        "[unchanged stack] pulumi preview --expect-no-changes after each up (what a pull "
        "request's preview costs), medians; one variant at a time, minutes apart"
    )
    _table(rows, out)


def report(
    results: Sequence[SizeResult],
    out: Callable[[str], None],
    preflight: PreflightResult | None = None,
) -> None:
    """The times table, the ratios table, the largest size's up timelines, the
    ``--parallel`` runs and the targets."""
    rows = [["jobs", "objects", "variant", "preview", "/job", "up", "/job", "cleanup"]]
    for r in results:
        for name in VARIANTS:
            v = r.variants.get(name)
            if v is None:
                continue
            rows.append(
                [
                    str(r.jobs),
                    str(r.objects),
                    name,
                    format_seconds(v.preview_seconds),
                    format_seconds(v.preview_seconds / r.jobs),
                    format_seconds(v.up_seconds),
                    format_seconds(v.up_seconds / r.jobs),
                    format_seconds(v.cleanup_seconds),
                ]
            )
    _table(rows, out)
    out("")
    rows = [["jobs"] + [f"{phase} {a}/{b}" for phase in ("preview", "up") for a, b in RATIOS]]
    for r in results:
        rows.append(
            [str(r.jobs)]
            + [_ratio(r.ratio(phase, b, a)) for phase in ("preview", "up") for a, b in RATIOS]
        )
    _table(rows, out)
    _unchanged(results, out)
    if not results:
        return
    last = results[-1]
    out("")
    out(f"[up timeline] N={last.jobs}: create steps by kind (engine event log, whole seconds)")
    for name, variant in last.variants.items():
        _timeline(name, variant, out)
    reruns = [(slots, False, v) for slots, v in sorted(last.parallel.items())]
    reruns += [(slots, True, v) for slots, v in sorted(last.skip_checkpoints.items())]
    if reruns:
        out("")
        out(f"[--parallel, --skip-checkpoints] raygang pulumi up of {last.jobs} jobs")
        rows = [["parallel", "state written", "up", "up raygang/kubectl", "steps in flight"]]
        kubectl = last.variants.get("kubectl")
        for slots, skipped, v in [(0, False, last.variants["raygang"]), *reruns]:
            rows.append(
                [
                    str(slots) if slots else "default",
                    "once, at the end" if skipped else "before and after each step",
                    format_seconds(v.up_seconds),
                    _ratio(v.up_seconds / kubectl.up_seconds if kubectl else None),
                    str(v.timeline.max_in_flight) if v.timeline else "n/a",
                ]
            )
        _table(rows, out)
        for slots, skipped, v in reruns:
            env = SKIP_CHECKPOINTS_TEXT if skipped else ""
            label = " ".join(w for w in (env, f"--parallel {slots}" if slots else "") if w)
            _timeline(label, v, out)
    ours, bare = last.skip_checkpoints.get(0), last.bare_skip_checkpoints
    if ours is not None and bare is not None:
        out("")
        out(
            f"[{SKIP_CHECKPOINTS_TEXT}] up raygang/bare {_ratio(ours.up_seconds / bare.up_seconds)}"
            f" ({format_seconds(ours.up_seconds)} / {format_seconds(bare.up_seconds)}); "
            f"with the defaults {_ratio(last.ratio('up', 'bare'))}, each step rewriting a "
            f"state file of {_megabytes(last.variants['raygang'].state_bytes)} (raygang) / "
            f"{_megabytes(last.variants['bare'].state_bytes)} (bare) at the end"
        )
        _timeline(f"bare {SKIP_CHECKPOINTS_TEXT}", bare, out)
    out("")
    out("targets")
    rows = [["target", "value", "limit", "result", "measured on"]]
    for name, value, detail in targets(results, preflight):
        limit = TARGETS[name][0]
        status = "skipped" if value is None else "met" if value <= limit else "MISSED"
        rows.append([name, _ratio(value), f"<= {limit:.2f}", status, detail])
    _table(rows, out)


def run(
    sizes: Sequence[int],
    cluster: LocalCluster,
    workdir: Path,
    bin_dir: Path,
    out: Callable[[str], None],
    parallel: Sequence[int] = (),
    variants: Sequence[str] = VARIANTS,
    skip_checkpoints: bool = False,
    previews: int = 3,
) -> list[SizeResult]:
    """Every size on ``cluster`` (started), smallest first; then the ``--parallel`` and
    ``--skip-checkpoints`` runs of the largest."""
    bench = Bench(cluster, bin_dir, workdir, out)
    out("  preparing: manifests, `raygang plan` (yaml, json), stacks, warm-up previews ...")
    rendered = bench.prepare(sizes)
    results = []
    for n in sizes:
        results.append(bench.run_size(n, rendered[n], variants, previews))
    if (parallel or skip_checkpoints) and "raygang" in variants:
        bench.run_parallel(results[-1], parallel, skip_checkpoints)
    return results


# Components whose ``--version`` says nothing useful: the module version tools/ pins instead.
_PINNED = {
    "vc-scheduler": "volcano.sh/volcano",
    "ray-operator": "github.com/ray-project/kuberay/ray-operator",
}


def _versions(cluster: LocalCluster, workdir: Path) -> dict[str, str]:
    versions = dict(cluster.versions().items)
    for name, module in _PINNED.items():
        for mod in sorted((REPO / "tools").glob("*/go.mod")):
            for line in mod.read_text(encoding="utf-8").splitlines():
                words = line.split()
                if len(words) >= 2 and words[0] == module:
                    versions[name] = f"{module} {words[1]} (tools/{mod.parent.name}/go.mod)"
    done = subprocess.run(
        [str(cluster.bin_dir / "pulumi"), "version"], capture_output=True, text=True, check=False
    )
    versions["pulumi"] = done.stdout.strip()
    plugins = workdir / "pulumi-home" / "plugins"
    if plugins.is_dir():
        found = sorted(p.name for p in plugins.iterdir() if p.is_dir())
        versions["providers"] = ", ".join(found)
    return versions


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.real_engine",
        description="pulumi preview/up of N small RayJobs through raygang, against bare "
        "pulumi_kubernetes resources and kubectl apply --server-side of the same objects, "
        "on a local control plane (make tools).",
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 100], metavar="N",
                        help="job counts (default 1 10 100)")  # fmt: skip
    parser.add_argument(
        "--parallel", type=int, nargs="+", default=[], metavar="N",
        help="also run raygang's up of the largest size with each --parallel N",
    )  # fmt: skip
    parser.add_argument(
        "--skip-checkpoints", action="store_true",
        help=f"also run raygang's up of the largest size with {SKIP_CHECKPOINTS_TEXT} (state "
        "written once at the end, not before and after every step), at the default and at "
        "each --parallel N",
    )  # fmt: skip
    parser.add_argument(
        "--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS), metavar="NAME",
        help="run only these of raygang, component, bare, kubectl (default all four)",
    )  # fmt: skip
    parser.add_argument(
        "--no-preflight-plan", action="store_true",
        help="skip timing raygang plan --cluster against the preview",
    )  # fmt: skip
    parser.add_argument(
        "--previews", type=int, default=3, metavar="K",
        help="time each Pulumi variant's preview K times, interleaved, the order swapped every "
        "round; the median counts (default 3); and K previews of each stack after its up, "
        "which find nothing to change",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write results as JSON")
    parser.add_argument("--workdir", type=Path, help="keep the cluster, state and logs here")
    return parser


def main(
    argv: Sequence[str] | None = None,
    cluster: LocalCluster | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Run the benchmark; with ``cluster`` (started), on it instead of a new one."""
    args = _parser().parse_args(argv)
    sizes = sorted(set(args.sizes))
    if not sizes or min(sizes) < 1:
        raise SystemExit("--sizes: positive job counts")
    if args.previews < 1:
        raise SystemExit("--previews: at least 1")
    stream = stdout or sys.stdout

    def out(text: str) -> None:
        stream.write(text + "\n")
        stream.flush()

    machine = machine_info()
    out(
        f"raygang real-engine benchmark, {machine['date']}: {machine['nproc']} cores "
        f"({machine['cpu']}), {machine['memory_gib']} GiB, "
        f"load {_load(machine['load_average_1m'])}, {machine['python']}"
    )
    out(f"  {byte_compile()}")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="raygang-bench-real-"))
    workdir.mkdir(parents=True, exist_ok=True)
    own = cluster is None
    if cluster is None:
        bin_dir, share_dir = default_paths(REPO)
        cluster = LocalCluster(bin_dir, share_dir, workdir / "cluster", BENCH_NODES)
        out(f"  starting a local cluster in {cluster.workdir} ...")
        started = _timed(cluster.start)
        out(f"  cluster up in {format_seconds(started)}; logs in {cluster.logs}")
    try:
        nodes = ", ".join(f"{n.name} {n.cpu} cpu/{n.memory}/{n.pods} pods" for n in cluster.nodes)
        out(f"  nodes: {nodes}")
        results = run(
            sizes, cluster, workdir, cluster.bin_dir, out, args.parallel, args.variants,
            args.skip_checkpoints, args.previews,
        )  # fmt: skip
        preflight = None
        if not args.no_preflight_plan:
            out(f"  raygang plan --cluster, {PREFLIGHT_JOBS} jobs x 500 nodes (best of 3) ...")
            preflight = run_preflight_plan(repeat=3)
            out(f"    {format_seconds(preflight.seconds)}")
        versions = _versions(cluster, workdir)
    finally:
        if own:
            cluster.stop()
    out("")
    out("[real-engine] seconds, one run each; cleanup (destroy / delete until gone) untimed")
    out("  in the ratios. What each variant does:")
    for name in VARIANTS:
        out(f"  {name}: preview = {PREVIEWS[name]}; up waits for {WAITS[name]}")
    _table([[k, v] for k, v in versions.items()], out)
    out("")
    report(results, out, preflight)
    end_load = load_average()
    out(f"load {_load(end_load)} at end; one run each, on one cluster, in one process")
    if args.json is not None:
        data = {
            "machine": machine,
            "load_average_end": end_load,
            "versions": versions,
            "nodes": [asdict(n) for n in cluster.nodes],
            "previews": PREVIEWS,
            "waits": WAITS,
            "sizes": [r.as_dict() for r in results],
            "preflight_plan": preflight.as_dict() if preflight else None,
            "targets": [
                {"name": name, "value": value, "limit": TARGETS[name][0], "on": detail}
                for name, value, detail in targets(results, preflight)
            ],
        }
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        out(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
