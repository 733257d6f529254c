"""Nothing lost: the rendered objects carry everything the user wrote.

For KubeRay's own sample RayJobs and our fixtures, the RayCluster's spec must equal the
input ``rayClusterSpec`` once the scheduling metadata raygang owns is stripped (and
nothing else): the pod template annotations ``scheduling.k8s.io/group-name`` and
``volcano.sh/task-spec``, the labels ``volcano.sh/queue-name`` and
``ray.io/priority-class-name``, ``spec.schedulerName``, and in SidecarMode the appended
submitter container and the head's ``restartPolicy: Never``. Fields of newer KubeRay
versions survive, the submitter Job keeps the user's ``submitterPodTemplate``, and the
job record ConfigMap holds the input.

KubeRay samples that raygang refuses are skipped here with the reason (the refusal itself
is tested in ``test_cli.py``); samples using ``generateName`` are planned with a name.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang.cli import build_plan
from raygang.kube import kubeyaml
from raygang.kube.generatename import with_generated_name
from raygang.kuberay.manifests import (
    GROUP_NAME_ANNOTATION,
    PRIORITY_LABEL,
    QUEUE_LABEL,
    TASK_SPEC_ANNOTATION,
)
from raygang.kuberay.redact import REDACTED, redact_rayjob
from raygang.loader import load_documents, load_files
from raygang.pipeline import plan_everything
from raygang.plan import PlannedJob
from raygang.rayjob.validate import MAX_JOB_NAME
from raygang.settings import StackSettings

from tests.builders import BROKEN, GOOD, REFUSED

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared"
SAMPLES = SHARED / "samples" / "kuberay"

SIDECAR_CONTAINER = "ray-job-submitter"
# Labels the submitter Job's pod template gets from raygang and KubeRay's conventions.
SUBMITTER_LABELS = {
    QUEUE_LABEL,
    PRIORITY_LABEL,
    "ray.io/originated-from-cr-name",
    "ray.io/originated-from-crd",
    "app.kubernetes.io/created-by",
}


def _samples() -> list[Any]:
    if not SAMPLES.is_dir():
        return [
            pytest.param(
                None,
                marks=pytest.mark.skip(reason=f"{SAMPLES} is absent (shared samples not here)"),
                id="no-samples",
            )
        ]
    out = []
    for path in sorted(SAMPLES.glob("*.yaml")):
        marks = []
        if path.name in REFUSED:
            marks.append(pytest.mark.skip(reason=f"refused by raygang: {REFUSED[path.name]}"))
        if path.name in BROKEN:
            marks.append(pytest.mark.xfail(strict=True, reason=BROKEN[path.name]))
        out.append(pytest.param(path, marks=marks, id=path.stem.removeprefix("ray-job.")))
    return out


# --- helpers --------------------------------------------------------------------------------


def _templates(cluster: Mapping[str, Any]) -> list[dict[str, Any]]:
    head = cluster.get("headGroupSpec") or {}
    out = [head.get("template")]
    out += [g.get("template") for g in cluster.get("workerGroupSpecs") or []]
    return [t for t in out if isinstance(t, dict)]


def strip_scheduling(cluster: Mapping[str, Any], *, sidecar: bool = False) -> dict[str, Any]:
    """The RayCluster spec without exactly the scheduling metadata raygang owns.

    Applied to both sides of a comparison: raygang (like KubeRay) overwrites these keys,
    so a value the user set there is replaced by design. Empty maps left behind are
    dropped on both sides, since raygang creates them when the input had none.

    Args:
        cluster: a ``rayClusterSpec`` or a rendered RayCluster ``spec``.
        sidecar: remove the SidecarMode submitter container and head ``restartPolicy``
            (only on the rendered side).
    """
    out = copy.deepcopy(dict(cluster))
    for template in _templates(out):
        meta = template.get("metadata")
        if isinstance(meta, dict):
            for key, owned in (
                ("annotations", (GROUP_NAME_ANNOTATION, TASK_SPEC_ANNOTATION)),
                ("labels", (QUEUE_LABEL, PRIORITY_LABEL)),
            ):
                values = meta.get(key)
                if isinstance(values, dict):
                    for name in owned:
                        values.pop(name, None)
                    if not values:
                        del meta[key]
            if not meta:
                del template["metadata"]
        spec = template.get("spec")
        if isinstance(spec, dict):
            spec.pop("schedulerName", None)
    head_spec = out["headGroupSpec"]["template"]["spec"]
    if sidecar:
        assert head_spec["containers"][-1]["name"] == SIDECAR_CONTAINER
        head_spec["containers"].pop()
        assert head_spec.pop("restartPolicy") == "Never"
    return out


def _input_side(item_raw: Mapping[str, Any]) -> dict[str, Any]:
    cluster = copy.deepcopy(dict(item_raw["spec"]["rayClusterSpec"]))
    if item_raw["spec"].get("submissionMode") == "SidecarMode":
        # The head's restartPolicy is validated to be Never or unset, and forced to Never.
        cluster["headGroupSpec"]["template"]["spec"].pop("restartPolicy", None)
    return strip_scheduling(cluster)


def assert_kept(user: object, rendered: object, path: str = "", *, skip: frozenset[str]) -> None:
    """Every value the user wrote is in ``rendered`` at the same place.

    Lists keep their length, except ``env``, which may grow at the end. Keys in ``skip``
    (full paths) are ones raygang is expected to overwrite.
    """
    if path in skip:
        return
    if isinstance(user, Mapping):
        assert isinstance(rendered, Mapping), f"{path}: {rendered!r} is not a map"
        for key, value in user.items():
            assert key in rendered, f"{path}.{key} was lost"
            assert_kept(value, rendered[key], f"{path}.{key}", skip=skip)
    elif isinstance(user, list):
        assert isinstance(rendered, list), f"{path}: {rendered!r} is not a list"
        if path.endswith(".env"):
            assert rendered[: len(user)] == user, f"{path}: the user's env was changed"
            return
        assert len(rendered) == len(user), f"{path}: {len(user)} items became {len(rendered)}"
        for index, (mine, theirs) in enumerate(zip(user, rendered, strict=True)):
            assert_kept(mine, theirs, f"{path}[{index}]", skip=skip)
    else:
        assert user == rendered, f"{path}: {user!r} became {rendered!r}"


def plan_file(path: Path) -> list[PlannedJob]:
    return list(build_plan([path], None, None, ROOT).jobs)


def _resource(job: PlannedJob, role: str) -> dict[str, Any]:
    found = job.resource(role)
    assert found is not None, f"no {role} in the plan of {job.plan.name}"
    return dict(found.manifest)


def _containers(value: object) -> list[object]:
    """Every dict and list inside ``value``, itself included."""
    out: list[object] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            out.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            out.append(item)
            stack.extend(item)
    return out


def check_input_untouched(path: Path, jobs: list[PlannedJob]) -> None:
    """Planning leaves the job's private copy of the input (``item.raw``) as read.

    The RayCluster shares what KubeRay does not change (containers, volumes ...) with that
    copy, so a write to either would show here; the copy itself shares nothing with what
    the caller passed in (:func:`test_plans_share_nothing_with_the_callers_objects`).
    """
    written = {
        # A job with generateName only is named from it: the name is all that is added.
        d["metadata"]["name"]: d
        # Read as raygang (and kubectl) read it: 2.0 is the number 2, yes is true.
        for raw in kubeyaml.load_documents(path.read_bytes(), source=str(path))
        if isinstance(raw, dict) and raw.get("kind") == "RayJob"
        for d in [with_generated_name(raw, MAX_JOB_NAME)]
        if isinstance(d, dict)
    }
    for job in jobs:
        assert job.plan.item.raw == written[job.plan.name], (
            f"{job.plan.name}: planning changed the input"
        )


def _redacted_only(raw: Any, kept: Any) -> bool:
    """Whether ``kept`` is ``raw`` with some values replaced by the marker (runtimeEnvYAML
    becomes its JSON form when it has anything to redact)."""
    if kept in (raw, REDACTED):
        return True
    if isinstance(raw, dict) and isinstance(kept, dict):
        return raw.keys() == kept.keys() and all(
            k == "runtimeEnvYAML" or _redacted_only(raw[k], kept[k]) for k in raw
        )
    if isinstance(raw, list) and isinstance(kept, list):
        return len(raw) == len(kept) and all(map(_redacted_only, raw, kept))
    return isinstance(raw, str) and isinstance(kept, str) and REDACTED in kept


def check_nothing_lost(path: Path) -> list[PlannedJob]:
    """Plan a file and check every job in it; returns the plans."""
    jobs = plan_file(path)
    assert jobs
    check_input_untouched(path, jobs)
    for job in jobs:
        raw = job.plan.item.raw
        mode = job.plan.mode
        cluster = _resource(job, "raycluster")
        assert strip_scheduling(cluster["spec"], sidecar=mode == "SidecarMode") == _input_side(raw)
        _check_owned_metadata(job, cluster)

        record = _resource(job, "record")
        # The input without secret values: only values change, into the marker.
        kept = json.loads(record["metadata"]["annotations"]["raygang.dev/rayjob"])
        assert kept == json.loads(json.dumps(redact_rayjob(raw)))
        assert _redacted_only(raw, kept), (
            f"{job.plan.name}: the record lost more than secret values"
        )

        template = raw["spec"].get("submitterPodTemplate")
        if mode == "K8sJobMode" and template is not None:
            job_spec = _resource(job, "submitter")["spec"]["template"]
            skip = {".spec.schedulerName"} | {f".metadata.labels.{k}" for k in SUBMITTER_LABELS}
            if job_spec["spec"]["containers"][0].get("command") is not None:
                # The submitter fills in the command only when the user set none.
                user_first = template["spec"]["containers"][0]
                if user_first.get("command") is None:
                    skip |= {".spec.containers[0].command", ".spec.containers[0].args"}
            assert_kept(template, job_spec, skip=frozenset(skip))
    return jobs


def _check_owned_metadata(job: PlannedJob, cluster: Mapping[str, Any]) -> None:
    """The metadata raygang adds is there, with the values KubeRay would give it."""
    spec = cluster["spec"]
    queue = job.plan.item.job.metadata.labels.get(QUEUE_LABEL)
    tasks = ["headgroup"] + [g["groupName"] for g in spec.get("workerGroupSpecs") or []]
    for template, task in zip(_templates(spec), tasks, strict=True):
        annotations = template["metadata"]["annotations"]
        assert annotations[GROUP_NAME_ANNOTATION] == f"ray-{job.plan.name}-pg"
        assert annotations[TASK_SPEC_ANNOTATION] == task
        assert template["spec"]["schedulerName"] == "volcano"
        if queue:
            assert template["metadata"]["labels"][QUEUE_LABEL] == queue


# --- the tests ------------------------------------------------------------------------------


# The fixtures of RayJobs; RayClusters of their own have tests of their own below.
JOB_FIXTURES = [p for p in GOOD if "kind: RayCluster\n" not in p.read_text()]
CLUSTER_FIXTURES = [p for p in GOOD if p not in JOB_FIXTURES]


@pytest.mark.parametrize("path", JOB_FIXTURES, ids=lambda p: p.stem)
def test_our_fixtures_lose_nothing(path: Path) -> None:
    check_nothing_lost(path)


@pytest.mark.parametrize("path", CLUSTER_FIXTURES, ids=lambda p: p.stem)
def test_a_raycluster_of_its_own_loses_nothing(path: Path) -> None:
    plan = build_plan([path], None, None, ROOT)
    assert plan.clusters and not plan.jobs
    written = {d["metadata"]["name"]: d for d in yaml.safe_load_all(path.read_text()) if d}
    for cluster in plan.clusters:
        raw = cluster.plan.item.raw
        assert raw == written[cluster.plan.name], "planning changed the input"
        found = cluster.resource("raycluster")
        assert found is not None
        rendered = dict(found.manifest)
        # The one field raygang adds: an explicit `suspend: false` (KubeRay resumes on no less).
        expected = {"suspend": False, **raw["spec"]}
        assert strip_scheduling(rendered["spec"]) == strip_scheduling(expected)
        spec = rendered["spec"]
        tasks = ["headgroup"] + [g["groupName"] for g in spec.get("workerGroupSpecs") or []]
        for template, task in zip(_templates(spec), tasks, strict=True):
            annotations = template["metadata"]["annotations"]
            assert annotations[GROUP_NAME_ANNOTATION] == f"ray-{cluster.plan.name}-pg"
            assert annotations[TASK_SPEC_ANNOTATION] == task
            assert template["spec"]["schedulerName"] == "volcano"


@pytest.mark.parametrize("path", _samples())
def test_kuberay_samples_lose_nothing(path: Path) -> None:
    # Samples with generateName only (the Kueue and PyTorch ones) plan as they are.
    check_nothing_lost(path)


FUTURE_CLUSTER = {"futureField": {"a": 1}, "anotherNewField": [1, "two", {"three": 3.0}]}
FUTURE_HEAD = {"newThing": "x"}
RESIZE = [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]


def with_future_fields(doc: dict[str, Any]) -> dict[str, Any]:
    """A RayJob with fields a newer KubeRay might have, at several depths."""
    out = copy.deepcopy(doc)
    cluster = out["spec"]["rayClusterSpec"]
    cluster.update(copy.deepcopy(FUTURE_CLUSTER))
    cluster["headGroupSpec"].update(FUTURE_HEAD)
    for template in _templates(cluster):
        template["spec"]["containers"][0]["resizePolicy"] = copy.deepcopy(RESIZE)
        template["spec"]["futurePodField"] = {"enabled": True}
    for group in cluster.get("workerGroupSpecs") or []:
        group["futureGroupField"] = "y"
    out["spec"]["futureJobField"] = {"b": 2}
    return out


@pytest.mark.parametrize("path", _samples())
def test_unknown_fields_survive(path: Path, tmp_path: Path) -> None:
    docs = list(yaml.safe_load_all(path.read_text()))
    docs = [with_future_fields(d) if d and d.get("kind") == "RayJob" else d for d in docs]
    future = tmp_path / f"future-{path.name}"
    future.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    for job in check_nothing_lost(future):
        spec = _resource(job, "raycluster")["spec"]
        assert spec["futureField"] == {"a": 1}
        assert spec["headGroupSpec"]["newThing"] == "x"
        for template in _templates(spec):
            assert template["spec"]["containers"][0]["resizePolicy"] == RESIZE


def test_the_future_fields_fixture_reaches_every_object() -> None:
    (job,) = check_nothing_lost(ROOT / "tests" / "fixtures" / "good" / "future-fields.yaml")
    cluster = _resource(job, "raycluster")["spec"]
    assert cluster["futureField"] == {"a": 1}
    assert cluster["headGroupSpec"]["newThing"] == "x"
    assert cluster["workerGroupSpecs"][0]["scaleStrategy"] == {"workersToDelete": []}
    head = cluster["headGroupSpec"]["template"]["spec"]["containers"][0]
    assert head["resizePolicy"] == [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]
    pod = _resource(job, "submitter")["spec"]["template"]["spec"]
    assert pod["priorityClassName"] == "submitters"
    assert pod["containers"][0]["futureContainerField"] == [1, 2]


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_plans_share_nothing_with_the_callers_objects(path: Path) -> None:
    """What a program passes in (inline jobs, a component's manifest) is copied once: no
    planned object and no private copy holds a dict or list of it, so a caller changing its
    objects after planning does not change the plan."""
    theirs = [
        (f"{path} (document {i})", doc)
        for i, doc in enumerate(kubeyaml.load_documents(path.read_bytes(), source=str(path)))
    ]
    plan = plan_everything(load_documents(theirs), StackSettings(), base=ROOT)
    assert plan.jobs or plan.clusters
    ids = {id(c) for _, doc in theirs for c in _containers(doc)}
    mine = [job.plan.item.raw for job in plan.jobs]
    mine += [r.manifest for job in plan.jobs for r in job.resources]
    mine += [c.plan.item.raw for c in plan.clusters]
    mine += [r.manifest for c in plan.clusters for r in c.resources]
    assert not [c for m in mine for c in _containers(m) if id(c) in ids]
    before = copy.deepcopy(mine)
    for _, doc in theirs:
        for c in _containers(doc):
            if isinstance(c, dict):
                c["changed-by-the-caller"] = True
            else:
                c.append("changed-by-the-caller")
    assert mine == before


def test_a_queue_declared_in_the_file_is_rendered_verbatim() -> None:
    path = ROOT / "tests" / "fixtures" / "good" / "k8sjob.yaml"
    queue_doc = next(d for d in yaml.safe_load_all(path.read_text()) if d["kind"] == "Queue")
    (queue,) = load_files([path]).queues
    manifest = queue.manifest()
    annotations = manifest["metadata"].pop("annotations")
    assert annotations == {"pulumi.com/waitFor": "jsonpath={.status.state}=Open"}
    assert manifest == queue_doc


def test_the_helper_strips_only_what_raygang_owns() -> None:
    cluster = {
        "headGroupSpec": {
            "template": {
                "metadata": {
                    "annotations": {GROUP_NAME_ANNOTATION: "x", "keep": "1"},
                    "labels": {QUEUE_LABEL: "q", "team": "a"},
                },
                "spec": {"schedulerName": "volcano", "containers": [{"name": "c"}]},
            }
        }
    }
    assert strip_scheduling(cluster) == {
        "headGroupSpec": {
            "template": {
                "metadata": {"annotations": {"keep": "1"}, "labels": {"team": "a"}},
                "spec": {"containers": [{"name": "c"}]},
            }
        }
    }


def test_the_check_notices_a_lost_field(monkeypatch: pytest.MonkeyPatch) -> None:
    # The comparison has teeth: a renderer that drops one user field fails it.
    from raygang.kuberay import manifests

    original = manifests.raycluster_manifest

    def lossy(*args: Any, **kwargs: Any) -> dict[str, Any]:
        out = original(*args, **kwargs)
        del out["spec"]["headGroupSpec"]["template"]["spec"]["volumes"]
        return out

    monkeypatch.setattr(manifests, "raycluster_manifest", lossy)
    with pytest.raises(AssertionError):
        check_nothing_lost(ROOT / "tests" / "fixtures" / "good" / "k8sjob.yaml")
