"""raygang.kuberay.submitter.command: KubeRay's ``ray job submit`` tokens, modes, metadata.

Expected values marked "KubeRay" are copied from KubeRay v1.7.0's Go tests
(``common/job_test.go``, ``rayjob_controller_unit_test.go``). Go's quoting and the runtime
env's YAML to JSON have their own tests (``test_submitter_goquote.py``,
``test_submitter_goyaml.py``).
"""

from __future__ import annotations

import pytest
from raygang.kuberay.submitter import SubmitterError, build_submit_command, submit_shell
from raygang.kuberay.submitter._goquote import go_quote

from tests.kuberay.conftest import KUBERAY_ENTRYPOINT, kuberay_vector_command

# KubeRay's BasePythonHealthCommand with the URL and the 10 s timeout filled in.
HEALTH = (
    "python -c \"import urllib.request; r=urllib.request.urlopen('{url}', timeout=10); "
    "exit(0 if b'success' in r.read() else 1)\""
)


def test_k8s_job_mode_token_vector_matches_kuberay() -> None:
    # KubeRay TestBuildJobSubmitCommandWithK8sJobMode.
    address = "http://127.0.0.1:8265"
    expected = [
        "until",
        HEALTH.format(url=address + "/api/gcs_healthz"),
        ">/dev/null",
        "2>&1",
        ";",
        "do",
        "echo",
        go_quote(f"Waiting for Ray Dashboard GCS to become healthy at {address} ..."),
        ";",
        "sleep",
        "2",
        ";",
        "done",
        ";",
        "if",
        "!",
        "ray",
        "job",
        "status",
        "--address",
        address,
        "testJobId",
        ">/dev/null",
        "2>&1",
        ";",
        "then",
        "ray",
        "job",
        "submit",
        "--address",
        address,
        "--no-wait",
        "--runtime-env-json",
        '"{\\"test\\":\\"test\\"}"',
        "--metadata-json",
        '"{\\"testKey\\":\\"testValue\\"}"',
        "--submission-id",
        "testJobId",
        "--entrypoint-num-cpus",
        "1.000000",
        "--entrypoint-num-gpus",
        "0.500000",
        "--entrypoint-resources",
        '"{\\"Custom_1\\": 1, \\"Custom_2\\": 5.5}"',
        "--",
        KUBERAY_ENTRYPOINT,
        ";",
        "fi",
        ";",
        "ray",
        "job",
        "logs",
        "--address",
        address,
        "--follow",
        "testJobId",
    ]
    assert kuberay_vector_command() == expected


def test_runtime_env_yaml_vector_has_go_sorted_keys() -> None:
    # KubeRay TestBuildJobSubmitCommandWithK8sJobModeAndYAML compares maps because Go's
    # json.Marshal sorts the keys; the exact bytes are therefore these.
    yaml_text = (
        '\nworking_dir: "https://github.com/ray-project/serve_config_examples/archive/'
        'b393e77bbd6aba0881e3d94c05f968f05a387b96.zip"\npip: ["python-multipart==0.0.6"]\n'
    )
    tokens = kuberay_vector_command(
        runtime_env_yaml=yaml_text,
        entrypoint_num_cpus=None,
        entrypoint_num_gpus=None,
        entrypoint_resources=None,
    )
    value = tokens[tokens.index("--runtime-env-json") + 1]
    assert value == go_quote(
        '{"pip":["python-multipart==0.0.6"],"working_dir":"https://github.com/ray-project/'
        'serve_config_examples/archive/b393e77bbd6aba0881e3d94c05f968f05a387b96.zip"}'
    )
    assert tokens[tokens.index("--submission-id") + 2] == "--"


def test_sidecar_mode_tokens_match_kuberay() -> None:
    # KubeRay TestBuildJobSubmitCommandWithSidecarMode.
    tokens = kuberay_vector_command(mode="SidecarMode", address="127.0.0.1:8265")
    address = "http://127.0.0.1:8265"
    assert tokens == [
        "until",
        HEALTH.format(url="http://localhost:8265/api/gcs_healthz"),
        ">/dev/null",
        "2>&1",
        ";",
        "do",
        "echo",
        go_quote(f"Waiting for Ray Dashboard GCS to become healthy at {address} ..."),
        ";",
        "sleep",
        "2",
        ";",
        "done",
        ";",
        "ray",
        "job",
        "submit",
        "--address",
        address,
        "--runtime-env-json",
        go_quote('{"test":"test"}'),
        "--metadata-json",
        go_quote('{"testKey":"testValue"}'),
        "--submission-id",
        "testJobId",
        "--entrypoint-num-cpus",
        "1.000000",
        "--entrypoint-num-gpus",
        "0.500000",
        "--entrypoint-resources",
        go_quote('{"Custom_1": 1, "Custom_2": 5.5}'),
        "--",
        KUBERAY_ENTRYPOINT,
        ";",
    ]


def test_sidecar_restart_adds_guard_no_wait_and_logs_like_the_feature_gate() -> None:
    # KubeRay TestBuildJobSubmitCommandWithSidecarModeAndFeatureGate.
    gated = kuberay_vector_command(
        mode="SidecarMode", address="127.0.0.1:8265", sidecar_restart=True
    )
    k8s = kuberay_vector_command()
    assert gated[1] == HEALTH.format(url="http://localhost:8265/api/gcs_healthz")
    assert gated[2:] == k8s[2:]


@pytest.mark.parametrize("mode", ["HTTPMode", "InteractiveMode", "k8sjobmode", ""])
def test_unsupported_modes_are_rejected(mode: str) -> None:
    with pytest.raises(SubmitterError, match="unsupported submission mode for job submit command"):
        kuberay_vector_command(mode=mode)


def test_metadata_with_ray_2_5_is_rejected_with_kuberays_message() -> None:
    with pytest.raises(SubmitterError) as info:
        kuberay_vector_command(ray_version="2.5.0")
    assert str(info.value) == "the Ray version must be at least 2.6.0 to use the metadata field"


@pytest.mark.parametrize("version", ["2.6.0", "2.6", "v2.9.1", "2.60.0", "3", "2.6.0+build.1"])
def test_metadata_accepted_for_ray_at_least_2_6(version: str) -> None:
    tokens = kuberay_vector_command(ray_version=version)
    assert tokens[tokens.index("--metadata-json") + 1] == go_quote('{"testKey":"testValue"}')


@pytest.mark.parametrize("version", ["2.5.9", "1.13.0", "2", "2.9.0-rc1"])
def test_metadata_rejected_below_2_6_and_for_prereleases(version: str) -> None:
    # Masterminds/semver: a pre-release never satisfies ">= 2.6.0" (KubeRay's constraint).
    with pytest.raises(SubmitterError, match=r"at least 2\.6\.0"):
        kuberay_vector_command(ray_version=version)


def test_metadata_with_unparseable_version_fails_and_without_version_passes() -> None:
    with pytest.raises(SubmitterError, match="failed to parse Ray version: not-a-version"):
        kuberay_vector_command(ray_version="not-a-version")
    assert "--metadata-json" in kuberay_vector_command(ray_version=None)
    # No metadata: the version is never checked (KubeRay only checks before --metadata-json).
    assert "--metadata-json" not in kuberay_vector_command(metadata=None, ray_version="1.0.0")
    assert "--metadata-json" not in kuberay_vector_command(metadata={}, ray_version="1.0.0")


def test_metadata_json_is_sorted_compact_and_html_escaped() -> None:
    tokens = kuberay_vector_command(metadata={"z": "1", "a": "<b>&", "m": "ü"})
    value = tokens[tokens.index("--metadata-json") + 1]
    assert value == go_quote('{"a":"\\u003cb\\u003e\\u0026","m":"ü","z":"1"}')


def test_unsafe_values_never_reach_the_shell_unquoted() -> None:
    with pytest.raises(SubmitterError, match="submission ID"):
        kuberay_vector_command(submission_id="id;reboot")
    for address in ["x;y:8265", "$(id):1", "[::1]:8265", "https://x:1", "a b", "x:8265/path"]:
        with pytest.raises(SubmitterError, match="dashboard address"):
            kuberay_vector_command(address=address)
    with pytest.raises(SubmitterError, match="empty"):
        kuberay_vector_command(entrypoint=" \n\t")
    with pytest.raises(SubmitterError, match="NUL"):
        kuberay_vector_command(entrypoint_resources='{"a": 1}\x00')


def test_entrypoint_is_trimmed_like_go_trim_space() -> None:
    tokens = kuberay_vector_command(entrypoint="\u00a0 echo hi\x1f \n")
    # Go's TrimSpace trims NBSP but not U+001F (Python's str.strip would trim both).
    assert tokens[tokens.index("--") + 1] == "echo hi\x1f"


class TestFailOnJobFailure:
    def test_off_by_default_keeps_kuberay_tokens(self) -> None:
        base = build_submit_command(
            mode="K8sJobMode", address="test-url", submission_id="test-job-id", entrypoint="echo hi"
        )
        assert base[-1] == "test-job-id"
        assert "JobSubmissionClient" not in submit_shell(base)

    def test_on_appends_a_status_check_after_the_logs(self) -> None:
        tokens = build_submit_command(
            mode="K8sJobMode",
            address="test-url",
            submission_id="test-job-id",
            entrypoint="echo hi",
            fail_on_job_failure=True,
        )
        shell = submit_shell(tokens)
        assert shell.endswith(
            "ray job logs --address http://test-url --follow test-job-id ; python -c "
            '"import sys; from ray.job_submission import JobSubmissionClient, JobStatus; '
            "sys.exit(0 if JobSubmissionClient('http://test-url').get_job_status('test-job-id')"
            ' == JobStatus.SUCCEEDED else 1)"'
        )
