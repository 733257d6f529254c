"""Documents built as go-yaml v2 builds them (``kubeyaml.compose``): duplicate keys, keys
that collide as JSON, aliases, merge keys, and the node, depth and expansion bounds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from raygang.kube.kubeyaml import Limits, ManifestError, load_documents

from tests.kube.kubeyaml.conftest import check_against, refused, run_ref


def test_duplicate_keys_refused_by_default() -> None:
    with pytest.raises(ManifestError) as caught:
        load_documents("spec:\n  a: 1\n  a: 2\n", source="job.yaml")
    assert caught.value.path == "spec.a"
    assert caught.value.line == 3
    assert load_documents("a: 1\na: 2\n", source="t", duplicate_keys="last") == [{"a": 2}]


def test_json_text_collision_refused() -> None:
    with pytest.raises(ManifestError, match="at random"):
        load_documents('1: a\n"1": b\n', source="t")


def test_aliases_are_copies() -> None:
    (doc,) = load_documents("a: &x {k: [1]}\nb: *x\n", source="t")
    assert isinstance(doc, dict)
    inner = doc["a"]
    assert isinstance(inner, dict) and isinstance(inner["k"], list)
    inner["k"].append(2)
    assert doc["b"] == {"k": [1]}


def billion_laughs(levels: int = 9) -> str:
    lines = ['a0: &a0 "lol"']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def test_billion_laughs(yamlref: Path) -> None:
    error = refused(billion_laughs())
    assert error.limit == Limits().max_expanded
    assert error.path is not None and error.path.startswith("a")
    assert isinstance(run_ref(yamlref, billion_laughs().encode()), str)  # kubectl refuses too


def merge_bomb(levels: int = 60) -> str:
    lines = ["m0: &m0 {k: 1}"]
    for i in range(1, levels + 1):
        lines.append(f"m{i}: &m{i} {{<<: [*m{i - 1}, *m{i - 1}], k{i}: {i}}}")
    return "\n".join(lines) + "\n"


def test_merge_doubling_bomb(yamlref: Path) -> None:
    refused(merge_bomb())
    assert isinstance(run_ref(yamlref, merge_bomb(30).encode()), str)


def test_small_merge_chain_matches_kubectl(yamlref: Path) -> None:
    check_against(yamlref, merge_bomb(6).encode())


def test_laughs_inside_a_string_are_just_text(yamlref: Path) -> None:
    # runtimeEnvYAML holds YAML as text: reading the manifest does not expand it.
    text = "spec:\n  runtimeEnvYAML: " + json.dumps(billion_laughs()) + "\n"
    check_against(yamlref, text.encode())


def test_three_million_items() -> None:
    refused("- 1\n" * 3_000_000)


def test_deep_flow_nesting() -> None:
    refused("[" * 50_000 + "]" * 50_000)


def test_deep_block_nesting() -> None:
    refused("".join(" " * i + "a:\n" for i in range(2000)))


def test_depth_through_aliases() -> None:
    lines = ["l0: &l0 [x]"] + [f"l{i}: &l{i} [*l{i - 1}]" for i in range(1, 300)]
    error = refused("\n".join(lines) + "\n")
    assert error.limit == Limits().max_depth


def test_depth_at_limit_is_fine() -> None:
    text = "[" * 100 + "]" * 100
    assert load_documents(text, source="t") == [_nest(100)]
    refused("[" * 101 + "]" * 101)


def _nest(depth: int) -> object:
    value: list[object] = []
    for _ in range(depth - 1):
        value = [value]
    return value
