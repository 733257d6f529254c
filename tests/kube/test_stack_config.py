"""The stack config read the same way by ``raygang plan`` (the stack file) and by the Pulumi
program (the JSON text Pulumi hands it): through the bounded reader, unknown ``raygang:*``
keys refused in both (issue 18 item 5)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any

import pulumi
import pytest
from raygang.kube.errors import SpecError
from raygang.settings import read_stack_file

from tests.pulumi_harness import ROOT, install, stack_config


def _stack(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "Pulumi.t.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("config:\n  raygang:acounting: kuberay\n", "config.raygang:acounting"),
        ("- config\n", "is not a map"),
        ("config: [1]\n", "is not a map"),
        ("config:\n  raygang:completionTimeoutSeconds: " + "9" * 5000 + "\n", "raygang:"),
        ("a: &a [" + ", ".join(["x"] * 50) + "]\nb: [" + ", ".join(["*a"] * 9000) + "]\n", "max"),
        ("config: {}\n---\nconfig: {}\n", "several YAML documents"),
        ("config:\n  raygang:accounting: kuberay\n  raygang:accounting: effective\n", "twice"),
    ],
)
def test_cli_refuses(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(SpecError) as caught:
        read_stack_file(_stack(tmp_path, text))
    assert said in str(caught.value)


def test_cli_reads_the_shipped_stacks() -> None:
    # Each shipped stack reads to the jobs or manifest files it declares; an empty glob or a
    # stack read as empty would fail here.
    read = {
        path.name: read_stack_file(path)
        for path in sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))
        if not path.name.endswith(".local.yaml")
    }
    assert sorted(read) == ["Pulumi.dev.yaml", "Pulumi.ml-platform.yaml"]
    assert [job["metadata"]["name"] for job in read["Pulumi.dev.yaml"].jobs] == ["demo-job"]
    assert read["Pulumi.ml-platform.yaml"].manifests == ["stacks/ml-platform/jobs.yaml"]


def _run(config: dict[str, str]) -> None:
    install(config, preview=True)

    @pulumi.runtime.test
    def program() -> Any:
        sys.path.insert(0, str(ROOT))
        try:
            runpy.run_path(str(ROOT / "__main__.py"), run_name="__main__")
        finally:
            sys.path.remove(str(ROOT))

    program()


def test_program_refuses_an_unknown_key_as_the_cli_does(tmp_path: Path) -> None:
    config = {**stack_config("dev"), "raygang:acounting": "kuberay"}
    with pytest.raises(Exception, match=r"raygang:acounting: is not a raygang setting"):
        _run(config)
    with pytest.raises(SpecError, match=r"raygang:acounting: is not a raygang setting"):
        read_stack_file(_stack(tmp_path, "config:\n  raygang:acounting: kuberay\n"))


def test_program_bounds_config_json() -> None:
    config = {**stack_config("dev"), "raygang:jobs": "[" + "9" * 5000 + "]"}
    with pytest.raises(Exception, match=r"raygang:jobs"):
        _run(config)
