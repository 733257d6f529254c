"""Valid for the API server: every rendered object against the schema that will judge it.

* RayCluster, PodGroup and Queue against the upstream CRDs' ``openAPIV3Schema`` in
  ``../shared/crds``, with ``jsonschema`` (Draft 2020-12). The OpenAPI extensions are
  turned into JSON Schema (``nullable``, int32/int64 ranges,
  ``x-kubernetes-int-or-string``), list-map keys are checked for duplicates, and the
  object is walked for fields the API server would *prune* (undeclared where
  ``x-kubernetes-preserve-unknown-fields`` is not set). A pruned field that raygang adds
  fails the test; one the user wrote is a note (printed; see ``-rP``), since the record
  ConfigMap keeps it anyway.
* The submitter Job and the record ConfigMap against Kubernetes' own schema with
  ``kubernetes-validate`` (strict: unknown fields are errors), the metadata of the custom
  resources the same way.

Skipped, with the reason, where ``../shared`` is absent.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.cli import build_plan
from raygang.kuberay import manifests
from raygang.kuberay.gang import compute_gang
from raygang.kuberay.jobplan import PlannedResource
from raygang.kuberay.settings import JobSettings
from raygang.loader import load_documents
from raygang.pipeline import plan_everything
from raygang.rayjob.spec import parse_rayjob
from raygang.settings import StackSettings

from tests.builders import BROKEN, GOOD, REFUSED, container, rayjob, worker

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared"
CRDS = SHARED / "crds"
SAMPLES = SHARED / "samples" / "kuberay"
K8S_VERSION = "1.33"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
CRD_FILES = {
    "RayCluster": ("ray.io_rayclusters.yaml", "v1"),
    "RayJob": ("ray.io_rayjobs.yaml", "v1"),
    "PodGroup": ("scheduling.volcano.sh_podgroups.yaml", "v1beta1"),
    "Queue": ("scheduling.volcano.sh_queues.yaml", "v1beta1"),
}

needs_shared = pytest.mark.skipif(
    not CRDS.is_dir(), reason=f"{CRDS} is absent: the shared CRDs are not checked out here"
)


# --- OpenAPI v3 (structural schema) to JSON Schema -----------------------------------------


def to_json_schema(node: object) -> object:
    """Translate the OpenAPI extensions the API server honours into JSON Schema."""
    if isinstance(node, list):
        return [to_json_schema(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("properties", "patternProperties"):
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = to_json_schema(value)
        elif key in ("anyOf", "allOf", "oneOf"):
            out[key] = [to_json_schema(sub) for sub in value]
        elif key in ("description", "default", "x-kubernetes-validations"):
            continue  # no effect on validation (CEL rules are not evaluated here)
        else:
            out[key] = value
    if out.get("x-kubernetes-int-or-string") and "anyOf" not in out:
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if out.get("type") == "integer" and out.get("format") in INT_RANGES:
        low, high = INT_RANGES[out["format"]]
        out.setdefault("minimum", low)
        out.setdefault("maximum", high)
    if out.get("nullable") and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out


@functools.cache
def crd_schema(kind: str) -> dict[str, Any]:
    """The openAPIV3Schema of a served CRD version, as it stands in ../shared/crds."""
    file, version = CRD_FILES[kind]
    # libyaml when present: the RayCluster CRD is 900 kB and PyYAML alone takes seconds.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    crd = yaml.load((CRDS / file).read_text(), Loader=loader)
    (found,) = [v for v in crd["spec"]["versions"] if v["name"] == version]
    schema: dict[str, Any] = found["schema"]["openAPIV3Schema"]
    return schema


@functools.cache
def crd_validator(kind: str) -> jsonschema.Draft202012Validator:
    """A validator for the CRD's schema, built once (the RayCluster schema is large)."""
    return jsonschema.Draft202012Validator(to_json_schema(crd_schema(kind)))


def with_defaults(obj: object, schema: Mapping[str, Any]) -> object:
    """What the API server stores before validating: nulls dropped, defaults applied.

    A null in a non-nullable field is pruned and a missing field with a ``default`` is
    filled in, so ``maxReplicas`` (required, default 2147483647) may be omitted.
    """
    if isinstance(obj, Mapping):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        out: dict[str, Any] = {}
        for key, value in obj.items():
            sub = props.get(key, extra if isinstance(extra, Mapping) else {})
            if value is None and not sub.get("nullable"):
                continue
            out[key] = with_defaults(value, sub)
        for key, sub in props.items():
            if key not in out and "default" in sub:
                out[key] = copy.deepcopy(sub["default"])
        return out
    if isinstance(obj, list):
        items = schema.get("items") or {}
        return [with_defaults(value, items) for value in obj]
    return obj


def schema_errors(obj: Mapping[str, Any], kind: str) -> list[str]:
    """Every schema violation of ``obj`` once defaulted, as ``path: message``."""
    schema = crd_schema(kind)
    obj = with_defaults(obj, schema)  # type: ignore[assignment]
    errors = [
        f"{'.'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
        for e in crd_validator(kind).iter_errors(obj)
    ]
    return sorted(errors) + list_map_errors(obj, schema)


def list_map_errors(obj: object, schema: Mapping[str, Any], path: str = "") -> list[str]:
    """Duplicate keys in ``x-kubernetes-list-type: map`` lists (the API server refuses them)."""
    out: list[str] = []
    if isinstance(obj, Mapping):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for key, value in obj.items():
            sub = props.get(key, extra if isinstance(extra, Mapping) else None)
            if isinstance(sub, Mapping):
                out += list_map_errors(value, sub, f"{path}.{key}")
    elif isinstance(obj, list):
        items = schema.get("items") or {}
        if schema.get("x-kubernetes-list-type") == "map":
            keys = schema.get("x-kubernetes-list-map-keys") or []
            props = items.get("properties") or {}
            seen = set()
            for entry in obj:
                if isinstance(entry, Mapping):
                    key = tuple(entry.get(k, (props.get(k) or {}).get("default")) for k in keys)
                    if key in seen:
                        out.append(
                            f"{path}: duplicate entry with {dict(zip(keys, key, strict=True))}"
                        )
                    seen.add(key)
        for index, entry in enumerate(obj):
            out += list_map_errors(entry, items, f"{path}[{index}]")
    return out


def pruned_fields(obj: object, schema: Mapping[str, Any], path: str = "") -> Iterator[str]:
    """Paths the API server would drop: undeclared fields outside preserve-unknown-fields."""
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        return
    if isinstance(obj, Mapping):
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        for key, value in obj.items():
            where = f"{path}.{key}" if path else str(key)
            if path == "" and key == "metadata":
                continue  # the root ObjectMeta is never pruned (checked separately)
            if props is not None and key in props:
                yield from pruned_fields(value, props[key], where)
            elif isinstance(extra, Mapping):
                yield from pruned_fields(value, extra, where)
            elif extra is True or schema.get("x-kubernetes-int-or-string"):
                continue
            else:
                yield where
    elif isinstance(obj, list) and isinstance(schema.get("items"), Mapping):
        for index, value in enumerate(obj):
            yield from pruned_fields(value, schema["items"], f"{path}[{index}]")


def _exists(doc: object, path: str) -> bool:
    """True when a dotted path with [i] indices exists in ``doc``."""
    node = doc
    for part in path.replace("[", ".[").split("."):
        if part.startswith("["):
            index = int(part[1:-1])
            if not isinstance(node, list) or index >= len(node):
                return False
            node = node[index]
        elif isinstance(node, Mapping) and part in node:
            node = node[part]
        else:
            return False
    return True


# Where each rendered object's fields come from in the RayJob (rendered prefix → input prefix).
ORIGINS = {
    "RayCluster": ("spec.", "spec.rayClusterSpec."),
    "Job": ("spec.template.", "spec.submitterPodTemplate."),
}


def user_wrote(resource: PlannedResource, raw: Mapping[str, Any], path: str) -> bool:
    """Whether a field of a rendered object was copied from the user's RayJob."""
    rendered, source = ORIGINS.get(resource.kind, ("", ""))
    return (
        bool(rendered)
        and path.startswith(rendered)
        and _exists(raw, source + path.removeprefix(rendered))
    )


def kubernetes_errors(obj: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """kubernetes-validate's strict errors, as (validator, path, message), one by one.

    kubernetes-validate stops at the first error, so an unexpected property is removed
    from a copy and validation runs again, until the object passes.
    """
    work = copy.deepcopy(dict(obj))
    out: list[tuple[str, str, str]] = []
    for _ in range(50):
        try:
            kubernetes_validate.validate(work, K8S_VERSION, strict=True)
            return out
        except kubernetes_validate.ValidationError as exc:
            path = dotted(exc.absolute_path)
            if exc.validator != "additionalProperties" or not isinstance(exc.instance, dict):
                return [*out, (str(exc.validator), path, str(exc.message))]
            allowed = set(exc.schema.get("properties") or {})
            for key in sorted(set(exc.instance) - allowed):
                out.append(("additionalProperties", dotted([*exc.absolute_path, key]), "unknown"))
                _delete(work, [*exc.absolute_path, key])
    raise AssertionError("kubernetes-validate kept failing")


def dotted(parts: Any) -> str:
    """``spec.template.spec.containers[0].name`` from jsonschema's path parts."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _delete(doc: Any, path: list[Any]) -> None:
    for part in path[:-1]:
        doc = doc[part]
    del doc[path[-1]]


# --- what to validate ------------------------------------------------------------------------


def _inputs() -> list[Any]:
    cases: list[Any] = [pytest.param(("stack", "dev"), id="stack-dev")]
    cases.append(pytest.param(("stack", "ml-platform"), id="stack-ml-platform"))
    cases += [pytest.param(("file", p), id=p.stem) for p in GOOD]
    if SAMPLES.is_dir():
        for path in sorted(SAMPLES.glob("*.yaml")):
            if path.name in REFUSED or path.name in BROKEN:
                continue  # refused inputs render nothing
            cases.append(pytest.param(("file", path), id=f"sample-{path.stem}"))
    return cases


def _plan(case: tuple[str, Any], tmp_path: Path) -> list[tuple[PlannedResource, Mapping[str, Any]]]:
    kind, value = case
    if kind == "stack":
        plan = build_plan([], value, None, ROOT)
    else:
        plan = build_plan([value], None, None, ROOT)  # generateName samples plan as they are
    out = []
    for job in plan.jobs:
        out += [(r, job.plan.item.raw) for r in job.resources]
    for cluster in plan.clusters:
        out += [(r, cluster.plan.item.raw) for r in cluster.resources]
    out += [(PlannedResource("queue", q.manifest()), {}) for q in plan.queues]
    return out


def check_for_api_server(resources: list[tuple[PlannedResource, Mapping[str, Any]]]) -> list[str]:
    """Fail on anything the API server would refuse or raygang would lose; return notes."""
    notes: list[str] = []
    for resource, raw in resources:
        obj = dict(resource.manifest)
        where = f"{resource.kind}/{resource.name}"
        if resource.kind in CRD_FILES:
            assert schema_errors(obj, resource.kind) == [], where
            for path in pruned_fields(obj, crd_schema(resource.kind)):
                assert user_wrote(resource, raw, path), f"{where}: raygang adds {path}, pruned"
                notes.append(f"{where}: the API server would prune the user's {path}")
            # The custom resource's ObjectMeta, judged by Kubernetes' own schema.
            holder = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj["metadata"]}
            assert kubernetes_errors(holder) == [], where
        else:
            for validator, path, message in kubernetes_errors(obj):
                assert validator == "additionalProperties", f"{where}: {path}: {message}"
                assert user_wrote(resource, raw, path), f"{where}: raygang adds {path}"
                notes.append(f"{where}: Kubernetes {K8S_VERSION} does not know the user's {path}")
    return notes


@needs_shared
@pytest.mark.parametrize("case", _inputs())
def test_rendered_objects_are_valid_for_the_api_server(
    case: tuple[str, Any], tmp_path: Path
) -> None:
    resources = _plan(case, tmp_path)
    # A RayJob's objects include its record (a ConfigMap); a RayCluster of its own has none.
    kinds = {r.kind for r, _ in resources}
    assert kinds >= {"PodGroup", "RayCluster"}
    assert "ConfigMap" in kinds or "raycluster" in str(case[1])
    for note in check_for_api_server(resources):
        print(f"note: {note}")


QUANTITIES: dict[str, list[str | int]] = {
    "cpu": ["100m", "1", "2.5", "4", 8],
    "memory": ["128Mi", "1Gi", "2G", "1500M", "3Gi"],
    "ephemeral-storage": ["1Gi", "10G"],
}


@st.composite
def resources(draw: st.DrawFn, gpu: bool = False) -> dict[str, Any]:
    requests = {
        name: draw(st.sampled_from(values))
        for name, values in QUANTITIES.items()
        if draw(st.booleans())
    }
    limits = dict(requests) if draw(st.booleans()) else {}
    if gpu:
        count = str(draw(st.integers(1, 4)))
        requests["nvidia.com/gpu"] = limits["nvidia.com/gpu"] = count
    out: dict[str, Any] = {}
    if requests:
        out["requests"] = requests
    if limits:
        out["limits"] = limits
    return out


@st.composite
def valid_rayjobs(draw: st.DrawFn) -> dict[str, Any]:
    """RayJobs raygang must accept: every mode, labels, autoscaling, groups, resources."""
    labels: dict[str, str] = {}
    if draw(st.booleans()):
        labels["volcano.sh/queue-name"] = draw(st.sampled_from(["ray-batch", "team.a", "q1"]))
    if draw(st.booleans()):
        labels["ray.io/priority-class-name"] = draw(st.sampled_from(["high", ""]))
    if draw(st.booleans()):
        labels["volcano.sh/network-topology-mode"] = draw(st.sampled_from(["hard", "soft"]))
        if draw(st.booleans()):
            labels["volcano.sh/network-topology-highest-tier-allowed"] = str(
                draw(st.integers(0, 5))
            )
    mode = draw(st.sampled_from([None, "K8sJobMode", "SidecarMode", "InteractiveMode"]))
    autoscaling = draw(st.sampled_from([None, False, True]))
    groups = []
    for index in range(draw(st.integers(0, 3))):
        low = draw(st.integers(0, 3))
        high = draw(st.integers(low, 6))
        group = worker(
            f"group-{index}",
            replicas=draw(st.integers(0, 8)),
            min_replicas=low,
            max_replicas=high,
            num_of_hosts=draw(st.integers(1, 2)),
            containers=[container("ray-worker", **draw(resources(gpu=draw(st.booleans()))))],
        )
        if draw(st.booleans()):
            group["template"]["spec"]["initContainers"] = [
                container("init", command=["true"], **draw(resources()))
            ]
        groups.append(group)
    spec: dict[str, Any] = {"shutdownAfterJobFinishes": True}
    if draw(st.booleans()):
        spec["ttlSecondsAfterFinished"] = draw(st.integers(0, 3600))
    if mode != "SidecarMode" and draw(st.booleans()):
        spec["submitterPodTemplate"] = {
            "spec": {"containers": [container("submit", **draw(resources()))]}
        }
    head = [container("ray-head", **draw(resources()))]
    return rayjob(
        name=draw(st.from_regex(r"[a-z][a-z0-9-]{0,20}[a-z0-9]", fullmatch=True)),
        namespace=draw(st.sampled_from(["default", "ml", "team-a"])),
        head=head,
        workers=groups,
        mode=mode,
        labels=labels or None,
        autoscaling=autoscaling,
        **spec,
    )


@needs_shared
@settings(max_examples=60, deadline=None, derandomize=True)
@given(valid_rayjobs())
def test_generated_valid_rayjobs_render_valid_objects(job: dict[str, Any]) -> None:
    docs = load_documents([("generated.yaml", job)])
    plan = plan_everything(docs, StackSettings(), base=ROOT, now=NOW)
    resources = [(r, j.plan.item.raw) for j in plan.jobs for r in j.resources]
    check_for_api_server(resources)


@needs_shared
def test_user_fields_newer_than_the_crd_are_notes_not_failures(tmp_path: Path) -> None:
    resources = _plan(("file", ROOT / "tests/fixtures/good/future-fields.yaml"), tmp_path)
    pruned = set()
    for resource, raw in resources:
        if resource.kind == "RayCluster":
            found = set(pruned_fields(dict(resource.manifest), crd_schema("RayCluster")))
        elif resource.kind == "Job":
            found = {p for _, p, _ in kubernetes_errors(dict(resource.manifest))}
        else:
            continue
        assert all(user_wrote(resource, raw, path) for path in found)
        pruned |= {f"{resource.kind}:{path}" for path in found}
    assert pruned == {
        "RayCluster:spec.futureField",
        "RayCluster:spec.headGroupSpec.newThing",
        "Job:spec.template.spec.containers[0].futureContainerField",
    }


@needs_shared
def test_the_pruning_walker_flags_what_raygang_would_add() -> None:
    item = parse_rayjob(rayjob(), "job.yaml")
    plan_cluster = manifests.raycluster_manifest(item, JobSettings(), "sid")
    plan_cluster["spec"]["headGroupSpec"]["template"]["spec"]["inventedByUs"] = True
    found = list(pruned_fields(plan_cluster, crd_schema("RayCluster")))
    assert found == ["spec.headGroupSpec.template.spec.inventedByUs"]
    resource = PlannedResource("raycluster", plan_cluster)
    assert not user_wrote(resource, item.raw, found[0])


@needs_shared
def test_an_empty_queue_label_would_give_a_podgroup_volcano_refuses() -> None:
    # Why raygang refuses `volcano.sh/queue-name: ""` (see raygang.rayjob.validate).
    item = parse_rayjob(rayjob(labels={"volcano.sh/queue-name": ""}), "job.yaml")
    podgroup = manifests.podgroup_manifest(item, compute_gang(item.job))
    assert podgroup["spec"]["queue"] == ""
    assert any(e.startswith("spec.queue:") for e in schema_errors(podgroup, "PodGroup"))


# What the strict models refuse, the RayJob CRD refuses too: these bad fixtures are valid
# YAML the API server would reject with a schema error at the same path.
CRD_REFUSES = {
    "replicas-string": "spec.rayClusterSpec.workerGroupSpecs.0.replicas",
    "replicas-quoted": "spec.rayClusterSpec.workerGroupSpecs.0.replicas",
    "bool-string": "spec.shutdownAfterJobFinishes",
    "rayversion-number": "spec.rayClusterSpec.rayVersion",
    "raystartparams-int": "spec.rayClusterSpec.headGroupSpec.rayStartParams.num-cpus",
    "quantity-float": (
        "spec.rayClusterSpec.workerGroupSpecs.0.template.spec.containers.0.resources.requests.cpu"
    ),
    "quantity-suffix": (
        "spec.rayClusterSpec.headGroupSpec.template.spec.containers.0.resources.limits.memory"
    ),
    "huge-int": "spec.rayClusterSpec.workerGroupSpecs.0.replicas",
    "containers-map": "spec.rayClusterSpec.headGroupSpec.template.spec.containers",
    "container-no-name": "spec.rayClusterSpec.headGroupSpec.template.spec.containers.0",
    "worker-no-template": "spec.rayClusterSpec.workerGroupSpecs.0",
}


@needs_shared
@pytest.mark.parametrize(("name", "path"), sorted(CRD_REFUSES.items()))
def test_the_rayjob_crd_refuses_what_raygang_refuses(name: str, path: str) -> None:
    fixture = ROOT / "tests" / "fixtures" / "bad" / f"{name}.yaml"
    doc = yaml.safe_load(fixture.read_text())
    errors = schema_errors(doc, "RayJob")
    assert any(e.startswith(f"{path}:") or e.startswith(f"{path}.") for e in errors), errors


@needs_shared
@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_our_fixtures_are_valid_rayjobs(path: Path) -> None:
    for doc in yaml.safe_load_all(path.read_text()):
        if doc["kind"] == "RayJob":
            assert schema_errors(doc, "RayJob") == []
        else:
            assert schema_errors(doc, doc["kind"]) == []
