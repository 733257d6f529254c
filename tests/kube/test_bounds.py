"""The reader's bounds on legitimate big inputs and on hostile ones (issue 29, item 3).

Nodes, nesting and alias expansion are bounded per document, bytes and values per file; a
snapshot is read with bounds sized for 64 MiB, and ``--snapshot-max-mib`` /
``raygang:snapshotMaxMiB`` size them otherwise. A bound passed names the file, the document
(index, kind and name) and the bound, never a field deep inside.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from raygang.cli import build_plan, main
from raygang.kube import kubeyaml
from raygang.kube.errors import SpecError
from raygang.kube.kubeyaml import Limits, ManifestLimitError, load_stream
from raygang.kube.snapshot import SNAPSHOT_MIB, load_snapshot
from raygang.kube.yamlfile import read_documents

from benchmarks.synth import eks_nodes_yaml, make_documents

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
HOSTILE = ("billion-laughs.yaml", "merge-bomb.yaml", "deep-nesting.yaml")


def _one_file(tmp_path: Path, jobs: int) -> Path:
    path = tmp_path / "jobs.yaml"
    documents = [doc for _, doc in make_documents(jobs)]
    path.write_text(yaml.dump_all(documents, Dumper=yaml.CSafeDumper, sort_keys=False))
    return path


# --- legitimate inputs ----------------------------------------------------------------------


def test_one_file_of_1000_kuberay_jobs_plans(tmp_path: Path) -> None:
    # 7 MB, 700,000 YAML nodes: refused before the bounds counted per document.
    path = _one_file(tmp_path, 1000)
    assert path.stat().st_size > 7_000_000
    plan = build_plan([path], None, None, ROOT)
    assert len(plan.jobs) == 1000


def test_a_300_node_eks_snapshot_loads(tmp_path: Path) -> None:
    # As `kubectl get nodes -o yaml` prints them, images included: one List, 2 MB.
    path = tmp_path / "cluster.yaml"
    path.write_text(eks_nodes_yaml(300))
    snapshot = load_snapshot(path)
    assert sum(1 for _ in snapshot.of_kind("Node")) == 300


def test_a_10000_node_snapshot_loads(tmp_path: Path) -> None:
    # Every label, taint, condition and address the kubelet and EKS write (no images): 36 MB,
    # 2.1 million YAML nodes in one List document.
    path = tmp_path / "cluster.yaml"
    path.write_text(eks_nodes_yaml(10_000, images=0))
    snapshot = load_snapshot(path)
    nodes = list(snapshot.of_kind("Node"))
    assert len(nodes) == 10_000
    tainted = [n for n in nodes if n["spec"].get("taints")]
    assert len(tainted) == 2000 + 910 - 182  # every 5th (GPU) and every 11th (dedicated)
    assert nodes[0]["metadata"]["labels"]["topology.kubernetes.io/zone"] == "us-west-2a"


# --- hostile inputs stay refused, with the new message ---------------------------------------


@pytest.mark.parametrize("name", HOSTILE)
@pytest.mark.parametrize("as_snapshot", [False, True])
def test_hostile_inputs_refused_naming_document_and_bound(name: str, as_snapshot: bool) -> None:
    with pytest.raises(SpecError) as caught:
        if as_snapshot:
            load_snapshot(FIXTURES / name)
        else:
            read_documents(FIXTURES / name, name)
    (problem,) = caught.value.problems
    assert problem.source.startswith(str(FIXTURES / name) if as_snapshot else name)
    assert "Limits.max_" in problem.accepted


def test_a_document_past_the_node_bound_is_named_by_index_kind_and_name() -> None:
    head = "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: big, namespace: ml}\nspec:\n"
    text = "a: 1\n---\n" + head + "  x:\n" + "  - 1\n" * 100_001
    with pytest.raises(ManifestLimitError) as caught:
        load_stream(text, source="jobs.yaml")
    error = caught.value
    assert (error.document, error.obj, error.line, error.path) == (2, "RayJob ml/big", 3, None)
    assert error.limit == Limits().max_nodes
    assert str(error) == (
        "jobs.yaml, document 2, RayJob ml/big, line 3: holds more than 100000 YAML nodes; "
        "expected at most 100000 nodes per document (Limits.max_nodes; "
        f"{kubeyaml.limits.SIZED_BY})"
    )


def test_many_documents_each_under_the_bounds_cannot_add_up_to_a_bomb() -> None:
    # Each document expands to 295,000 values (under max_expanded, and under go-yaml's alias
    # ratio); the file's values bound stops the eighth, before it is copied.
    bomb = (
        "c: [" + ",".join(["1"] * 4000) + "]\n"
        "a: &a [" + ",".join(["x"] * 1000) + "]\nb: [" + ",".join(["*a"] * 290) + "]\n"
    )
    with pytest.raises(ManifestLimitError) as caught:
        load_stream("---\n".join([bomb] * 20), source="bombs.yaml")
    assert caught.value.limit == Limits().max_values
    assert caught.value.document == 8


def test_many_documents_of_bare_values_are_bounded_per_file() -> None:
    documents = "---\n".join(["[" + "1," * 9_990 + "1]\n"] * 25)
    limits = Limits(max_values=200_000)
    with pytest.raises(ManifestLimitError) as caught:
        load_stream(documents, source="many.yaml", limits=limits)
    assert (caught.value.limit, caught.value.document) == (200_000, 21)


# --- the overrides ---------------------------------------------------------------------------


def test_sized_limits_grow_with_the_bytes_never_below_the_defaults() -> None:
    assert Limits.sized(1000) == Limits(max_bytes=1000)
    big = Limits.sized(SNAPSHOT_MIB << 20)
    assert (big.max_nodes, big.max_expanded, big.max_values) == (4 << 20, 4 << 20, 8 << 20)
    assert big.max_depth == Limits().max_depth


def test_snapshot_max_mib_flag_sizes_the_snapshot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(eks_nodes_yaml(300))  # 2 MB
    job = str(ROOT / "tests" / "fixtures" / "good" / "k8sjob.yaml")
    args = ["plan", job, "--cluster", str(cluster), "--now", "2026-11-29T10:00:00Z"]
    args += ["--preflight", "off"]
    assert main([*args, "--snapshot-max-mib", "1"]) == 2
    err = capsys.readouterr().err
    assert "is larger than 1048576 bytes" in err and "--snapshot-max-mib" in err
    assert main([*args, "--snapshot-max-mib", "3"]) == 0
    assert main(args) == 0


def test_snapshot_max_mib_stack_setting(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: t\nruntime: python\n")
    (tmp_path / "stacks").mkdir()
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(eks_nodes_yaml(300))
    job = ROOT / "tests" / "fixtures" / "good" / "k8sjob.yaml"
    for mib, refused in (("1", True), ("3", False)):
        (tmp_path / "stacks" / "Pulumi.s.yaml").write_text(
            f"config:\n  raygang:clusterSnapshot: {cluster}\n  raygang:snapshotMaxMiB: {mib}\n"
            "  raygang:now: '2026-11-29T10:00:00Z'\n"
        )
        if refused:
            with pytest.raises(SpecError, match="larger than 1048576 bytes"):
                build_plan([job], "s", None, tmp_path)
        else:
            assert len(build_plan([job], "s", None, tmp_path).jobs) == 1


def test_the_environment_variable_sizes_every_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "x:\n" + "- 1\n" * 150_000
    with pytest.raises(ManifestLimitError):
        load_stream(text, source="big.yaml")
    monkeypatch.setenv(kubeyaml.MAX_BYTES_ENV, str(32 << 20))
    (document,) = load_stream(text, source="big.yaml")
    assert isinstance(document.value, dict) and len(document.value["x"]) == 150_000


@pytest.mark.parametrize("value", ["0", "-1", "x", "2000000"])
def test_snapshot_max_mib_setting_is_validated(tmp_path: Path, value: str) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: t\nruntime: python\n")
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.s.yaml").write_text(
        f"config:\n  raygang:snapshotMaxMiB: {value}\n"
    )
    job = ROOT / "tests" / "fixtures" / "good" / "k8sjob.yaml"
    with pytest.raises(SpecError, match="snapshotMaxMiB"):
        build_plan([job], "s", None, tmp_path)
