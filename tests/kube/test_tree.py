"""copy_tree: a deep copy of the JSON-shaped trees manifests are made of."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.kube.quantity import Quantity
from raygang.kube.tree import copy_tree

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=30,
)


def containers(value: Any) -> list[int]:
    """The ids of every dict and list in ``value``."""
    if isinstance(value, dict):
        return [id(value), *(i for v in value.values() for i in containers(v))]
    if isinstance(value, list):
        return [id(value), *(i for v in value for i in containers(v))]
    return []


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_equal_and_sharing_no_container(tree: Any) -> None:
    copied = copy_tree(tree)
    assert copied == tree
    assert not set(containers(copied)) & set(containers(tree))


def test_yaml_aliases_become_separate_objects() -> None:
    template = {"metadata": {"labels": {"app": "ray"}}}
    spec = {"head": template, "worker": template}  # what a YAML anchor and alias load as
    copied = copy_tree(spec)
    copied["head"]["metadata"]["labels"]["role"] = "head"
    assert copied["worker"]["metadata"]["labels"] == {"app": "ray"}


def test_other_objects_are_deep_copied() -> None:
    odd = {"tuple": ([1], 2), "quantity": Quantity("1500m")}
    copied = copy_tree(odd)
    assert copied == odd
    assert copied["tuple"][0] is not odd["tuple"][0]
