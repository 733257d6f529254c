"""Issue 29: hostile input, round two.

* Item 1: every name that becomes a path is checked as Kubernetes checks it, and ``--out``
  writes inside DIR only, through no link, removing only regular files, without waiting on
  a FIFO or reading an index of any size.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
from raygang.cli import EXIT_INVALID, main
from raygang.kube.errors import SpecError
from raygang.loader import load_files
from raygang.render import INDEX
from raygang.render.outdir import MAX_INDEX_BYTES

from tests.builders import job_doc, write


def companion(kind: str = "ConfigMap", name: str = "code", **meta: Any) -> dict[str, Any]:
    api = meta.pop("apiVersion", "v1")
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, **meta}}


def problems_of(path: Path) -> list[str]:
    with pytest.raises(SpecError) as caught:
        load_files([path])
    return [str(p) for p in caught.value.problems]


# --- item 1: names that become paths ------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "field", "said"),
    [
        (companion(kind="X/../../pwn"), "kind", "'X/../../pwn' is not a valid kind"),
        (companion(kind="Config Map"), "kind", "'Config Map' is not a valid kind"),
        (companion(kind="Secret "), "kind", "'Secret ' is not a valid kind"),
        (companion(name="../../etc"), "metadata.name", "'../../etc' is not a valid DNS-1123"),
        (companion(name="a\nb"), "metadata.name", "'a\\nb' is not a valid DNS-1123 subdomain"),
        (companion(name="a\x1b[2Jb"), "metadata.name", "'a\\x1b[2Jb' is not a valid DNS-1123"),
        (companion(namespace="../x"), "metadata.namespace", "'../x' is not a valid DNS-1123"),
        (companion(namespace="a.b"), "metadata.namespace", "'a.b' is not a valid DNS-1123 label"),
        (companion(apiVersion="v1/../x"), "apiVersion", "'v1/../x' has more than one '/'"),
        (companion(apiVersion="Apps/v1"), "apiVersion", "the group 'Apps' of 'Apps/v1' is not"),
        (companion(apiVersion="apps/V1"), "apiVersion", "the version 'V1' of 'apps/V1' is not"),
        (
            companion("ClusterRole", "a/b", apiVersion="rbac.authorization.k8s.io/v1"),
            "metadata.name",
            "'a/b' is not a valid path segment name",
        ),
        (
            companion("Role", "..", apiVersion="rbac.authorization.k8s.io/v1"),
            "metadata.name",
            "'..' is not a valid path segment name",
        ),
    ],
)
def test_a_companion_named_as_kubernetes_would_refuse_is_refused(
    tmp_path: Path, doc: dict[str, Any], field: str, said: str
) -> None:
    path = write(tmp_path / "a.yaml", job_doc(), doc)
    (problem,) = problems_of(path)
    assert f"a.yaml (document 2): {field}: {said}" in problem
    assert "\n" not in problem and "\x1b" not in problem


def test_names_kubernetes_accepts_are_accepted(tmp_path: Path) -> None:
    rbac = "rbac.authorization.k8s.io/v1"
    path = write(
        tmp_path / "a.yaml",
        job_doc(),
        companion("ClusterRole", "system:aggregate-to-view", apiVersion=rbac),
        companion("ConfigMap", "my.config-1"),
        companion("Secret", "s", apiVersion="/v1"),  # ParseGroupVersion: the core group
        companion("Widget", "w", apiVersion="example.com/v1alpha1", namespace="team-a"),
    )
    kinds = [c.kind for c in load_files([path]).companions]
    assert kinds == ["ClusterRole", "ConfigMap", "Secret", "Widget"]


def test_a_kind_with_a_path_writes_nothing_outside_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "a.yaml", job_doc(), companion(kind="X/../../pwn"))
    out = tmp_path / "deep" / "out"
    assert main(["plan", str(path), "--out", str(out)]) == EXIT_INVALID
    assert "kind: 'X/../../pwn' is not a valid kind" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.yaml"]


# --- item 1: --out through no link, regular files only ------------------------------------------


def _plan_into(out: Path, tmp_path: Path) -> int:
    path = write(tmp_path / "a.yaml", job_doc(), companion())
    return main(["plan", str(path), "--out", str(out), "--replace"])


def test_a_link_where_a_manifest_goes_is_not_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.write_text("mine")
    (out / "001-configmap-default-code.yaml").symlink_to(victim)
    assert _plan_into(out, tmp_path) == EXIT_INVALID
    assert "would be overwritten, but raygang did not write it" in capsys.readouterr().err
    assert victim.read_text() == "mine"


def test_a_link_listed_in_the_index_is_neither_removed_nor_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.write_text("mine")
    link = out / "001-configmap-default-code.yaml"
    link.symlink_to(victim)
    (out / INDEX).write_text(f"{link.name}\n../victim\n")
    assert _plan_into(out, tmp_path) == EXIT_INVALID
    assert "would be overwritten, but raygang did not write it" in capsys.readouterr().err
    assert link.is_symlink() and victim.read_text() == "mine"


def test_a_directory_listed_in_the_index_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    (out / "data").mkdir(parents=True)
    (out / "data" / "f").write_text("mine")
    (out / INDEX).write_text("data\n")
    assert _plan_into(out, tmp_path) == 0
    assert "kept 1 entries raygang did not write: data" in capsys.readouterr().err
    assert (out / "data" / "f").read_text() == "mine"


def _finishes(run: Any, seconds: float = 60) -> Any:
    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(run()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert done, f"still running after {seconds} s"
    return done[0]


def test_a_fifo_listed_in_the_index_does_not_hang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    fifo = out / "001-configmap-default-code.yaml"
    os.mkfifo(fifo)
    (out / INDEX).write_text(f"{fifo.name}\n")
    assert _finishes(lambda: _plan_into(out, tmp_path)) == EXIT_INVALID
    assert "would be overwritten, but raygang did not write it" in capsys.readouterr().err
    assert fifo.exists()


def test_a_fifo_as_the_index_does_not_hang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / INDEX)
    assert _finishes(lambda: _plan_into(out, tmp_path)) == EXIT_INVALID
    assert f"{out / INDEX}: is not a regular file" in capsys.readouterr().err


def test_a_huge_index_is_refused_without_reading_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with (out / INDEX).open("wb") as index:
        index.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of zeros on no disk
    assert _plan_into(out, tmp_path) == EXIT_INVALID
    err = capsys.readouterr().err
    assert f"is {64 * 1024 * 1024} bytes, more than the {MAX_INDEX_BYTES}" in err


def test_an_index_naming_paths_removes_only_plain_entries_of_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside.yaml"
    out.mkdir()
    outside.write_text("mine")
    (out / "old.yaml").write_text("written before")
    (out / INDEX).write_text(f"old.yaml\n../outside.yaml\n{outside}\n..\n.\n")
    assert _plan_into(out, tmp_path) == 0
    capsys.readouterr()
    assert outside.read_text() == "mine" and not (out / "old.yaml").exists()
