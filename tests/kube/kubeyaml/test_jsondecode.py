"""A JSON stream bounded as it is decoded (``kubeyaml.jsondecode``)."""

from __future__ import annotations

from tests.kube.kubeyaml.conftest import refused


def test_many_items_json() -> None:
    refused('{"a": [' + "1," * 3_000_000 + "1]}")


def test_deep_json_nesting() -> None:
    refused('{"a":' + "[" * 50_000 + "]" * 50_000 + "}")
