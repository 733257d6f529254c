"""raygang.rayjob.validate.jobspec: what KubeRay's ValidateRayJobSpec and the submitter refuse."""

from __future__ import annotations

import pytest
from raygang.kuberay.submitter import SUBMITTER_RULES, submission_id
from raygang.loader import load_documents
from raygang.rayjob.spec import load_rayjob
from raygang.rayjob.validate import manifest_problems

from tests.builders import container, rayjob


def test_an_empty_job_id_is_unset() -> None:
    # KubeRay's InteractiveMode sample ships jobId: "" for the user to fill in later: the job
    # loads, and its submission ID is the one it gets with no jobId at all, never "".
    empty = load_documents([("job.yaml", rayjob(jobId=""))]).jobs[0]
    absent = load_documents([("job.yaml", rayjob())]).jobs[0]
    sid = submission_id(empty)
    assert sid == submission_id(absent)
    assert sid.startswith(f"{empty.name}-")
    load_documents([("job.yaml", rayjob(mode="InteractiveMode", jobId=""))])


def test_a_custom_submitter_command_needs_no_entrypoint() -> None:
    template = {"spec": {"containers": [container("submit", command=["/submitter"])]}}
    item = load_rayjob(
        rayjob(entrypoint="", submitter_template=template), "job.yaml", SUBMITTER_RULES
    )
    assert item.job.spec.entrypoint == ""


@pytest.mark.parametrize(
    ("entrypoint", "said"),
    [
        (
            "python a.py ; fi ; echo X ; if true ; then true",
            "syntax error near unexpected token `fi'",
        ),
        ("python 'a.py", "unexpected EOF while looking for matching `''"),
        ('python a.py "unbalanced', "unexpected EOF while looking for matching `\"'"),
        ("python a.py &&", "syntax error: unexpected end of file"),
        ("python a.py )", "syntax error near unexpected token `)'"),
    ],
)
def test_validation_refuses_what_bash_cannot_parse_with_bashs_message(
    entrypoint: str, said: str
) -> None:
    manifest = rayjob()
    manifest["spec"]["entrypoint"] = entrypoint
    (problem,) = manifest_problems(manifest, "jobs/x.yaml", SUBMITTER_RULES)
    assert problem.path == "spec.entrypoint"
    assert problem.message.startswith(
        "bash cannot parse it as the submitter runs it (ray job submit ... -- <entrypoint>): line"
    )
    assert said in problem.message
    assert problem.accepted.startswith("a shell command bash can parse")


@pytest.mark.parametrize("entrypoint", ["python a.py # note", "python a.py\necho X"])
def test_validation_accepts_what_bash_parses(entrypoint: str) -> None:
    manifest = rayjob()
    manifest["spec"]["entrypoint"] = entrypoint
    assert manifest_problems(manifest, "jobs/x.yaml", SUBMITTER_RULES) == []


def test_an_entrypoint_the_submitter_does_not_run_is_not_checked() -> None:
    manifest = rayjob(mode="InteractiveMode")
    manifest["spec"]["entrypoint"] = "python 'a.py"
    assert manifest_problems(manifest, "jobs/x.yaml", SUBMITTER_RULES) == []
