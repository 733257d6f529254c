"""Bad input: every problem found, each naming the file, the field path, and what is accepted.

Each file in ``tests/fixtures/bad/`` is one bad input. Its header says what must be
reported, one line per problem::

    # expect: <substring of the field path> | <substring of the message or accepted text>

The test loads the file as ``raygang plan FILE`` would and requires exactly one problem
per ``expect`` line: no problem missing, none extra, each naming the file and saying what
would be accepted.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError
from raygang.kube.errors import MapKey, Problem, SpecError, describe_value, field_path
from raygang.kube.names import dns_problem, label_key_problem, label_value_problem
from raygang.loader import load_documents, load_files
from raygang.rayjob.spec import parse_rayjob, problems_from_validation_error
from raygang.rayjob.validate import MAX_JOB_NAME, check_rayjob, load_rayjob
from raygang.volcano.queue import parse_queue

from tests.builders import container, rayjob, worker

FIXTURES = Path(__file__).resolve().parent / "fixtures"
BAD = sorted((FIXTURES / "bad").glob("*.yaml"))
GOOD = sorted((FIXTURES / "good").glob("*.yaml"))


def expectations(path: Path) -> list[tuple[str, str]]:
    """The ``# expect: path | message`` lines of a bad fixture."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# expect:"):
            where, _, what = line.removeprefix("# expect:").partition(" | ")
            out.append((where.strip(), what.strip()))
    return out


def problems_of(*paths: Path) -> tuple[Problem, ...]:
    with pytest.raises(SpecError) as caught:
        load_files(list(paths))
    return caught.value.problems


def matches(problem: Problem, where: str, what: str) -> bool:
    return where in problem.path and (what in problem.message or what in problem.accepted)


def test_every_bad_fixture_declares_expectations() -> None:
    assert len(BAD) >= 90
    for path in BAD:
        assert expectations(path), f"{path.name} has no '# expect:' line"


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_input_is_reported(path: Path) -> None:
    expected = expectations(path)
    found = list(problems_of(path))
    text = "\n".join(str(p) for p in found)
    for where, what in expected:
        hit = next((p for p in found if matches(p, where, what)), None)
        assert hit is not None, f"no problem at {where!r} saying {what!r}; got:\n{text}"
        found.remove(hit)
    assert not found, "unexpected extra problems:\n" + "\n".join(str(p) for p in found)


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_every_problem_names_the_file_and_what_is_accepted(path: Path) -> None:
    for problem in problems_of(path):
        assert problem.source.startswith(str(path)), problem
        assert problem.path, problem
        assert problem.accepted, f"says nothing about what is accepted: {problem}"
        assert "Traceback" not in str(problem)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_good_fixtures_load(path: Path) -> None:
    docs = load_files([path])
    assert docs.jobs


def test_good_fixtures_exist() -> None:
    assert {p.stem for p in GOOD} >= {
        "k8sjob",
        "sidecar",
        "interactive",
        "autoscaling-init",
        "future-fields",
    }


# --- reporting everything at once ---------------------------------------------------------


def _doc(job: dict[str, Any]) -> str:
    return yaml.safe_dump(job, sort_keys=False)


def test_problems_of_all_documents_are_reported_together(tmp_path: Path) -> None:
    bad_name = rayjob(name="Bad_Name")
    good = rayjob(name="fine")
    bad_replicas = rayjob(name="other", workers=[worker(replicas=-3)])
    path = tmp_path / "jobs.yaml"
    path.write_text("---\n".join(_doc(d) for d in (bad_name, good, bad_replicas)))
    found = problems_of(path)
    sources = [p.source for p in found]
    assert sources == [f"{path} (document 1)", f"{path} (document 3)"]
    assert found[0].path == "metadata.name"
    assert found[1].path == "spec.rayClusterSpec.workerGroupSpecs[0].replicas"


def test_problems_of_several_files_are_reported_together(tmp_path: Path) -> None:
    one, two = tmp_path / "one.yaml", tmp_path / "two.yaml"
    one.write_text(_doc(rayjob(name="one", workers=[worker(min_replicas=3, max_replicas=1)])))
    two.write_text("kind: RayJob\nmetadata: {name: [\n")
    found = problems_of(one, two)
    assert [p.source for p in found] == [str(one), str(two)]


def test_structural_and_semantic_problems_of_one_document_come_together() -> None:
    job = rayjob(
        name="x" * (MAX_JOB_NAME + 1),
        workers=[worker("a", replicas="3"), worker("a", min_replicas=9, max_replicas=1)],
        head=[container("ray-head", {"cpu": "one"})],
    )
    with pytest.raises(SpecError) as caught:
        load_rayjob(job, "job.yaml")
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
        load_rayjob(job, "job.yaml")
    assert len(caught.value.problems) == 1


def test_check_rayjob_matches_load_rayjob_on_semantic_problems() -> None:
    job = rayjob(
        workers=[worker(min_replicas=5, max_replicas=2)], labels={"volcano.sh/queue-name": ""}
    )
    item = parse_rayjob(job, "job.yaml")
    with pytest.raises(SpecError) as caught:
        load_rayjob(job, "job.yaml")
    assert tuple(check_rayjob(item)) == caught.value.problems


def test_identical_problems_are_reported_once() -> None:
    problem = Problem("f", "p", "m", "a")
    assert SpecError([problem, problem, Problem("f", "q", "m")]).problems == (
        problem,
        Problem("f", "q", "m"),
    )


# --- decisions ------------------------------------------------------------------------------


def test_a_queue_declared_nowhere_is_assumed_to_exist() -> None:
    docs = load_documents([("job.yaml", rayjob(labels={"volcano.sh/queue-name": "elsewhere"}))])
    assert docs.jobs and not docs.queues


def test_an_empty_queue_label_is_refused_but_no_label_is_fine() -> None:
    load_documents([("job.yaml", rayjob())])
    with pytest.raises(SpecError, match="Volcano's default queue"):
        load_documents([("job.yaml", rayjob(labels={"volcano.sh/queue-name": ""}))])


def test_an_empty_priority_label_is_accepted() -> None:
    # KubeRay copies it into spec.priorityClassName: "", which Volcano's CRD accepts.
    load_documents([("job.yaml", rayjob(labels={"ray.io/priority-class-name": ""}))])


def test_an_empty_job_id_is_unset() -> None:
    # KubeRay's InteractiveMode sample ships jobId: "" for the user to fill in later.
    load_documents([("job.yaml", rayjob(mode="InteractiveMode", jobId=""))])


def test_a_custom_submitter_command_needs_no_entrypoint() -> None:
    template = {"spec": {"containers": [container("submit", command=["/submitter"])]}}
    item = load_rayjob(rayjob(entrypoint="", submitter_template=template), "job.yaml")
    assert item.job.spec.entrypoint == ""


def test_other_kinds_are_companions_of_the_files_jobs() -> None:
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "code"}}
    docs = load_documents([("a.yaml (document 1)", rayjob()), ("a.yaml (document 2)", config_map)])
    assert docs.ignored == ()
    (companion,) = docs.companions
    assert companion.source == "a.yaml (document 2)"
    assert companion.jobs == ("default/rayjob-sample",)
    assert companion.manifest["metadata"] == {"name": "code", "namespace": "default"}


def test_a_queue_only_file_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "queues.yaml"
    path.write_text("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q}\n")
    assert [q.name for q in load_files([path]).queues] == ["q"]


def test_an_unreadable_file_is_reported(tmp_path: Path) -> None:
    found = problems_of(tmp_path / "missing.yaml")
    assert found[0].path == "<file>"
    assert "cannot be read" in found[0].message


def test_a_directory_is_reported(tmp_path: Path) -> None:
    assert "cannot be read" in problems_of(tmp_path)[0].message


def test_a_file_that_is_not_utf8_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: caf\xe9\n")
    assert problems_of(path)[0].message.startswith("is not UTF-8")


def test_yaml_timestamps_stay_text(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(_doc(rayjob(metadata={"day": "x"})).replace("day: x", "day: 2026-11-29"))
    item = load_files([path]).jobs[0]
    assert item.raw["spec"]["metadata"] == {"day": "2026-11-29"}


def test_yaml_merge_keys_may_be_overridden(tmp_path: Path) -> None:
    # An explicit key next to a merge key (<<) overrides it: YAML, not a duplicate.
    path = tmp_path / "job.yaml"
    path.write_text(_doc(rayjob()) + "extra: &d {a: 1}\nmore:\n  <<: *d\n  a: 2\n")
    assert load_files([path]).jobs[0].raw["more"] == {"a": 2}


def test_duplicate_rayjobs_are_reported() -> None:
    with pytest.raises(SpecError, match=r"is also defined in a\.yaml"):
        load_documents([("a.yaml", rayjob()), ("b.yaml", rayjob())])


def test_a_queue_declared_twice_differently_is_reported() -> None:
    one = {"name": "q", "spec": {"weight": 1}}
    two = {"name": "q", "spec": {"weight": 2}}
    with pytest.raises(SpecError, match="declared differently"):
        load_files([], inline_queues=[one, two])


def test_inline_stack_config_problems_name_the_config_key() -> None:
    job = rayjob()
    del job["kind"]
    with pytest.raises(SpecError) as caught:
        load_files([], inline_jobs=[job])
    assert caught.value.problems[0].source == "stack config raygang:jobs[0]"
    assert caught.value.problems[0].path == "kind"


def test_a_short_form_queue_loses_no_field() -> None:
    with pytest.raises(SpecError, match="would be lost"):
        load_files([], inline_queues=[{"name": "q", "labels": {"a": "b"}, "spec": {}}])


def test_a_queue_with_valid_fields_parses() -> None:
    queue = parse_queue(
        {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "Queue",
            "metadata": {"name": "q"},
            "spec": {
                "weight": 65535,
                "priority": 3,
                "parent": "root",
                "reclaimable": True,
                "dequeueStrategy": "fifo",
                "capability": {"cpu": 64, "memory": "256Gi"},
                "deserved": {"cpu": "32"},
                "guarantee": {"resource": {"cpu": "8"}},
            },
        },
        "q.yaml",
    )
    assert str(queue.guarantee["cpu"]) == "8"


def test_a_queue_cannot_be_its_own_parent() -> None:
    with pytest.raises(SpecError, match="cannot use itself as parent"):
        parse_queue({"metadata": {"name": "q"}, "spec": {"parent": "q"}}, "q.yaml")


# --- messages ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "the boolean true"),
        (2.52, "the number 2.52"),
        ("two", "the string 'two'"),
        ({}, "an empty map {}"),
        ({"a": 1, "b": 2}, "a map with keys a, b"),
        ([1, 2, 3], "a list of 3 items"),
        (10**40, "the number 100000000000...(41 digits)"),
        ("x" * 200, "the string '" + "x" * 75 + "...'"),
    ],
)
def test_describe_value(value: object, text: str) -> None:
    assert describe_value(value) == text


def test_field_paths_render_map_keys_in_brackets() -> None:
    parts: list[str | int] = ["spec", "containers", 0, "resources", "requests", MapKey("cpu")]
    assert field_path(parts) == "spec.containers[0].resources.requests['cpu']"
    assert field_path(["metadata", "labels", "volcano.sh/queue-name"]) == (
        "metadata.labels['volcano.sh/queue-name']"
    )
    assert field_path([]) == "<document>"


@pytest.mark.parametrize(
    ("value", "kind", "limit", "why"),
    [
        ("ok-name", "DNS-1035 label", 47, None),
        ("", "DNS-1035 label", 47, "must not be empty"),
        ("9lives", "DNS-1035 label", 47, "is not a valid DNS-1035 label"),
        ("9lives", "DNS-1123 label", 63, None),
        ("a.b", "DNS-1123 label", 63, "is not a valid DNS-1123 label"),
        ("a.b", "DNS-1123 subdomain", 253, None),
        ("x" * 64, "DNS-1123 label", 63, "64 characters long, more than 63"),
    ],
)
def test_dns_problem(value: str, kind: str, limit: int, why: str | None) -> None:
    found = dns_problem(value, kind, limit)
    assert (found is None) if why is None else (found is not None and why in found)


@pytest.mark.parametrize(
    ("key", "ok"),
    [
        ("app", True),
        ("app.kubernetes.io/name", True),
        ("a/b/c", False),
        ("/x", False),
        ("Bad_Prefix/x", False),
        ("x" * 64, False),
        ("-x", False),
    ],
)
def test_label_keys(key: str, ok: bool) -> None:
    assert (label_key_problem(key) is None) is ok


@pytest.mark.parametrize(
    ("value", "ok"), [("", True), ("a_B.c-1", True), ("-a", False), ("a" * 64, False)]
)
def test_label_values(value: str, ok: bool) -> None:
    assert (label_value_problem(value) is None) is ok


def test_settings_messages_keep_their_shape() -> None:
    from raygang.settings import settings_from_getter

    with pytest.raises(SpecError) as caught:
        settings_from_getter({"waitForCompletion": "maybe"}.get, "stack dev config")
    problem = caught.value.problems[0]
    assert problem.path == "raygang:waitForCompletion"
    assert "the string 'maybe'" in problem.message


def test_parse_rayjob_still_reports_structure_only() -> None:
    # Other modules and tests build deliberately odd (but well-typed) jobs through it.
    item = parse_rayjob(rayjob(workers=[worker(min_replicas=5, max_replicas=2)]), "t")
    assert item.job.spec.ray_cluster_spec is not None


def test_the_raw_copy_is_private() -> None:
    job = rayjob()
    item = load_rayjob(job, "job.yaml")
    job["spec"]["entrypoint"] = "changed"
    assert item.raw["spec"]["entrypoint"] != "changed"
    assert item.raw_spec() is not item.raw_spec()
    assert copy.deepcopy(item.raw) == item.raw


@pytest.mark.parametrize(
    ("values", "path", "message", "accepted"),
    [
        (
            {"completionTimeoutSeconds": 0},
            "raygang:completionTimeoutSeconds",
            "the number 0 is out of range",
            "more than 0",
        ),
        ({"accountin": "kuberay"}, "raygang:accountin", "is not a known field", "remove it"),
        ({"jobs": {}}, "raygang:jobs", "an empty map {} is not a list", "a list"),
    ],
)
def test_settings_problems_say_what_is_accepted(
    values: dict[str, object], path: str, message: str, accepted: str
) -> None:
    from raygang.settings import StackSettings

    with pytest.raises(ValidationError) as caught:
        StackSettings.model_validate(values)
    (problem,) = [
        Problem(p.source, f"raygang:{p.path}", p.message, p.accepted)
        for p in problems_from_validation_error(caught.value, "stack dev config")
    ]
    assert (problem.path, problem.message) == (path, message)
    assert accepted in problem.accepted
