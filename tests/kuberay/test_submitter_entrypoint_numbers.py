"""raygang.kuberay.submitter.entrypoint_numbers: ``--entrypoint-num-cpus/gpus`` as Go prints them.

Values marked "Go" were produced by Go's ``fmt.Sprintf("%f", float32)``.
"""

from __future__ import annotations

from typing import Any

import pytest
from raygang.kube.errors import SpecError
from raygang.kuberay.submitter import SubmitterError

from tests.kuberay.conftest import job_spec, kuberay_vector_command, template_for, typed_job

GO_PERCENT_F = pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, "1.000000"),
        (0.5, "0.500000"),
        (0.1, "0.100000"),
        (2.5, "2.500000"),
        (1 / 128, "0.007812"),  # Go: exact tie, rounded half to even
        (3 / 128, "0.023438"),
        (1234567.8, "1234567.750000"),  # Go: the CRD field is float32
        (16777217, "16777216.000000"),
        (5e-7, "0.000000"),  # > 0, so KubeRay emits it even though it prints as zero
    ],
)


@GO_PERCENT_F
def test_entrypoint_numbers_use_go_percent_f_of_float32(value: float, expected: str) -> None:
    tokens = kuberay_vector_command(entrypoint_num_cpus=value, entrypoint_num_gpus=value)
    assert tokens[tokens.index("--entrypoint-num-cpus") + 1] == expected
    assert tokens[tokens.index("--entrypoint-num-gpus") + 1] == expected


@pytest.mark.parametrize("value", [None, 0, 0.0, -1])
def test_entrypoint_numbers_omitted_unless_positive(value: float | None) -> None:
    tokens = kuberay_vector_command(entrypoint_num_cpus=value, entrypoint_num_gpus=value)
    assert "--entrypoint-num-cpus" not in tokens
    assert "--entrypoint-num-gpus" not in tokens


@GO_PERCENT_F
def test_the_typed_model_gives_the_same_text(value: float, expected: str) -> None:
    # The model (StrictFloat) hands an int over as a float: 1 becomes 1.0, 16777217 becomes
    # 16777217.0. The job's script carries the same text either way.
    spec = job_spec(entrypointNumCpus=value, entrypointNumGpus=value)
    (script,) = template_for(spec)["spec"]["containers"][0]["args"]
    assert f"--entrypoint-num-cpus {expected} --entrypoint-num-gpus {expected} " in script
    if isinstance(value, int):
        as_float = job_spec(entrypointNumCpus=float(value), entrypointNumGpus=float(value))
        assert template_for(as_float) == template_for(spec)


def test_entrypoint_numbers_must_be_float32_numbers() -> None:
    with pytest.raises(SubmitterError, match="entrypointNumCpus"):
        kuberay_vector_command(entrypoint_num_cpus=1e39)


@pytest.mark.parametrize("value", [True, "1"])
def test_entrypoint_numbers_that_are_no_numbers_are_refused_by_the_model(value: Any) -> None:
    # The typed model refuses them; the submitter only ever reads what it holds.
    with pytest.raises(SpecError, match=r"spec\.entrypointNumCpus"):
        typed_job(job_spec(entrypointNumCpus=value))
