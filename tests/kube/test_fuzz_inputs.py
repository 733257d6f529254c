"""Fuzzing the readers (issue 18 item 9): whatever the input, a loader, the snapshot
reader, the stack file reader and the runtime-env/submitter builders either succeed or raise
their documented error; never another exception, never past a few seconds.

Bounded for CI: each property has ``max_examples`` and a ``deadline``; the whole file runs in
a few seconds.
"""

from __future__ import annotations

import contextlib
import copy
import string
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from raygang.kube import kubeyaml
from raygang.kube.errors import SpecError
from raygang.kube.snapshot import load_snapshot
from raygang.kube.yamlfile import yaml_documents
from raygang.kuberay.submitter import SubmitterError, build_submit_command
from raygang.kuberay.submitter._goyaml import runtime_env_json
from raygang.settings import read_stack_file

FUZZ = settings(
    max_examples=150,
    deadline=1000,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Text that looks like YAML more often than random characters do.
_PIECES = st.sampled_from(
    [
        "a",
        "b",
        ":",
        ": ",
        "- ",
        "\n",
        "  ",
        "{",
        "}",
        "[",
        "]",
        ",",
        "&x ",
        "*x",
        "<<: ",
        "!!binary ",
        "!!str ",
        "? ",
        "---\n",
        "...\n",
        "'",
        '"',
        "\\",
        "#",
        "|\n",
        ">\n",
        "1e3",
        "2.0",
        ".nan",
        ".inf",
        "0x",
        "08",
        "~",
        "null",
        "yes",
        "2001-01-01",
        "\t",
        "\x00",
        "\ud800",
        "\ufeff",
        "9" * 30,
        "%YAML 1.1\n",
        "\r\n",
    ]
)
YAMLISH = st.lists(st.one_of(_PIECES, st.text(string.printable, max_size=4)), max_size=40).map(
    "".join
)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


def _write(tmp_path: Path, data: str | bytes) -> Path:
    path = tmp_path / "input.yaml"
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    path.write_bytes(data)
    return path


@FUZZ
@given(st.one_of(YAMLISH, st.binary(max_size=200).map(lambda b: b.decode("latin-1"))))
def test_manifest_loader(tmp_path: Path, text: str) -> None:
    with contextlib.suppress(SpecError):
        yaml_documents(_write(tmp_path, text), "input.yaml", "a manifest")


@FUZZ
@given(YAMLISH)
def test_stream_reader_direct(text: str) -> None:
    with contextlib.suppress(kubeyaml.ManifestError):
        kubeyaml.load_stream(text, source="t", duplicate_keys="last")


@FUZZ
@given(YAMLISH)
def test_stack_file(tmp_path: Path, text: str) -> None:
    with contextlib.suppress(SpecError):
        read_stack_file(_write(tmp_path, "config:\n  raygang:jobs: " + text))


@FUZZ
@given(YAMLISH)
def test_runtime_env_builder(text: str) -> None:
    with contextlib.suppress(SubmitterError):
        runtime_env_json(text)


SNAPSHOT: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n1", "labels": {"a": "b"}},
            "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]},
            "status": {"allocatable": {"cpu": "8", "memory": "32Gi"}},
        },
        {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "PodGroup",
            "metadata": {
                "name": "g",
                "namespace": "ns",
                "creationTimestamp": "2026-01-01T00:00:00Z",
            },
            "spec": {"minMember": 2, "minResources": {"cpu": "1"}, "queue": "q"},
            "status": {"phase": "Inqueue"},
        },
    ],
}


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*prefix, i))
    return out


PATHS = _paths(SNAPSHOT)[1:]


@FUZZ
@given(st.sampled_from(PATHS), JSON_VALUES)
def test_snapshot_reader(tmp_path: Path, where: tuple[Any, ...], value: Any) -> None:
    doc = copy.deepcopy(SNAPSHOT)
    target: Any = doc
    for part in where[:-1]:
        target = target[part]
    target[where[-1]] = value
    try:
        text = kubeyaml.to_json(doc)
    except (TypeError, ValueError):
        return  # NaN and infinities have no JSON text; the YAML form is fuzzed above
    with contextlib.suppress(SpecError):
        load_snapshot(_write(tmp_path, text))


@FUZZ
@given(
    st.text(max_size=40),
    st.none() | YAMLISH,
    st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3),
)
def test_submitter_builder(
    entrypoint: str, runtime_env: str | None, metadata: dict[str, str]
) -> None:
    try:
        tokens = build_submit_command(
            mode="K8sJobMode",
            address="http://h:8265",
            submission_id="job-1",
            entrypoint=entrypoint,
            runtime_env_yaml=runtime_env,
            metadata=metadata,
        )
    except SubmitterError:
        return
    assert all(isinstance(t, str) for t in tokens)
