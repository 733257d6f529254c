"""raygang.rayjob.spec.load_rayjob: structure and semantics of one document, reported together."""

from __future__ import annotations

import copy

import pytest
from raygang.kube.errors import Problem, SpecError
from raygang.kube.quantity import Quantity
from raygang.kuberay.submitter import SUBMITTER_RULES
from raygang.rayjob.spec import load_rayjob, parse_rayjob, parsed_quantities
from raygang.rayjob.validate import MAX_JOB_NAME, manifest_problems

from tests.builders import container, rayjob, worker


def test_structural_and_semantic_problems_of_one_document_come_together() -> None:
    job = rayjob(
        name="x" * (MAX_JOB_NAME + 1),
        workers=[worker("a", replicas="3"), worker("a", min_replicas=9, max_replicas=1)],
        head=[container("ray-head", {"cpu": "one"})],
    )
    with pytest.raises(SpecError) as caught:
        load_rayjob(job, "job.yaml", SUBMITTER_RULES)
    paths = [p.path for p in caught.value.problems]
    assert paths == [
        "spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources.requests['cpu']",
        "spec.rayClusterSpec.workerGroupSpecs[0].replicas",
        "metadata.name",
        "spec.rayClusterSpec.workerGroupSpecs[1].groupName",
        "spec.rayClusterSpec.workerGroupSpecs[1].minReplicas",
    ]


def test_a_semantic_problem_under_a_structural_one_is_not_repeated() -> None:
    # replicas is both the wrong type and (as a number) out of range: one problem.
    job = rayjob(workers=[worker(replicas=True)])
    with pytest.raises(SpecError) as caught:
        load_rayjob(job, "job.yaml", SUBMITTER_RULES)
    assert len(caught.value.problems) == 1


def test_the_semantic_rules_on_a_valid_structure_are_load_rayjobs_problems() -> None:
    job = rayjob(
        workers=[worker(min_replicas=5, max_replicas=2)], labels={"volcano.sh/queue-name": ""}
    )
    item = parse_rayjob(job, "job.yaml")
    with pytest.raises(SpecError) as caught:
        load_rayjob(job, "job.yaml", SUBMITTER_RULES)
    semantic = manifest_problems(
        item.raw, item.source, SUBMITTER_RULES, parsed_quantities(item.job)
    )
    assert tuple(dict.fromkeys(semantic)) == caught.value.problems


def test_identical_problems_are_reported_once() -> None:
    problem = Problem("f", "p", "m", "a")
    assert SpecError([problem, problem, Problem("f", "q", "m")]).problems == (
        problem,
        Problem("f", "q", "m"),
    )


def test_parse_rayjob_still_reports_structure_only() -> None:
    # Other modules and tests build deliberately odd (but well-typed) jobs through it.
    item = parse_rayjob(rayjob(workers=[worker(min_replicas=5, max_replicas=2)]), "t")
    assert item.job.spec.ray_cluster_spec is not None


def test_the_raw_copy_is_private() -> None:
    job = rayjob()
    item = load_rayjob(job, "job.yaml", SUBMITTER_RULES)
    job["spec"]["entrypoint"] = "changed"
    assert item.raw["spec"]["entrypoint"] != "changed"
    assert item.raw_spec() is not item.raw_spec()
    assert copy.deepcopy(item.raw) == item.raw


def test_k8s_token_auth_is_refused_at_load_with_its_field_and_what_is_accepted() -> None:
    # The real engine showed it only at planning, against `spec`, with no accepted values.
    job = rayjob()
    job["spec"]["rayClusterSpec"]["rayVersion"] = "2.52.0"
    job["spec"]["rayClusterSpec"]["authOptions"] = {"mode": "token", "enableK8sTokenAuth": True}
    with pytest.raises(SpecError) as caught:
        load_rayjob(job, "job.yaml", SUBMITTER_RULES)
    assert caught.value.problems == (
        Problem(
            "job.yaml",
            "spec.rayClusterSpec.authOptions.enableK8sTokenAuth",
            "The RayJob spec is invalid: K8s token auth mode is currently not supported for RayJob",
            "false or unset: token auth with the token Secret (authOptions.secretName)",
        ),
    )
    job["spec"]["rayClusterSpec"]["authOptions"]["enableK8sTokenAuth"] = False
    assert load_rayjob(job, "job.yaml", SUBMITTER_RULES).name == job["metadata"]["name"]


def test_deletion_strategy_problems_follow_the_other_semantic_ones() -> None:
    # The model checks the strategy once the structure is valid; load_rayjob reports what
    # it found after the problems of the manifest's other rules, as before the fold.
    job = rayjob(
        labels={"volcano.sh/queue-name": ""},
        deletionStrategy={"deletionRules": [{"policy": "Nope", "condition": {"jobStatus": "X"}}]},
    )
    with pytest.raises(SpecError) as caught:
        load_rayjob(job, "job.yaml", SUBMITTER_RULES)
    assert [(p.path, p.message) for p in caught.value.problems] == [
        (
            "metadata.labels['volcano.sh/queue-name']",
            "is empty: KubeRay would set the PodGroup's spec.queue to \"\", which Volcano's "
            "CRD refuses",
        ),
        ("spec.deletionStrategy.deletionRules[0].policy", "'Nope' is not a deletion policy"),
        ("spec.deletionStrategy.deletionRules[0].condition.jobStatus", "'X' is not supported"),
    ]


def test_the_deletion_strategy_is_not_checked_while_the_structure_is_wrong() -> None:
    # As before the fold: a structural problem anywhere, and the strategy waits for it.
    job = rayjob(workers=[worker(replicas="3")], deletionStrategy={"deletionRules": []})
    with pytest.raises(SpecError) as caught:
        load_rayjob(job, "job.yaml", SUBMITTER_RULES)
    assert [p.path for p in caught.value.problems] == [
        "spec.rayClusterSpec.workerGroupSpecs[0].replicas"
    ]


def test_the_checked_deletion_strategy_is_not_read_from_the_manifest() -> None:
    job = rayjob()
    job["deletion"] = {"rules": ["injected"]}
    assert load_rayjob(job, "job.yaml", SUBMITTER_RULES).job.deletion is None


def _every_quantity_job() -> dict[str, object]:
    """A valid job with quantities in every container list the checks read."""
    return rayjob(
        head=[container("ray-head", {"cpu": "1", "memory": "2Gi"}, {"cpu": "2"})],
        head_pod={"initContainers": [container("init", {"cpu": "100m"})]},
        workers=[
            worker(
                containers=[container("ray-worker", {"nvidia.com/gpu": 1}, {"nvidia.com/gpu": 1})]
            )
        ],
        submitter_template={"spec": {"containers": [container("submit", {"memory": "300Mi"})]}},
    )


def test_a_valid_jobs_quantities_are_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The semantic checks read the quantities the typed model parsed, not the text again.
    seen: list[object] = []
    parse = Quantity.parse.__func__  # type: ignore[attr-defined]

    def spy(cls: type[Quantity], text: str | int | float) -> Quantity:
        seen.append(text)
        result: Quantity = parse(cls, text)
        return result

    monkeypatch.setattr(Quantity, "parse", classmethod(spy))
    load_rayjob(_every_quantity_job(), "job.yaml", SUBMITTER_RULES)
    assert sorted(map(str, seen)) == sorted(["1", "2Gi", "2", "100m", "1", "1", "300Mi"])


def test_the_parsed_quantities_are_named_as_the_checks_name_them() -> None:
    item = parse_rayjob(_every_quantity_job(), "job.yaml")
    head = "spec.rayClusterSpec.headGroupSpec.template.spec"
    worker0 = "spec.rayClusterSpec.workerGroupSpecs[0].template.spec"
    assert {k: str(v) for k, v in parsed_quantities(item.job).items()} == {
        f"{head}.initContainers[0].resources.requests['cpu']": "100m",
        f"{head}.containers[0].resources.requests['cpu']": "1",
        f"{head}.containers[0].resources.requests['memory']": "2Gi",
        f"{head}.containers[0].resources.limits['cpu']": "2",
        f"{worker0}.containers[0].resources.requests['nvidia.com/gpu']": "1",
        f"{worker0}.containers[0].resources.limits['nvidia.com/gpu']": "1",
        "spec.submitterPodTemplate.spec.containers[0].resources.requests['memory']": "300Mi",
    }


@pytest.mark.parametrize("replicas", [1, "1"])
def test_a_request_above_its_limit_is_refused_with_or_without_the_typed_model(
    replicas: object,
) -> None:
    # replicas "1" fails the structure, so the raw text is read; 1 passes it, so the typed
    # model's quantities are: the problem is the same.
    job = rayjob(
        workers=[worker(replicas=replicas, containers=[container("w", {"cpu": "2"}, {"cpu": "1"})])]
    )
    with pytest.raises(SpecError) as caught:
        load_rayjob(job, "job.yaml", SUBMITTER_RULES)
    found = [p for p in caught.value.problems if "resources" in p.path]
    assert [(p.path, p.message) for p in found] == [
        (
            "spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources"
            ".requests['cpu']",
            "request 2 is more than the limit 1",
        )
    ]
