"""Unit tests for raygang.kuberay.submitter: KubeRay's submitter command, Job and sidecar.

Expected values marked "KubeRay" are copied from KubeRay v1.7.0's Go tests
(``common/job_test.go``, ``rayjob_controller_unit_test.go``); values marked "Go" were produced
by Go's ``strconv.Quote``, ``fmt.Sprintf("%f", float32)`` and ``sigs.k8s.io/yaml.YAMLToJSON``.
The shell tests run the generated command through the real ``/bin/bash`` with stub ``ray`` and
``python`` executables, so they need no Ray cluster and stay fast.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.kube import goquote
from raygang.kube.goquote import SubmitterError, go_quote, shell_quote
from raygang.kuberay import submitter as sm
from raygang.kuberay.submitter import (
    build_submit_command,
    dashboard_port,
    dashboard_url,
    sidecar_container,
    submission_id,
    submit_shell,
    submitter_job,
    submitter_pod_template,
)

BASH = shutil.which("bash") or "/bin/bash"

# KubeRay's BasePythonHealthCommand with the URL and the 10 s timeout filled in.
HEALTH = (
    "python -c \"import urllib.request; r=urllib.request.urlopen('{url}', timeout=10); "
    "exit(0 if b'success' in r.read() else 1)\""
)
KUBERAY_ENTRYPOINT = "echo no quote 'single quote' \"double quote\""

# KubeRay TestGetSubmitterTemplate: expectedK8sJobModeArgs[0], byte for byte.
KUBERAY_TEMPLATE_ARGS0 = (
    'until python -c "import urllib.request; r=urllib.request.urlopen('
    "'http://test-url/api/gcs_healthz', timeout=10); exit(0 if b'success' in r.read() else 1)\""
    ' >/dev/null 2>&1 ; do echo "Waiting for Ray Dashboard GCS to become healthy at '
    'http://test-url ..." ; sleep 2 ; done ; if ! ray job status --address http://test-url '
    "test-job-id >/dev/null 2>&1 ; then ray job submit --address http://test-url --no-wait "
    "--submission-id test-job-id -- echo no quote 'single quote' \"double quote\" ; fi ; "
    "ray job logs --address http://test-url --follow test-job-id"
)

# The same script as raygang writes it: KubeRay's `ray job submit ... -- ENTRYPOINT`, word for
# word, sealed in one single-quoted eval word so the entrypoint cannot reach the script.
SEALED_TEMPLATE_ARGS0 = KUBERAY_TEMPLATE_ARGS0.replace(
    "then ray job submit --address http://test-url --no-wait --submission-id test-job-id -- "
    "echo no quote 'single quote' \"double quote\" ; fi",
    "then eval 'ray job submit --address http://test-url --no-wait --submission-id test-job-id "
    "-- echo no quote '\\''single quote'\\'' \"double quote\"' ; fi",
)


def kuberay_template_job() -> dict[str, Any]:
    """KubeRay's rayJobTemplate() (common/job_test.go) as a RayJob spec mapping."""
    return {
        "runtimeEnvYAML": "test: test",
        "metadata": {"testKey": "testValue"},
        "rayClusterSpec": {"rayVersion": "2.6.0"},
        "entrypoint": KUBERAY_ENTRYPOINT,
        "entrypointNumCpus": 1,
        "entrypointNumGpus": 0.5,
        "entrypointResources": '{"Custom_1": 1, "Custom_2": 5.5}',
    }


def kuberay_vector_command(**overrides: Any) -> list[str]:
    spec = kuberay_template_job()
    kwargs: dict[str, Any] = {
        "mode": "K8sJobMode",
        "address": "http://127.0.0.1:8265",
        "submission_id": "testJobId",
        "entrypoint": spec["entrypoint"],
        "runtime_env_yaml": spec["runtimeEnvYAML"],
        "metadata": spec["metadata"],
        "entrypoint_num_cpus": spec["entrypointNumCpus"],
        "entrypoint_num_gpus": spec["entrypointNumGpus"],
        "entrypoint_resources": spec["entrypointResources"],
        "ray_version": "2.6.0",
    }
    kwargs.update(overrides)
    return build_submit_command(**kwargs)


def job_spec(**overrides: Any) -> dict[str, Any]:
    """A small, complete RayJob spec."""
    spec: dict[str, Any] = {
        "entrypoint": "python /app/main.py --epochs 3",
        "runtimeEnvYAML": "pip:\n  - requests==2.32.3\nenv_vars:\n  MODE: train\n",
        "rayClusterSpec": {
            "rayVersion": "2.60.0",
            "headGroupSpec": {
                "rayStartParams": {},
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-head",
                                "image": "rayproject/ray:2.60.0",
                                "resources": {"requests": {"cpu": "1", "memory": "2Gi"}},
                            }
                        ]
                    }
                },
            },
            "workerGroupSpecs": [
                {
                    "groupName": "gpu",
                    "replicas": 2,
                    "minReplicas": 2,
                    "maxReplicas": 2,
                    "template": {"spec": {"containers": [{"name": "w", "image": "r:1"}]}},
                }
            ],
        },
    }
    spec.update(overrides)
    return spec


# --- KubeRay's own vectors ---------------------------------------------------------------------


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


def test_submitter_template_args_match_kuberay_byte_for_byte() -> None:
    # KubeRay TestGetSubmitterTemplate, tests 2 and 3: dashboardURL "test-url", no scheme.
    tokens = build_submit_command(
        mode="K8sJobMode",
        address="test-url",
        submission_id="test-job-id",
        entrypoint=KUBERAY_ENTRYPOINT,
    )
    assert " ".join(tokens) == KUBERAY_TEMPLATE_ARGS0  # KubeRay's tokens, unchanged
    assert SEALED_TEMPLATE_ARGS0 != KUBERAY_TEMPLATE_ARGS0
    assert submit_shell(tokens) == SEALED_TEMPLATE_ARGS0

    spec = {
        "entrypoint": KUBERAY_ENTRYPOINT,
        "rayClusterSpec": {
            "headGroupSpec": {
                "template": {"spec": {"containers": [{"image": "rayproject/ray:custom-version"}]}}
            }
        },
    }
    kwargs: dict[str, Any] = {
        "job_name": "job",
        "namespace": "ns",
        "submission_id": "test-job-id",
        "dashboard_address": "test-url",
        "labels": {},
    }
    default = submitter_pod_template(spec=spec, **kwargs)
    container = default["spec"]["containers"][0]
    assert container["command"] == ["/bin/bash", "-ce", "--"]
    assert container["args"] == [SEALED_TEMPLATE_ARGS0]
    assert container["image"] == "rayproject/ray:custom-version"

    # Test 2: a user template whose container has an empty command gets the default one.
    user = dict(spec, submitterPodTemplate={"spec": {"containers": [{"command": []}]}})
    container = submitter_pod_template(spec=user, **kwargs)["spec"]["containers"][0]
    assert container["command"] == ["/bin/bash", "-ce", "--"]
    assert container["args"] == [SEALED_TEMPLATE_ARGS0]


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


def test_sidecar_custom_dashboard_port_in_health_url() -> None:
    spec = job_spec(submissionMode="SidecarMode")
    head = spec["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    head["ports"] = [{"name": "dashboard", "containerPort": 9000}]
    container = sidecar_container(spec=spec, submission_id="sid-1")
    args = container["args"][0]
    assert "urlopen('http://localhost:9000/api/gcs_healthz'" in args
    assert "ray job submit --address http://127.0.0.1:9000 --runtime-env-json" in args
    assert "--no-wait" not in args and "ray job logs" not in args and "if !" not in args


# --- modes and metadata ----------------------------------------------------------------------


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


# --- numbers -------------------------------------------------------------------------------------


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


# --- go_quote, YAML -> JSON ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ('a"b\\c\n\t\x00é', '"a\\"b\\\\c\\n\\t\\x00é"'),
        ("\x07\x08\x0c\x0b\r\x1b\x7f", '"\\a\\b\\f\\v\\r\\x1b\\x7f"'),
        ("\u00a0\u00ad\u200b\u2028\ufeff", '"\\u00a0\\u00ad\\u200b\\u2028\\ufeff"'),
        ("😀\U000e0001\U0010ffff", '"😀\\U000e0001\\U0010ffff"'),
        ("\udcff\udc80", '"\\xff\\x80"'),  # invalid UTF-8 bytes (surrogateescape)
        ("$(touch x) `id` ${HOME} !", '"$(touch x) `id` ${HOME} !"'),
        ("\ufffd", '"\ufffd"'),
        ("日本語 ü", '"日本語 ü"'),
        ("", '""'),
    ],
)
def test_go_quote_matches_go(text: str, quoted: str) -> None:
    # Go: strconv.Quote on the same bytes.
    assert go_quote(text) == quoted


@pytest.mark.parametrize(
    ("yaml_text", "json_text"),
    [
        ("test: test", '{"test":"test"}'),
        # go-yaml v2 is YAML 1.1: y/n/yes/on are booleans, also as keys.
        ("y: 1\nn: 2\n", '{"false":2,"true":1}'),
        (
            "a: 1e3\nb: 1.0\nc: 017\nd: 08\ne: 0x1F\nf: 0b101\ng: 1_000\nh: .5\n",
            '{"a":1000,"b":1,"c":15,"d":8,"e":31,"f":5,"g":1000,"h":0.5}',
        ),
        ("a: 2024-01-01\nb: 12:30\nc: 1:20\n", '{"a":"2024-01-01","b":"12:30","c":"1:20"}'),
        ("a: [on, off, yes, no, ~, null, '']\n", '{"a":[true,false,true,false,null,null,""]}'),
        ('a: "<&>"\nb: "\\u2028"\n', '{"a":"\\u003c\\u0026\\u003e","b":"\\u2028"}'),
        (
            "1: a\n1.5: b\ntrue: c\n1e6: d\n1e5: e\n0.0001: f\n0.00001: g\n",
            '{"0.0001":"f","1":"a","1.5":"b","100000":"e","1e+06":"d","1e-05":"g","true":"c"}',
        ),
        (
            "k: 99999999999999999999\nj: 18446744073709551615\n",
            '{"j":18446744073709551615,"k":100000000000000000000}',
        ),
        ("k: -0.0\nj: 1e21\ni: 1e-7\n", '{"i":1e-7,"j":1e+21,"k":-0}'),
        # go-yaml v2 applies "<<" in order: it overwrites the x written before it.
        (
            "base: &b {x: 1, z: 2}\nd:\n  x: 3\n  <<: *b\n",
            '{"base":{"x":1,"z":2},"d":{"x":1,"z":2}}',
        ),
        ("d:\n  <<: [{x: 1}, {x: 2, w: 0}]\n", '{"d":{"w":0,"x":1}}'),
        ("# only a comment\n", "null"),
        ("k: !!binary /w==\n", '{"k":"\\ufffd"}'),
    ],
)
def test_runtime_env_json_matches_sigs_yaml(yaml_text: str, json_text: str) -> None:
    # Go: sigs.k8s.io/yaml v1.6.0 YAMLToJSON (go-yaml v2.4.3) on the same text.
    assert sm.runtime_env_json(yaml_text) == json_text


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        ("- 1\n- 2\n", "must be a YAML mapping"),
        ("just text\n", "must be a YAML mapping"),
        ("a: [unclosed\n", "not valid YAML"),
        ("a: .inf\n", "unsupported value"),
        ("~: 1\n", "unsupported map key"),
        ("? [1]\n: 1\n", "unsupported map key"),
    ],
)
def test_runtime_env_errors(yaml_text: str, message: str) -> None:
    with pytest.raises(SubmitterError, match=message):
        sm.runtime_env_json(yaml_text)


def test_bad_key_inside_a_replaced_duplicate_is_ignored_like_go() -> None:
    # sigs.k8s.io/yaml converts keys after decoding; the first "a" value is gone by then.
    assert sm.runtime_env_json("a:\n  ~: 1\na: 2\n") == '{"a":2}'


# --- dashboard port and URL ---------------------------------------------------------------------


def head_pod(ports: Any = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "ray-head", "image": "r:1"}
    if ports is not None:
        container["ports"] = ports
    return {"containers": [container]}


def test_dashboard_port_rules() -> None:
    assert dashboard_port(head_pod()) == 8265
    assert dashboard_port(head_pod([])) == 8265
    named = [{"name": "gcs", "containerPort": 6379}, {"name": "dashboard", "containerPort": 9999}]
    assert dashboard_port(head_pod(named)) == 9999
    with pytest.raises(SubmitterError, match="dashboard port is not found"):
        dashboard_port(head_pod([{"name": "gcs", "containerPort": 6379}, {"containerPort": 8265}]))
    with pytest.raises(SubmitterError, match="1-65535"):
        dashboard_port(head_pod([{"name": "dashboard", "containerPort": "8265"}]))
    with pytest.raises(SubmitterError, match="at least one container"):
        dashboard_port({"containers": []})


def test_dashboard_url_default_and_custom_head_service() -> None:
    group: dict[str, Any] = {"template": {"spec": head_pod()}}
    assert dashboard_url("job", "ns", group) == "job-head-svc.ns.svc.cluster.local:8265"
    assert (
        dashboard_url("job", "ns", group, cluster_domain="corp.example")
        == "job-head-svc.ns.svc.corp.example:8265"
    )
    group["headService"] = {"metadata": {"name": "my-head"}}
    assert dashboard_url("job", "ns", group) == "my-head.ns.svc.cluster.local:8265"
    # The custom Service's own ports come first, so its "dashboard" port wins.
    group["headService"]["spec"] = {"ports": [{"name": "dashboard", "port": 80}]}
    assert dashboard_url("job", "ns", group) == "my-head.ns.svc.cluster.local:80"
    with pytest.raises(SubmitterError, match="dashboard port is not found"):
        dashboard_url("job", "ns", {"template": {"spec": head_pod([{"containerPort": 1}])}})


# --- submission IDs -----------------------------------------------------------------------------


def reorder(value: Any) -> Any:
    """The same data with every mapping's keys in reverse order."""
    if isinstance(value, dict):
        return {k: reorder(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reorder(v) for v in value]
    return value


def test_submission_id_is_deterministic_and_order_independent() -> None:
    spec = job_spec(metadata={"a": "1", "b": "2"})
    sid = submission_id("train", spec)
    assert sid == submission_id("train", copy.deepcopy(spec))
    assert sid == submission_id("train", reorder(spec))
    assert sid.startswith("train-") and len(sid) == len("train-") + 8
    assert int(sid.rsplit("-", 1)[1], 16) >= 0


def test_submission_id_ignores_yaml_formatting_and_numeric_spelling() -> None:
    spec = job_spec()
    sid = submission_id("train", spec)
    reformatted = "# comment\nenv_vars: {MODE: train}\npip: [requests==2.32.3]\n"
    assert submission_id("train", job_spec(runtimeEnvYAML=reformatted)) == sid
    assert submission_id("train", job_spec(entrypoint="  python /app/main.py --epochs 3\n")) == sid
    assert submission_id("train", job_spec(entrypointNumCpus=1)) == submission_id(
        "train", job_spec(entrypointNumCpus=1.0)
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
    assert submission_id("train", changed) != submission_id("train", spec)


def test_submission_id_ignores_submitter_only_fields_and_uses_job_name() -> None:
    spec = job_spec()
    sid = submission_id("train", spec)
    assert submission_id("train", job_spec(submitterConfig={"backoffLimit": 5})) == sid
    assert submission_id("other", spec).startswith("other-")
    assert submission_id("other", spec).rsplit("-", 1)[1] == sid.rsplit("-", 1)[1]


def test_job_id_wins_and_is_validated() -> None:
    assert submission_id("train", job_spec(jobId="my-run.2024_01")) == "my-run.2024_01"
    for bad in ["a b", "x;rm -rf /", "$(id)", "-rf", "a\nb", "x" * 129, "é"]:
        with pytest.raises(SubmitterError, match="is not accepted"):
            submission_id("train", job_spec(jobId=bad))


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


# --- pod template and Job ----------------------------------------------------------------------


def template_for(spec: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "job_name": "train",
        "namespace": "ml",
        "spec": spec,
        "submission_id": "train-0123abcd",
        "dashboard_address": "train-head-svc.ml.svc.cluster.local:8265",
        "labels": {"volcano.sh/queue-name": "q"},
    }
    args.update(kwargs)
    return submitter_pod_template(**args)


def test_default_template_container_resources_security_and_env() -> None:
    template = template_for(job_spec())
    pod = template["spec"]
    assert pod["restartPolicy"] == "Never"
    assert pod["automountServiceAccountToken"] is False
    (container,) = pod["containers"]
    assert container["name"] == "ray-job-submitter"
    assert container["image"] == "rayproject/ray:2.60.0"
    assert container["resources"] == {
        "limits": {"cpu": "1", "memory": "1Gi"},
        "requests": {"cpu": "500m", "memory": "200Mi"},
    }
    assert container["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    assert container["command"] == ["/bin/bash", "-ce", "--"]
    assert container["env"] == [
        {"name": "PYTHONUNBUFFERED", "value": "1"},
        {"name": "RAY_DASHBOARD_ADDRESS", "value": "train-head-svc.ml.svc.cluster.local:8265"},
        {"name": "RAY_JOB_SUBMISSION_ID", "value": "train-0123abcd"},
    ]
    (args0,) = container["args"]
    assert args0.startswith("until python -c")
    assert "--submission-id train-0123abcd -- python /app/main.py --epochs 3' ; fi ;" in args0
    assert args0.endswith(
        "ray job logs --address http://train-head-svc.ml.svc.cluster.local:8265 "
        "--follow train-0123abcd"
    )
    assert template["metadata"]["labels"] == {
        "volcano.sh/queue-name": "q",
        "ray.io/originated-from-cr-name": "train",
        "ray.io/originated-from-crd": "RayJob",
        "app.kubernetes.io/created-by": "raygang",
    }
    # The module's defaults are not shared with the manifest (callers may mutate it).
    container["resources"]["limits"]["cpu"] = "9"
    assert sm.DEFAULT_SUBMITTER_LIMITS["cpu"] == "1"


def test_dashboard_address_with_scheme_is_stripped_for_env() -> None:
    template = template_for(job_spec(), dashboard_address="http://x.ns.svc.cluster.local:8265")
    env = {e["name"]: e["value"] for e in template["spec"]["containers"][0]["env"]}
    assert env["RAY_DASHBOARD_ADDRESS"] == "x.ns.svc.cluster.local:8265"


def test_user_template_with_command_is_kept_untouched() -> None:
    user_template = {
        "metadata": {"labels": {"team": "ml", "volcano.sh/queue-name": "mine"}},
        "spec": {
            "restartPolicy": "OnFailure",
            "serviceAccountName": "submitter",
            "containers": [
                {
                    "name": "custom",
                    "image": "me/submitter:1",
                    "command": ["my-submit"],
                    "args": ["--flag"],
                    "env": [{"name": "FOO", "value": "bar"}],
                    "resources": {"requests": {"cpu": "100m"}},
                }
            ],
        },
    }
    spec = job_spec(submitterPodTemplate=user_template)
    original = copy.deepcopy(user_template)
    template = template_for(spec)
    assert spec["submitterPodTemplate"] == original  # the input is not mutated
    pod = template["spec"]
    assert pod["restartPolicy"] == "OnFailure"
    assert pod["serviceAccountName"] == "submitter"
    # Least privilege for the user's template too: only fields it leaves unset are added.
    assert pod["automountServiceAccountToken"] is False
    (container,) = pod["containers"]
    assert container["command"] == ["my-submit"]
    assert container["args"] == ["--flag"]
    assert container["image"] == "me/submitter:1"
    assert container["resources"] == {"requests": {"cpu": "100m"}}
    assert container["securityContext"] == sm.restricted_security_context()
    assert [e["name"] for e in container["env"]] == [
        "FOO",
        "PYTHONUNBUFFERED",
        "RAY_DASHBOARD_ADDRESS",
        "RAY_JOB_SUBMISSION_ID",
    ]
    # Passed-in labels override the template's own; KubeRay's three override both.
    assert template["metadata"]["labels"]["team"] == "ml"
    assert template["metadata"]["labels"]["volcano.sh/queue-name"] == "q"


def test_user_template_without_command_or_restart_policy() -> None:
    spec = job_spec(submitterPodTemplate={"spec": {"containers": [{"name": "c", "image": "i"}]}})
    pod = template_for(spec)["spec"]
    assert pod["restartPolicy"] == "Never"  # a Job rejects the pod default "Always"
    assert pod["containers"][0]["command"] == ["/bin/bash", "-ce", "--"]
    assert pod["containers"][0]["args"][0].startswith("until python -c")


def test_user_env_with_our_names_is_replaced_not_duplicated() -> None:
    user = {
        "spec": {
            "restartPolicy": "Never",
            "containers": [
                {
                    "image": "i",
                    "env": [
                        {"name": "RAY_JOB_SUBMISSION_ID", "value": "stale"},
                        {"name": "KEEP", "value": "1"},
                    ],
                }
            ],
        }
    }
    env = template_for(job_spec(submitterPodTemplate=user))["spec"]["containers"][0]["env"]
    names = [e["name"] for e in env]
    assert names == ["KEEP", "PYTHONUNBUFFERED", "RAY_DASHBOARD_ADDRESS", "RAY_JOB_SUBMISSION_ID"]
    assert env[-1]["value"] == "train-0123abcd"


def test_token_auth_env() -> None:
    spec = job_spec()
    spec["rayClusterSpec"]["authOptions"] = {"mode": "token"}
    env = template_for(spec)["spec"]["containers"][0]["env"]
    assert env[-2:] == [
        {"name": "RAY_AUTH_MODE", "value": "token"},
        {
            "name": "RAY_AUTH_TOKEN",
            "valueFrom": {"secretKeyRef": {"name": "train", "key": "auth_token"}},
        },
    ]
    spec["rayClusterSpec"]["authOptions"] = {"mode": "token", "secretName": "tok"}
    env = template_for(spec)["spec"]["containers"][0]["env"]
    assert env[-1]["valueFrom"]["secretKeyRef"]["name"] == "tok"
    spec["rayClusterSpec"]["authOptions"] = {"mode": "token", "enableK8sTokenAuth": True}
    with pytest.raises(SubmitterError, match="K8s token auth mode is currently not supported"):
        template_for(spec)


def test_submitter_job_manifest_and_backoff_limit() -> None:
    kwargs: dict[str, Any] = {
        "job_name": "train",
        "namespace": "ml",
        "submission_id": "train-0123abcd",
        "dashboard_address": "train-head-svc.ml.svc.cluster.local:8265",
        "labels": {},
    }
    job = submitter_job(spec=job_spec(), **kwargs)
    assert job["apiVersion"] == "batch/v1" and job["kind"] == "Job"
    assert job["metadata"] == {
        "name": "train",
        "namespace": "ml",
        "labels": {
            "ray.io/originated-from-cr-name": "train",
            "ray.io/originated-from-crd": "RayJob",
            "app.kubernetes.io/created-by": "raygang",
        },
    }
    assert "ownerReferences" not in job["metadata"] and "annotations" not in job["metadata"]
    assert job["spec"]["backoffLimit"] == 2
    assert job["spec"]["template"] == template_for(job_spec(), labels={})
    for limit in (0, 5):
        job = submitter_job(spec=job_spec(submitterConfig={"backoffLimit": limit}), **kwargs)
        assert job["spec"]["backoffLimit"] == limit
    for bad in (-1, True, "2"):
        with pytest.raises(SubmitterError, match="backoffLimit"):
            submitter_job(spec=job_spec(submitterConfig={"backoffLimit": bad}), **kwargs)


def test_template_errors_are_clear() -> None:
    spec = job_spec()
    del spec["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"]
    with pytest.raises(SubmitterError, match=r"containers\[0\]\.image is required"):
        template_for(spec)
    with pytest.raises(SubmitterError, match="at least one container"):
        template_for(job_spec(submitterPodTemplate={"spec": {"containers": []}}))


# --- sidecar -------------------------------------------------------------------------------------


def test_sidecar_container_matches_kuberay_defaults() -> None:
    container = sidecar_container(spec=job_spec(submissionMode="SidecarMode"), submission_id="s-1")
    assert container["name"] == "ray-job-submitter"
    assert container["image"] == "rayproject/ray:2.60.0"
    assert container["resources"]["requests"] == {"cpu": "500m", "memory": "200Mi"}
    assert container["resources"]["limits"] == {"cpu": "1", "memory": "1Gi"}
    assert container["command"] == ["/bin/bash", "-ce", "--"]
    assert container["env"] == [
        {"name": "PYTHONUNBUFFERED", "value": "1"},
        {"name": "RAY_DASHBOARD_ADDRESS", "value": ""},
        {"name": "RAY_JOB_SUBMISSION_ID", "value": "s-1"},
    ]
    assert "restartPolicy" not in container
    assert "localhost:8265/api/gcs_healthz" in container["args"][0]
    restarting = sidecar_container(
        spec=job_spec(submissionMode="SidecarMode"), submission_id="s-1", sidecar_restart=True
    )
    assert restarting["restartPolicy"] == "OnFailure"
    assert "if ! ray job status --address http://127.0.0.1:8265 s-1" in restarting["args"][0]


def test_sidecar_rejects_what_kuberay_validation_rejects() -> None:
    with pytest.raises(SubmitterError, match="SidecarMode doesn't support SubmitterPodTemplate"):
        sidecar_container(spec=job_spec(submitterPodTemplate={"spec": {}}), submission_id="s")
    with pytest.raises(SubmitterError, match="SidecarMode doesn't support SubmitterConfig"):
        sidecar_container(spec=job_spec(submitterConfig={"backoffLimit": 1}), submission_id="s")
    spec = job_spec()
    spec["rayClusterSpec"]["authOptions"] = {"mode": "token"}
    with pytest.raises(SubmitterError, match="pass job_name"):
        sidecar_container(spec=spec, submission_id="s")
    env = sidecar_container(spec=spec, submission_id="s", job_name="train")["env"]
    assert env[-1]["valueFrom"]["secretKeyRef"]["name"] == "train"


# --- the shell: real bash, stub ray -----------------------------------------------------------


STUB = """#!{python}
import json, os, sys
with open(os.environ["STUB_LOG"], "a") as log:
    log.write(json.dumps({{"prog": os.path.basename(sys.argv[0]), "argv": sys.argv[1:]}}) + "\\n")
# `ray job status` exits non-zero for an unknown job, so the submit branch runs.
sys.exit(1 if sys.argv[1:3] == ["job", "status"] else 0)
"""


@pytest.fixture
def stub_path(tmp_path: Path) -> Path:
    """A directory with `ray` and `python` stubs that log their argv and exit at once."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("ray", "python"):
        path = bin_dir / name
        path.write_text(STUB.format(python=sys.executable))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def run_like_the_pod(shell: str, stub_dir: Path, cwd: Path) -> list[dict[str, Any]]:
    """Run args[0] as the container does (bash -ce --) and return the stubs' calls."""
    log = cwd / "calls.jsonl"
    env = {"PATH": f"{stub_dir}:/usr/bin:/bin", "STUB_LOG": str(log), "HOME": str(cwd)}
    subprocess.run(
        [BASH, "-ce", "--", shell], cwd=cwd, env=env, check=True, timeout=60, capture_output=True
    )
    return [json.loads(line) for line in log.read_text().splitlines()]


MALICIOUS = "a\"; rm -rf / # $(touch pwned) `touch pwned2` ${HOME} $HOME \\ \\\\ ' ! \n\t é"


def test_malicious_runtime_env_survives_bash_and_runs_nothing(
    stub_path: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    runtime_env = "env_vars:\n  X: " + json.dumps(MALICIOUS) + "\n"
    metadata = {"note": "$(touch pwned3) `touch pwned4`", "q": 'x"y'}
    resources = '{"Custom_$(touch pwned5)": 1}\n'  # a YAML block scalar's trailing newline
    tokens = build_submit_command(
        mode="K8sJobMode",
        address="127.0.0.1:8265",
        submission_id="job-1",
        entrypoint="echo no quote 'single quote' \"double quote\"",
        runtime_env_yaml=runtime_env,
        metadata=metadata,
        entrypoint_resources=resources,
    )
    calls = run_like_the_pod(submit_shell(tokens), stub_path, work)
    assert sorted(p.name for p in work.iterdir()) == ["calls.jsonl"]  # nothing was touched
    submit = next(c["argv"] for c in calls if c["argv"][:2] == ["job", "submit"])
    env_json = submit[submit.index("--runtime-env-json") + 1]
    assert env_json == sm.runtime_env_json(runtime_env)
    assert json.loads(env_json) == {"env_vars": {"X": MALICIOUS}}
    meta_json = submit[submit.index("--metadata-json") + 1]
    assert json.loads(meta_json) == metadata
    # KubeRay's Go quoting would hand Ray a literal backslash-n here, which is not JSON.
    assert submit[submit.index("--entrypoint-resources") + 1] == resources
    assert json.loads(resources) == {"Custom_$(touch pwned5)": 1}
    assert submit[submit.index("--") + 1 :] == [
        "echo",
        "no",
        "quote",
        "single quote",
        "double quote",
    ]
    assert [c["argv"][:2] for c in calls if c["prog"] == "ray"] == [
        ["job", "status"],
        ["job", "submit"],
        ["job", "logs"],
    ]


def test_kuberays_go_quoting_alone_would_execute_substitutions(tmp_path: Path) -> None:
    # Why shell_quote deviates from strconv.Quote: bash expands $(...) inside "...".
    value = "$(echo INJECTED)"
    printed = subprocess.run(
        [BASH, "-c", f"printf %s {go_quote(value)}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
        cwd=tmp_path,
    ).stdout
    assert printed == "INJECTED"
    assert shell_quote(value) == '"\\$(echo INJECTED)"'


def bash_words(words: list[str]) -> list[str]:
    """What bash makes of each shell_quote()d word."""
    script = "printf '%s\\0' " + " ".join(shell_quote(w) for w in words)
    out = subprocess.run(
        [BASH, "-ce", "--", script],
        capture_output=True,
        check=True,
        timeout=60,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent"},
    ).stdout
    return out.decode("utf-8").split("\0")[:-1]


shell_text = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=40
)


@settings(max_examples=60, deadline=None)
@given(st.lists(shell_text, min_size=1, max_size=25))
def test_shell_quote_round_trips_through_bash(words: list[str]) -> None:
    assert bash_words(words) == words


@given(shell_text)
def test_shell_quote_equals_go_quote_when_bash_would_agree(text: str) -> None:
    safe = all(goquote._go_is_print(ord(c)) and c not in "$`" for c in text)
    if safe:
        assert shell_quote(text) == go_quote(text)
    else:
        assert shell_quote(text) != go_quote(text)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8).filter(lambda k: "\x00" not in k),
        shell_text,
        max_size=4,
    )
)
def test_metadata_json_survives_bash(metadata: dict[str, str]) -> None:
    if not metadata:
        return
    text = sm.go_json_dumps(metadata)
    assert json.loads(text) == metadata
    (word,) = bash_words([text])
    assert json.loads(word) == metadata


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


# --- the entrypoint cannot break the script (issue 18, item 6) ---------------------------------

GUARD_STUB = """#!{python}
import json, os, sys
with open(os.environ["STUB_LOG"], "a") as log:
    log.write(json.dumps({{"prog": os.path.basename(sys.argv[0]), "argv": sys.argv[1:]}}) + "\\n")
# STUB_STATUS=0: `ray job status` finds the job (a retried pod); 1: it does not exist yet.
sys.exit(int(os.environ["STUB_STATUS"]) if sys.argv[1:3] == ["job", "status"] else 0)
"""

HOSTILE = [
    "python a.py # note",
    "python 'a.py",
    'python a.py "unbalanced',
    "python a.py ; fi ; echo X ; if true ; then true",
    "python a.py\necho X",
    "python a.py $(echo X) `echo X` ${HOME}",
    "python a.py '\\'' ; fi ; echo X #",
    "python a.py &&",
    "python a.py <<EOF\nX\nEOF",
    "python a.py )",
    "\\",
]


@pytest.fixture
def guard_stubs(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "guard-bin"
    bin_dir.mkdir()
    for name in ("ray", "python"):
        path = bin_dir / name
        path.write_text(GUARD_STUB.format(python=sys.executable))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def rendered_args0(entrypoint: str, **kwargs: Any) -> str:
    """The submitter container's script, as the Job carries it."""
    (args0,) = template_for(job_spec(entrypoint=entrypoint), **kwargs)["spec"]["containers"][0][
        "args"
    ]
    return str(args0)


def run_script(
    script: str, stubs: Path, cwd: Path, status: int
) -> tuple[int, str, list[dict[str, Any]]]:
    """Run the script as the pod does; (exit status, stdout, the stubs' calls)."""
    log = cwd / "calls.jsonl"
    log.unlink(missing_ok=True)
    env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "STUB_LOG": str(log),
        "STUB_STATUS": str(status),
        "HOME": str(cwd),
    }
    done = subprocess.run(
        [BASH, "-ce", "--", script], cwd=cwd, env=env, timeout=60, capture_output=True, text=True
    )
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return done.returncode, done.stdout, calls


def bash_argv(entrypoint: str, cwd: Path) -> list[str]:
    """The words bash makes of an entrypoint on its own (what KubeRay's layout intends)."""
    out = subprocess.run(
        [BASH, "-c", "printf '%s\\0' " + entrypoint],
        capture_output=True,
        check=True,
        timeout=30,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "HOME": str(cwd)},
    ).stdout
    return out.decode().split("\0")[:-1]


@pytest.mark.parametrize("entrypoint", HOSTILE)
def test_hostile_entrypoints_leave_the_script_and_the_retry_guard_intact(
    entrypoint: str, guard_stubs: Path, tmp_path: Path
) -> None:
    script = rendered_args0(entrypoint)
    # The script parses whatever the entrypoint is: it is one single-quoted eval word.
    subprocess.run([BASH, "-n", "-c", script], check=True, timeout=30)
    work = tmp_path / "work"
    work.mkdir()
    # A retried pod: `ray job status` finds the job, so nothing is submitted and nothing of
    # the entrypoint runs; the pod only follows the logs.
    code, out, calls = run_script(script, guard_stubs, work, status=0)
    assert code == 0
    assert "X" not in out
    assert [c["argv"][:2] for c in calls if c["prog"] == "ray"] == [
        ["job", "status"],
        ["job", "logs"],
    ]
    assert sorted(p.name for p in work.iterdir()) == ["calls.jsonl"]


@pytest.mark.parametrize(
    "entrypoint",
    ["python a.py # note", "python a.py\necho X", "python a.py $(echo X) `echo X` ${HOME}"],
)
def test_parseable_entrypoints_submit_what_bash_makes_of_them_and_follow_the_logs(
    entrypoint: str, guard_stubs: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    code, out, calls = run_script(rendered_args0(entrypoint), guard_stubs, work, status=1)
    assert code == 0
    ray = [c["argv"] for c in calls if c["prog"] == "ray"]
    assert [argv[:2] for argv in ray] == [["job", "status"], ["job", "submit"], ["job", "logs"]]
    submitted = ray[1][ray[1].index("--") + 1 :]
    first_line = entrypoint.split("\n")[0]
    assert submitted == bash_argv(first_line, work)
    # A second line is a second command, in the submitter, as in KubeRay's layout; it runs
    # inside the guard, never after `fi`.
    assert out == ("X\n" if "\n" in entrypoint else "")


@pytest.mark.parametrize(
    "entrypoint",
    [e for e in HOSTILE if subprocess.run([BASH, "-n", "-c", e], capture_output=True).returncode],
)
def test_unparseable_entrypoints_fail_the_first_pod_without_running_any_of_it(
    entrypoint: str, guard_stubs: Path, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    code, out, calls = run_script(rendered_args0(entrypoint), guard_stubs, work, status=1)
    assert code != 0
    assert "X" not in out
    assert [c["argv"][:2] for c in calls if c["prog"] == "ray"] == [["job", "status"]]


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
    from raygang.rayjob.validate import manifest_problems

    from tests.builders import rayjob

    manifest = rayjob()
    manifest["spec"]["entrypoint"] = entrypoint
    (problem,) = manifest_problems(manifest, "jobs/x.yaml")
    assert problem.path == "spec.entrypoint"
    assert problem.message.startswith(
        "bash cannot parse it as the submitter runs it (ray job submit ... -- <entrypoint>): line"
    )
    assert said in problem.message
    assert problem.accepted.startswith("a shell command bash can parse")


@pytest.mark.parametrize("entrypoint", ["python a.py # note", "python a.py\necho X"])
def test_validation_accepts_what_bash_parses(entrypoint: str) -> None:
    from raygang.rayjob.validate import manifest_problems

    from tests.builders import rayjob

    manifest = rayjob()
    manifest["spec"]["entrypoint"] = entrypoint
    assert manifest_problems(manifest, "jobs/x.yaml") == []


def test_an_entrypoint_the_submitter_does_not_run_is_not_checked() -> None:
    from raygang.rayjob.validate import manifest_problems

    from tests.builders import rayjob

    manifest = rayjob(mode="InteractiveMode")
    manifest["spec"]["entrypoint"] = "python 'a.py"
    assert manifest_problems(manifest, "jobs/x.yaml") == []


shell_soup = st.lists(
    st.sampled_from(list("ab #;&|()'\"`$\\{}<>\n!*?~=-")) | shell_text, max_size=12
).map("".join)


@settings(max_examples=40, deadline=None)
@given(entrypoint=shell_soup.filter(lambda e: e.strip()))
def test_no_entrypoint_breaks_the_script_or_the_guard(entrypoint: str) -> None:
    script = rendered_args0(entrypoint)
    parsed = subprocess.run([BASH, "-n", "-c", script], capture_output=True, timeout=30)
    assert parsed.returncode == 0, parsed.stderr
    # The eval'd word is KubeRay's `ray job submit ... -- ENTRYPOINT`, byte for byte.
    sealed = script.split(" ; then eval ", 1)[1].rsplit(" ; fi ; ray job logs", 1)[0]
    (word,) = bash_words_raw(sealed)
    assert word.endswith(" -- " + sm.go_trim_space(entrypoint))


def bash_words_raw(text: str) -> list[str]:
    out = subprocess.run(
        [BASH, "-c", "printf '%s\\0' " + text], capture_output=True, check=True, timeout=30
    ).stdout
    return out.decode("utf-8", "surrogateescape").split("\0")[:-1]


@pytest.mark.parametrize("mode", ["sidecar", "sidecar-restart"])
def test_sidecar_scripts_seal_the_entrypoint_too(mode: str) -> None:
    spec = job_spec(entrypoint="python a.py ; fi ; echo X # note")
    spec.pop("runtimeEnvYAML")
    container = sidecar_container(
        spec=spec, submission_id="s-1", job_name="j", sidecar_restart=mode == "sidecar-restart"
    )
    (script,) = container["args"]
    subprocess.run([BASH, "-n", "-c", script], check=True, timeout=30)
    assert " eval 'ray job submit --address http://127.0.0.1:8265 " in script


# --- least privilege (issue 18, item 7) ---------------------------------------------------------


def user_pod(**pod: Any) -> dict[str, Any]:
    spec = job_spec(
        submitterPodTemplate={
            "spec": {"containers": [{"name": "c", "image": "i"}], **copy.deepcopy(pod)}
        }
    )
    return dict(template_for(spec)["spec"])


def test_a_custom_template_gets_no_token_and_a_restricted_context() -> None:
    pod = user_pod(initContainers=[{"name": "fetch", "image": "busybox"}])
    assert pod["automountServiceAccountToken"] is False
    for container in pod["initContainers"] + pod["containers"]:
        assert container["securityContext"] == sm.restricted_security_context()


def test_what_the_template_sets_wins_field_by_field() -> None:
    context = {
        "allowPrivilegeEscalation": True,
        "capabilities": {"add": ["NET_BIND_SERVICE"]},
        "seccompProfile": {"type": "Unconfined"},
        "runAsUser": 1000,
    }
    pod = user_pod(
        automountServiceAccountToken=True,
        containers=[{"name": "c", "image": "i", "securityContext": context}],
    )
    assert pod["automountServiceAccountToken"] is True
    assert pod["containers"][0]["securityContext"] == context
    pod = user_pod(
        containers=[{"name": "c", "image": "i", "securityContext": {"runAsNonRoot": True}}]
    )
    assert pod["containers"][0]["securityContext"] == {
        "runAsNonRoot": True,
        **sm.restricted_security_context(),
    }


@pytest.mark.parametrize(
    "context",
    [{"privileged": True}, {"capabilities": {"add": ["SYS_ADMIN"]}}],
)
def test_no_escalation_setting_where_kubernetes_would_refuse_it(context: dict[str, Any]) -> None:
    pod = user_pod(containers=[{"name": "c", "image": "i", "securityContext": dict(context)}])
    assert "allowPrivilegeEscalation" not in pod["containers"][0]["securityContext"]


def test_a_pod_level_seccomp_profile_is_not_overridden() -> None:
    pod = user_pod(
        securityContext={"seccompProfile": {"type": "Localhost", "localhostProfile": "p"}}
    )
    assert "seccompProfile" not in pod["containers"][0]["securityContext"]
    assert pod["securityContext"] == {
        "seccompProfile": {"type": "Localhost", "localhostProfile": "p"}
    }


def test_a_windows_pod_gets_only_the_token_setting() -> None:
    pod = user_pod(os={"name": "windows"})
    assert pod["automountServiceAccountToken"] is False
    assert "securityContext" not in pod["containers"][0]
