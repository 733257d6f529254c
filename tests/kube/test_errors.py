"""raygang.kube.errors: how problems are worded, values described and field paths rendered."""

from __future__ import annotations

import pytest
from raygang.kube.errors import MapKey, describe_value, field_path


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "the boolean true"),
        (2.52, "the number 2.52"),
        ("two", "the string 'two'"),
        ({}, "an empty map {}"),
        ({"a": 1, "b": 2}, "a map with keys a, b"),
        ([1, 2, 3], "a list of 3 items"),
        (10**40, "the number 100000000000...(41 digits)"),
        ("x" * 200, "the string '" + "x" * 75 + "...'"),
    ],
)
def test_describe_value(value: object, text: str) -> None:
    assert describe_value(value) == text


def test_field_paths_render_map_keys_in_brackets() -> None:
    parts: list[str | int] = ["spec", "containers", 0, "resources", "requests", MapKey("cpu")]
    assert field_path(parts) == "spec.containers[0].resources.requests['cpu']"
    assert field_path(["metadata", "labels", "volcano.sh/queue-name"]) == (
        "metadata.labels['volcano.sh/queue-name']"
    )
    assert field_path([]) == "<document>"
