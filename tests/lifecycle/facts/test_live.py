"""The live snapshot without the optional client. What it reads from a real API server, and
the errors a kubeconfig, the network or RBAC cause, are tested in
``tests/e2e/test_live_facts.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from raygang.lifecycle.facts.live import LiveKind, live_cluster_scoped, live_snapshot


def test_without_the_client_the_error_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules makes `import kubernetes` fail, as on a machine without it.
    monkeypatch.setitem(sys.modules, "kubernetes", None)
    for read in (lambda: live_snapshot(["ml"]), live_cluster_scoped):
        with pytest.raises(RuntimeError, match=r"needs the kubernetes package \(pip install"):
            read()


def test_each_kind_is_listed_on_its_own_path() -> None:
    # The paths kubectl requests (`kubectl get jobs -n ml -v6`).
    assert LiveKind("v1", "Pod", "pods").path("ml") == "/api/v1/namespaces/ml/pods"
    job = LiveKind("batch/v1", "Job", "jobs")
    assert job.path("ml") == "/apis/batch/v1/namespaces/ml/jobs"


_SECRET = "tok-3f9a"  # in a kubeconfig that is not valid YAML: never in the message


@pytest.mark.parametrize("as_file", [False, True])
def test_a_kubeconfig_that_is_not_yaml_is_named_by_line_never_quoted(
    tmp_path: Path, as_file: bool
) -> None:
    text = f"apiVersion: v1\nusers:\n- name: u\n  user: {{token: {_SECRET}\n"
    kubeconfig = text
    if as_file:
        (tmp_path / "config").write_text(text)
        kubeconfig = str(tmp_path / "config")
    with pytest.raises(RuntimeError) as caught:
        live_cluster_scoped(kubeconfig=kubeconfig, context="c")
    assert str(caught.value) == "cannot load the kubeconfig (context c): not valid YAML (line 5)"


def test_contents_that_are_no_kubeconfig_say_so() -> None:
    with pytest.raises(RuntimeError) as caught:
        live_cluster_scoped(kubeconfig=f"no-such-file-{_SECRET}")
    assert str(caught.value) == (
        "cannot load the kubeconfig: it names no file and is not a kubeconfig document "
        "(a YAML or JSON mapping)"
    )
