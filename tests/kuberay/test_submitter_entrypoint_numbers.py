"""raygang.kuberay.submitter.entrypoint_numbers: ``--entrypoint-num-cpus/gpus`` as Go prints them.

Values marked "Go" were produced by Go's ``fmt.Sprintf("%f", float32)``.
"""

from __future__ import annotations

from typing import Any

import pytest
from raygang.kuberay.submitter import SubmitterError

from tests.kuberay.conftest import kuberay_vector_command


@pytest.mark.parametrize(
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
def test_entrypoint_numbers_use_go_percent_f_of_float32(value: float, expected: str) -> None:
    tokens = kuberay_vector_command(entrypoint_num_cpus=value, entrypoint_num_gpus=value)
    assert tokens[tokens.index("--entrypoint-num-cpus") + 1] == expected
    assert tokens[tokens.index("--entrypoint-num-gpus") + 1] == expected


@pytest.mark.parametrize("value", [None, 0, 0.0, -1])
def test_entrypoint_numbers_omitted_unless_positive(value: float | None) -> None:
    tokens = kuberay_vector_command(entrypoint_num_cpus=value, entrypoint_num_gpus=value)
    assert "--entrypoint-num-cpus" not in tokens
    assert "--entrypoint-num-gpus" not in tokens


@pytest.mark.parametrize("value", [True, "1", 1e39])
def test_entrypoint_numbers_must_be_float32_numbers(value: Any) -> None:
    with pytest.raises(SubmitterError, match="entrypointNumCpus"):
        kuberay_vector_command(entrypoint_num_cpus=value)
