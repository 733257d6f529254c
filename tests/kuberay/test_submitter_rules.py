"""raygang.kuberay.submitter.rules: the submitter's rules the RayJob's validation runs."""

from __future__ import annotations

import pytest
from raygang.kube.errors import SpecError
from raygang.kuberay.submitter import SUBMITTER_RULES, SubmitterError
from raygang.kuberay.submitter.submission import check_submission_id
from raygang.loader import load_documents

from tests.builders import rayjob


@pytest.mark.parametrize("job_id", ["run-1", "a.b_c", "x" * 128, "-x", "$(x)", "a b", "x" * 129])
def test_a_job_id_is_refused_exactly_when_the_submitter_would_refuse_it(job_id: str) -> None:
    try:
        check_submission_id(job_id)
    except SubmitterError:
        refused = True
    else:
        refused = False
    assert (SUBMITTER_RULES.job_id(job_id) is not None) == refused


def test_the_loader_reports_the_submitters_rules_in_their_place() -> None:
    manifest = rayjob(jobId="$(x)", runtimeEnvYAML="- a\n")
    manifest["spec"]["entrypoint"] = "python 'a.py"
    with pytest.raises(SpecError) as caught:
        load_documents([("job.yaml", manifest)])
    paths = [p.path for p in caught.value.problems]
    assert paths == ["spec.entrypoint", "spec.jobId", "spec.runtimeEnvYAML"]


def test_the_runtime_env_rule_words_the_submitters_refusal() -> None:
    refused = SUBMITTER_RULES.runtime_env("- a\n")
    assert refused is not None
    message, accepted = refused
    assert message.startswith("runtimeEnvYAML must be a YAML mapping")
    assert accepted == "a YAML mapping, e.g. 'pip: [requests]'"
    assert SUBMITTER_RULES.runtime_env("pip: [requests]\n") is None
