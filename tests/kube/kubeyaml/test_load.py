"""Whole streams read as kubectl reads them (``kubeyaml.load``), against kubectl's decoder:
the worked documents, generated ones, and where an error points."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from raygang.kube.kubeyaml import ManifestError, load_documents

from tests.kube.kubeyaml.conftest import DOCUMENTS, SCALAR_TEXT, SETTINGS, check_against


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_document_as_kubectl(yamlref: Path, name: str) -> None:
    check_against(yamlref, DOCUMENTS[name].encode())


def test_error_names_source_path_and_line() -> None:
    with pytest.raises(ManifestError) as caught:
        load_documents("a: 1\n---\nspec:\n  workers:\n  - cpu: .nan\n", source="job.yaml")
    error = caught.value
    assert (error.source, error.document, error.line) == ("job.yaml", 2, 5)
    assert error.path == "spec.workers[0].cpu"
    assert "finite number" in str(error)


def _flow(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pairs = st.tuples(SCALAR_TEXT, children).map(lambda kv: f"{kv[0]}: {kv[1]}")
    return st.one_of(
        st.lists(children, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(pairs, max_size=4).map(lambda xs: "{" + ", ".join(xs) + "}"),
        st.lists(pairs, max_size=3).map(lambda xs: "{<<: {" + ", ".join(xs) + "}}"),
    )


FLOW = st.recursive(SCALAR_TEXT, _flow, max_leaves=12)


@SETTINGS
@given(FLOW, FLOW)
def test_property_documents(yamlref: Path, first: str, second: str) -> None:
    text = f"a: &a {first}\nb: {second}\nc: *a\nd: {{<<: *a, z: 1}}\n---\n- {second}\n"
    check_against(yamlref, text.encode())
