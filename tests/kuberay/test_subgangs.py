"""Sub-gangs (issue 27, item 3): the PodGroup's subGroupPolicy for multi-host worker groups,
opt-in per job (``raygang.dev/sub-gangs``) or per stack (``raygang:subGangs``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from raygang.kube.errors import SpecError
from raygang.kuberay.settings import JobSettings
from raygang.kuberay.subgangs import SubGang, sub_gangs
from raygang.lifecycle.facts.live import podgroup_spec_fields
from raygang.loader import load_documents
from raygang.pipeline import plan_everything
from raygang.plan import plan_job
from raygang.rayjob.spec import parse_rayjob
from raygang.render.document import plan_document
from raygang.render.table import render_table
from raygang.settings import StackSettings, settings_from_getter

from tests.builders import container, rayjob, worker

ASK = {"raygang.dev/sub-gangs": "true"}


def _tpu(**kw: Any) -> dict[str, Any]:
    return worker("tpu", containers=[container("ray-worker", {"cpu": "2", "memory": "1Gi"})], **kw)


def _plan(manifest: dict[str, Any], settings: JobSettings | None = None) -> Any:
    return plan_job(parse_rayjob(manifest, "job.yaml"), settings or JobSettings(), {})


def _podgroup(manifest: dict[str, Any], settings: JobSettings | None = None) -> dict[str, Any]:
    resource = _plan(manifest, settings).resource("podgroup")
    assert resource is not None
    return dict(resource.manifest)


def test_a_multi_host_group_gets_one_policy_per_group() -> None:
    job = rayjob(
        annotations=ASK,
        autoscaling=True,
        workers=[
            _tpu(replicas=2, min_replicas=1, max_replicas=3, num_of_hosts=2),
            worker("cpu", replicas=3, min_replicas=3, max_replicas=3),
        ],
    )
    spec = _podgroup(job)["spec"]
    assert spec["minMember"] == 1 + 2 + 3  # unchanged: head, one tpu replica, 3 cpu pods
    assert spec["subGroupPolicy"] == [
        {
            "name": "tpu",
            "subGroupSize": 2,
            "minSubGroups": 1,
            "labelSelector": {"matchLabels": {"ray.io/group": "tpu"}},
            "matchLabelKeys": ["ray.io/worker-group-replica-name"],
        }
    ]


def test_without_autoscaling_every_replica_is_required() -> None:
    job = rayjob(annotations=ASK, workers=[_tpu(replicas=3, num_of_hosts=4)])
    (policy,) = _podgroup(job)["spec"]["subGroupPolicy"]
    assert (policy["subGroupSize"], policy["minSubGroups"]) == (4, 3)


def test_off_by_default_the_podgroup_is_what_it_was() -> None:
    job = rayjob(workers=[_tpu(replicas=2, num_of_hosts=2)])
    plan = _plan(job)
    assert "subGroupPolicy" not in plan.resource("podgroup").manifest["spec"]
    assert plan.sub_gangs == ()


def test_the_stack_setting_asks_for_every_job() -> None:
    settings = settings_from_getter({"subGangs": True}.get, "stack").defaults()
    job = rayjob(workers=[_tpu(replicas=2, num_of_hosts=2)])
    assert _podgroup(job, settings)["spec"]["subGroupPolicy"][0]["name"] == "tpu"


def test_the_job_annotation_false_overrides_the_stack() -> None:
    settings = JobSettings(sub_gangs=True)
    job = rayjob(
        annotations={"raygang.dev/sub-gangs": "false"},
        workers=[_tpu(replicas=2, num_of_hosts=2)],
    )
    assert "subGroupPolicy" not in _podgroup(job, settings)["spec"]


def test_asked_by_the_job_without_a_multi_host_group_is_refused() -> None:
    job = rayjob(annotations=ASK, workers=[worker("cpu", replicas=2)])
    with pytest.raises(SpecError) as caught:
        _plan(job)
    (problem,) = caught.value.problems
    assert problem.path == "metadata.annotations['raygang.dev/sub-gangs']"
    assert problem.message == (
        "asks for sub-gangs, but no worker group has numOfHosts > 1 (cpu numOfHosts 1): a "
        "replica of one pod is already placed whole, so there is no replica to keep together"
    )
    assert problem.accepted == "a worker group with numOfHosts > 1, or the annotation removed"


def test_asked_by_the_job_without_any_worker_group_is_refused() -> None:
    with pytest.raises(SpecError, match=r"numOfHosts > 1 \(no worker groups\)"):
        _plan(rayjob(annotations=ASK))


def test_a_bad_annotation_value_is_refused() -> None:
    job = rayjob(annotations={"raygang.dev/sub-gangs": "yes"}, workers=[_tpu(num_of_hosts=2)])
    with pytest.raises(SpecError, match=r"'yes' is not a boolean"):
        _plan(job)


def test_asked_by_the_stack_a_single_host_job_is_a_shown_no_op() -> None:
    job = rayjob(workers=[worker("cpu", replicas=2)])
    plan = _plan(job, JobSettings(sub_gangs=True))
    assert "subGroupPolicy" not in plan.resource("podgroup").manifest["spec"]
    assert plan.sub_gangs == ()


def test_single_host_and_suspended_groups_get_no_policy() -> None:
    job = rayjob(
        annotations=ASK,
        workers=[
            worker("cpu", replicas=2),
            _tpu(replicas=2, num_of_hosts=2, suspend=True),
            worker("gpu", replicas=1, num_of_hosts=8),
        ],
    )
    names = [p["name"] for p in _podgroup(job)["spec"]["subGroupPolicy"]]
    assert names == ["gpu"]


def test_a_suspended_multi_host_group_is_not_an_error() -> None:
    # Suspending a group must not turn a job's annotation into an error.
    job = rayjob(annotations=ASK, workers=[_tpu(replicas=2, num_of_hosts=2, suspend=True)])
    plan = _plan(job)
    assert "subGroupPolicy" not in plan.resource("podgroup").manifest["spec"]


def test_sub_gangs_of_a_cluster_spec() -> None:
    job = parse_rayjob(
        rayjob(
            autoscaling=True,
            workers=[_tpu(replicas=5, min_replicas=2, max_replicas=4, num_of_hosts=2)],
        ),
        "job.yaml",
    )
    cluster = job.job.spec.ray_cluster_spec
    assert cluster is not None
    assert sub_gangs(cluster) == (SubGang("tpu", 2, 2, 4),)


def test_the_plan_shows_them() -> None:
    job = rayjob(
        name="tpu-job",
        annotations=ASK,
        autoscaling=True,
        workers=[_tpu(replicas=2, min_replicas=1, max_replicas=2, num_of_hosts=2)],
    )
    docs = load_documents([("job.yaml", job)])
    stack = plan_everything(docs, StackSettings(), base=Path("."))
    table = render_table(stack)
    assert (
        "  sub-gangs     worker group tpu: 2 replica(s) of 2 hosts, each placed whole; "
        "minSubGroups 1 (subGroupPolicy)\n" in table
    )
    document = json.loads(json.dumps(plan_document(stack)))
    assert document["jobs"][0]["podGroup"]["subGroupPolicy"][0]["subGroupSize"] == 2


def test_the_plan_shows_a_stack_wide_no_op() -> None:
    docs = load_documents([("job.yaml", rayjob(workers=[worker("cpu", replicas=1)]))])
    stack = plan_everything(docs, StackSettings(subGangs=True), base=Path("."))
    assert "  sub-gangs     none: no worker group has numOfHosts > 1" in render_table(stack)
    assert plan_document(stack)["jobs"][0]["podGroup"]["subGroupPolicy"] == []


def test_without_the_setting_the_documents_have_no_sub_gang_key() -> None:
    docs = load_documents([("job.yaml", rayjob(workers=[_tpu(replicas=2, num_of_hosts=2)]))])
    stack = plan_everything(docs, StackSettings(), base=Path("."))
    assert "sub-gangs" not in render_table(stack)
    assert "subGroupPolicy" not in plan_document(stack)["jobs"][0]["podGroup"]


# --- the installed PodGroup CRD ------------------------------------------------------------
# Where `make tools` installs Volcano's CRDs (as tests/e2e/conftest.py finds the tools).
TOOLS = Path(os.environ.get("RAYGANG_TOOLS", Path(__file__).resolve().parents[2] / ".tools"))
CRDS = TOOLS / "share/crds-volcano/scheduling.volcano.sh_podgroups.yaml"


def _crd(spec_fields: list[str]) -> dict[str, Any]:
    properties = {name: {"type": "object"} for name in spec_fields}
    schema = {"openAPIV3Schema": {"properties": {"spec": {"properties": properties}}}}
    return {"spec": {"versions": [{"name": "v1beta1", "schema": schema}]}}


def test_the_crd_s_spec_fields_are_read_from_its_v1beta1_schema() -> None:
    assert podgroup_spec_fields(_crd(["minMember", "queue"])) == {"minMember", "queue"}
    assert podgroup_spec_fields({"spec": {"versions": [{"name": "v1alpha1"}]}}) is None
    assert podgroup_spec_fields({}) is None


@pytest.mark.skipif(not CRDS.exists(), reason=f"{CRDS} is absent (make tools installs it)")
def test_the_crd_our_local_control_plane_installs_has_sub_groups() -> None:
    import yaml

    fields = podgroup_spec_fields(yaml.safe_load(CRDS.read_text()))
    assert fields is not None and "subGroupPolicy" in fields


def _stack(job: dict[str, Any], fields: frozenset[str] | None, **settings: Any) -> Any:
    docs = load_documents([("job.yaml", job)])
    return plan_everything(docs, StackSettings(**settings), base=Path("."), podgroup_fields=fields)


def test_an_older_crd_refuses_sub_gangs_with_the_field_it_lacks() -> None:
    job = rayjob(annotations=ASK, workers=[_tpu(replicas=2, num_of_hosts=2)])
    with pytest.raises(SpecError) as caught:
        _stack(job, frozenset({"minMember", "minResources", "queue"}))
    (problem,) = caught.value.problems
    assert problem.path == "metadata.annotations['raygang.dev/sub-gangs']"
    assert problem.message == (
        "asks for sub-gangs (worker group tpu), but the cluster's PodGroup CRD "
        "(podgroups.scheduling.volcano.sh, v1beta1) has no spec.subGroupPolicy: the API server "
        "would drop it and Volcano would place the gang as one"
    )
    assert problem.accepted == "Volcano v1.14 or later (its PodGroup CRD), or sub-gangs turned off"


def test_an_older_crd_names_the_stack_setting_when_the_stack_asked() -> None:
    job = rayjob(workers=[_tpu(replicas=2, num_of_hosts=2)])
    with pytest.raises(SpecError, match=r"raygang:subGangs: asks for sub-gangs"):
        _stack(job, frozenset({"minMember"}), subGangs=True)


def test_an_older_crd_is_fine_without_sub_gangs_or_with_a_no_op() -> None:
    old = frozenset({"minMember"})
    assert _stack(rayjob(workers=[_tpu(replicas=2, num_of_hosts=2)]), old).jobs
    assert _stack(rayjob(workers=[worker("cpu")]), old, subGangs=True).jobs


def test_a_crd_with_the_field_or_an_unknown_one_plans() -> None:
    job = rayjob(annotations=ASK, workers=[_tpu(replicas=2, num_of_hosts=2)])
    assert _stack(job, frozenset({"minMember", "subGroupPolicy"})).jobs
    assert _stack(job, None).jobs
