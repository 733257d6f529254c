"""raygang.kuberay.submitter.submission: the submission ID, deterministic and validated."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest
from raygang.kuberay.submitter import SubmitterError, submission_id

from tests.kuberay.conftest import job_spec, typed_job


def reorder(value: Any) -> Any:
    """The same data with every mapping's keys in reverse order."""
    if isinstance(value, dict):
        return {k: reorder(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reorder(v) for v in value]
    return value


def test_submission_id_is_deterministic_and_order_independent() -> None:
    spec = job_spec(metadata={"a": "1", "b": "2"})
    sid = submission_id(typed_job(spec))
    assert sid == submission_id(typed_job(copy.deepcopy(spec)))
    assert sid == submission_id(typed_job(reorder(spec)))
    assert sid.startswith("train-") and len(sid) == len("train-") + 8
    assert re.fullmatch(r"[0-9a-f]{8}", sid.rsplit("-", 1)[1]), sid  # eight hex digits


def test_submission_id_ignores_yaml_formatting_and_numeric_spelling() -> None:
    spec = job_spec()
    sid = submission_id(typed_job(spec))
    reformatted = "# comment\nenv_vars: {MODE: train}\npip: [requests==2.32.3]\n"
    assert submission_id(typed_job(job_spec(runtimeEnvYAML=reformatted))) == sid
    assert (
        submission_id(typed_job(job_spec(entrypoint="  python /app/main.py --epochs 3\n"))) == sid
    )
    assert submission_id(typed_job(job_spec(entrypointNumCpus=1))) == submission_id(
        typed_job(job_spec(entrypointNumCpus=1.0))
    )


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s.update(entrypoint="python /app/main.py --epochs 4"),
        lambda s: s.update(runtimeEnvYAML="env_vars:\n  MODE: eval\n"),
        lambda s: s.update(metadata={"team": "ml"}),
        lambda s: s.update(entrypointNumCpus=2),
        lambda s: s.update(entrypointNumGpus=1),
        lambda s: s.update(entrypointResources='{"TPU": 1}'),
        lambda s: s["rayClusterSpec"]["workerGroupSpecs"][0].update(replicas=3),
        lambda s: s["rayClusterSpec"].update(rayVersion="2.61.0"),
    ],
)
def test_submission_id_changes_with_what_defines_the_run(change: Callable[[Any], None]) -> None:
    spec = job_spec()
    changed = copy.deepcopy(spec)
    change(changed)
    assert submission_id(typed_job(changed)) != submission_id(typed_job(spec))


def test_submission_id_ignores_submitter_only_fields_and_uses_job_name() -> None:
    spec = job_spec()
    sid = submission_id(typed_job(spec))
    assert submission_id(typed_job(job_spec(submitterConfig={"backoffLimit": 5}))) == sid
    assert submission_id(typed_job(spec, name="other")).startswith("other-")
    assert submission_id(typed_job(spec, name="other")).rsplit("-", 1)[1] == sid.rsplit("-", 1)[1]


def test_job_id_wins_and_is_validated() -> None:
    assert submission_id(typed_job(job_spec(jobId="my-run.2024_01"))) == "my-run.2024_01"
    for bad in ["a b", "x;rm -rf /", "$(id)", "-rf", "a\nb", "x" * 129, "é"]:
        with pytest.raises(SubmitterError, match="is not accepted"):
            submission_id(typed_job(job_spec(jobId=bad)))


def test_ids_are_those_of_the_plain_spec_reader() -> None:
    # The IDs the submitter gave these specs when it read the plain `spec` mapping (computed
    # with that code): reading the typed model must not change a job's ID, or a re-run of
    # an unchanged job would submit it again. The model reads a missing entrypoint as "",
    # but a job written without one keeps its own ID (the manifest says which it is), and
    # an int and a float of the same value hash alike.
    without_entrypoint = job_spec()
    del without_entrypoint["entrypoint"]
    numbers = job_spec(
        entrypointNumCpus=1,
        entrypointNumGpus=0.5,
        metadata={"k": "v"},
        entrypointResources='{"a": 1}',
    )
    assert submission_id(typed_job(job_spec())) == "train-9316aeee"
    assert submission_id(typed_job(without_entrypoint)) == "train-1f225eee"
    assert submission_id(typed_job(job_spec(entrypoint=""))) == "train-62160f23"
    assert submission_id(typed_job(numbers)) == "train-f49e285b"
    assert submission_id(typed_job(dict(numbers, entrypointNumCpus=1.0))) == "train-f49e285b"
