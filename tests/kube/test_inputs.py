"""Every input through the bounded reader: kubectl's typing of quantities as the API server
judges them, strict snapshots, the size cap, and the campaign's worst inputs (issues 17, 18).

The quantity vectors were observed with ``kubectl create --dry-run=server`` against
kube-apiserver v1.35.4 with KubeRay's RayJob CRD (``.tools/share/crds-kuberay``): ``1e3``
is stored as 1000, ``2.0`` as 2, ``08`` as 8 and ``0x1f`` as 31; ``1e-3``, ``.5``, ``1e20``
and ``9223372036854775808`` are refused ('must be of type integer,string: "number"'), and
the strings ``"."``, ``""`` and ``"1e"`` by the CRD's quantity pattern.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from raygang.kube import kubeyaml
from raygang.kube.errors import SpecError
from raygang.kube.quantity import crd_quantity_error
from raygang.kube.snapshot import load_snapshot
from raygang.kube.yamlfile import yaml_documents
from raygang.kuberay.gang import compute_gang
from raygang.kuberay.submitter import SUBMITTER_RULES
from raygang.rayjob.spec import load_rayjob

from tests.builders import container, rayjob, worker

FIXTURES = Path(__file__).parent / "fixtures"

# (plain YAML scalar, what the API server does with it in a CRD quantity field)
SERVER_VECTORS = [
    ("1e3", 1000),
    ("2.0", 2),
    ("1.0e+3", 1000),
    ("08", 8),
    ("0x1f", 31),
    ("1e18", 1000000000000000000),
    ("9223372036854775807", 9223372036854775807),
    ("-1", -1),
    ("'1e3'", "1e3"),
    ('"+.5"', "+.5"),
    ('"5."', "5."),
    ('"1Ki"', "1Ki"),
    ('"0.001"', "0.001"),
    ("1e400", "1e400"),  # past float64: kubectl sends the text, the pattern takes it
    ("1e-3", 'must be of type integer,string: "number"'),
    ("0.5", 'must be of type integer,string: "number"'),
    (".5", 'must be of type integer,string: "number"'),
    ("1e20", 'must be of type integer,string: "number"'),
    ("9223372036854775808", 'must be of type integer,string: "number"'),
    ("18446744073709551615", 'must be of type integer,string: "number"'),
    ('"."', "should match"),
    ('""', "should match"),
    ('"1e"', "should match"),
    ('"1.5.5"', "should match"),
]


@pytest.mark.parametrize(("scalar", "server"), SERVER_VECTORS)
def test_quantity_as_the_api_server_judges_it(scalar: str, server: object) -> None:
    (doc,) = kubeyaml.load_documents(f"cpu: {scalar}\n", source="t")
    assert isinstance(doc, dict)
    sent = doc["cpu"]
    refused = crd_quantity_error(sent)
    if isinstance(server, str) and ("must be" in server or "should match" in server):
        assert refused is not None and server in refused
    else:
        assert refused is None
        assert sent == server and type(sent) is type(server)


def _job(head_cpu: str) -> dict[str, Any]:
    text = yaml.safe_dump(
        rayjob(
            head=[container("ray-head", requests={"cpu": "PLACEHOLDER"})],
            workers=[
                worker("w", replicas=2, containers=[container("w", requests={"cpu": "250m"})])
            ],
        )
    ).replace("PLACEHOLDER", head_cpu)
    (doc,) = kubeyaml.load_documents(text, source="job.yaml")
    assert isinstance(doc, dict)
    doc["spec"]["submissionMode"] = "InteractiveMode"  # no submitter reserved: head + workers
    return doc


def test_1e3_plans_1k_canonically() -> None:
    gang = compute_gang(load_rayjob(_job("1e3"), "job.yaml", SUBMITTER_RULES).job)
    # 1e3 arrives as 1000 ("1k"); with two 250m workers the sum is 1000.5 cores.
    assert str(gang.min_resources["cpu"]) == "1000500m"


def test_2_0_plans_as_2() -> None:
    gang = compute_gang(load_rayjob(_job("2.0"), "job.yaml", SUBMITTER_RULES).job)
    assert str(gang.min_resources["cpu"]) == "2500m"


@pytest.mark.parametrize(
    ("cpu", "said"),
    [("1e-3", 'must be of type integer,string: "number"'), ('"."', "should match")],
)
def test_refused_with_the_api_servers_reason(cpu: str, said: str) -> None:
    with pytest.raises(SpecError) as caught:
        load_rayjob(_job(cpu), "job.yaml", SUBMITTER_RULES)
    (problem,) = caught.value.problems
    assert problem.path.endswith("requests['cpu']")
    assert said in problem.message


# --- the size cap ---------------------------------------------------------------------------


def test_dev_zero_stops_quickly() -> None:
    with pytest.raises(SpecError) as caught:
        yaml_documents(Path("/dev/zero"), "/dev/zero", "a manifest")
    assert "larger than" in str(caught.value)
    assert kubeyaml.MAX_BYTES_ENV in str(caught.value)


def test_a_fifo_nobody_writes_to_is_refused_not_waited_on_forever(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "jobs.yaml"
    os.mkfifo(fifo)
    monkeypatch.setattr("raygang.kube.kubeyaml.read.PIPE_IDLE_TIMEOUT_S", 0.5)
    with pytest.raises(SpecError, match=r"the pipe sent nothing for 0 s"):
        yaml_documents(fifo, "jobs.yaml", "a manifest")


def test_a_pipe_with_a_slow_writer_is_read_whole(tmp_path: Path) -> None:
    # As `raygang plan <(kubectl get rayjob x -o yaml)` gives it.
    fifo = tmp_path / "jobs.yaml"
    os.mkfifo(fifo)

    def write() -> None:
        with fifo.open("w") as out:
            out.write("a: 1\n")
            out.flush()
            time.sleep(0.3)
            out.write("---\nb: 2\n")

    writer = threading.Thread(target=write)
    writer.start()
    try:
        docs = kubeyaml.load_documents(kubeyaml.read_bounded(str(fifo)), source="jobs.yaml")
    finally:
        writer.join()
    assert docs == [{"a": 1}, {"b": 2}]


def test_size_cap_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "job.yaml"
    path.write_text("a: " + "x" * 5000 + "\n")
    monkeypatch.setenv(kubeyaml.MAX_BYTES_ENV, "1000")
    with pytest.raises(SpecError, match="larger than 1000 bytes"):
        yaml_documents(path, "job.yaml", "a manifest")
    monkeypatch.setenv(kubeyaml.MAX_BYTES_ENV, "lots")
    with pytest.raises(kubeyaml.ManifestError, match="positive number of bytes"):
        kubeyaml.default_limits()


# --- embedded YAML and JSON -----------------------------------------------------------------


def test_runtime_env_yaml_is_yaml_to_json() -> None:
    value = kubeyaml.yaml_to_json_value("a: 1e3\n---\nb: [\n", source="runtimeEnvYAML")
    assert value == {"a": 1000}  # first document only, as go-yaml; no --- splitting
    assert kubeyaml.yaml_to_json_value("a: {~: 1}\na: 2\n", source="r") == {"a": 2}
    with pytest.raises(kubeyaml.ManifestError, match="null key"):
        kubeyaml.yaml_to_json_value("~: 1\n", source="r")


def test_json_value_bounded() -> None:
    assert kubeyaml.load_json_value('{"a": [1, 2.5, "x"]}', source="c") == {"a": [1, 2.5, "x"]}
    with pytest.raises(kubeyaml.NotJSONError):
        kubeyaml.load_json_value("kuberay", source="c")
    with pytest.raises(kubeyaml.ManifestError, match="digits"):
        kubeyaml.load_json_value("9" * 5000, source="c")
    with pytest.raises(kubeyaml.ManifestLimitError):
        kubeyaml.load_json_value("[" * 5000 + "]" * 5000, source="c")
    with pytest.raises(kubeyaml.ManifestError, match="surrogate"):
        kubeyaml.load_json_value('"\\ud800"', source="c")


# --- snapshots ---------------------------------------------------------------------------------

NODE = (
    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n"
    "  metadata: {name: n1, creationTimestamp: '2026-01-01T00:00:00Z'}\n"
    "  status: {allocatable: {cpu: '8', memory: 32Gi}}\n"
)


def _snapshot(tmp_path: Path, text: str) -> SpecError:
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as caught:
        load_snapshot(path)
    return caught.value


def test_a_good_snapshot_reads(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(NODE)
    assert load_snapshot(path).get("Node", None, "n1") is not None


@pytest.mark.parametrize(
    ("text", "where", "what"),
    [
        ("just text\n", "<document>", "is not a Kubernetes object"),
        ("apiVersion: v1\nkind: List\nitems: {a: 1}\n", "items", "a list of objects"),
        ("apiVersion: v1\nkind: 5\n", "kind", "the number 5"),
        ("apiVersion: v1\nkind: List\nitems: [5]\n", "items[0]", "not a Kubernetes object"),
        (
            NODE.replace("metadata: {name: n1,", "metadata: [1]\n  x: {"),
            "items[0].metadata",
            "is a list",
        ),
        (NODE + "  spec: {taints: 5}\n", "items[0].spec.taints", "Node n1"),
        (NODE.replace("cpu: '8'", "cpu: .nan"), "items[0].status.allocatable.cpu", "finite"),
        (NODE.replace("cpu: '8'", "cpu: 1e-3"), "items[0].status.allocatable", "quantities"),
        (NODE.replace("2026-01-01", "9999-12-31"), "items[0].metadata.creationTimestamp", "9000"),
        (
            NODE.replace("2026-01-01", "2026-02-30"),
            "items[0].metadata.creationTimestamp",
            "RFC 3339",
        ),
        (
            NODE + "- {apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup,"
            " metadata: {name: g, namespace: ns}, spec: {minMember: x}}\n",
            "items[1].spec.minMember",
            "PodGroup ns/g",
        ),
        (
            NODE + "- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns,"
            " annotations: {a: [1]}}}\n",
            "items[1].metadata.annotations",
            "a map of strings",
        ),
    ],
)
def test_bad_snapshots_refused_naming_object_and_field(
    tmp_path: Path, text: str, where: str, what: str
) -> None:
    error = _snapshot(tmp_path, text)
    assert any(
        p.path.startswith(where) and what in f"{p.message} {p.accepted}" for p in error.problems
    ), error.problems


def test_empty_snapshot_file_refused(tmp_path: Path) -> None:
    assert "no YAML document" in str(_snapshot(tmp_path, "# nothing\n"))


# --- the campaign's worst inputs, kept small ------------------------------------------------------


@pytest.mark.parametrize("name", ["billion-laughs.yaml", "merge-bomb.yaml", "deep-nesting.yaml"])
def test_worst_inputs_are_refused_quickly(name: str) -> None:
    with pytest.raises(SpecError) as caught:
        yaml_documents(FIXTURES / name, name, "a manifest")
    assert "Limits." in str(caught.value)


def test_a_5000_digit_integer_is_a_problem_not_a_traceback() -> None:
    # kubectl sends an integer past float64's range as its text; the field refuses text.
    ((_, doc),) = yaml_documents(FIXTURES / "huge-int.yaml", "huge-int.yaml", "a manifest")
    with pytest.raises(SpecError) as caught:
        load_rayjob(doc, "huge-int.yaml", SUBMITTER_RULES)
    assert any(p.path == "spec.ttlSecondsAfterFinished" for p in caught.value.problems)


def test_worst_runtime_env_is_refused_quickly() -> None:
    from raygang.kuberay.submitter import SubmitterError
    from raygang.kuberay.submitter._goyaml import runtime_env_json

    for name in ("billion-laughs.yaml", "merge-bomb.yaml", "deep-nesting.yaml"):
        with pytest.raises(SubmitterError, match="refused"):
            runtime_env_json((FIXTURES / name).read_text())


def test_three_million_item_list_generated(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("items:\n" + "- 1\n" * 3_000_000)
    with pytest.raises(SpecError, match="max_nodes"):
        yaml_documents(path, "list.yaml", "a manifest")
