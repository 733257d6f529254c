"""How problems are worded: values described, field paths, stack settings' problems."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from raygang.kube.errors import MapKey, Problem, SpecError, describe_value, field_path
from raygang.rayjob.spec import problems_from_validation_error


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


def test_settings_messages_keep_their_shape() -> None:
    from raygang.settings import settings_from_getter

    with pytest.raises(SpecError) as caught:
        settings_from_getter({"waitForCompletion": "maybe"}.get, "stack dev config")
    problem = caught.value.problems[0]
    assert problem.path == "raygang:waitForCompletion"
    assert "the string 'maybe'" in problem.message


@pytest.mark.parametrize(
    ("values", "path", "message", "accepted"),
    [
        (
            {"completionTimeoutSeconds": 0},
            "raygang:completionTimeoutSeconds",
            "the number 0 is out of range",
            "more than 0",
        ),
        ({"accountin": "kuberay"}, "raygang:accountin", "is not a known field", "remove it"),
        ({"jobs": {}}, "raygang:jobs", "an empty map {} is not a list", "a list"),
    ],
)
def test_settings_problems_say_what_is_accepted(
    values: dict[str, object], path: str, message: str, accepted: str
) -> None:
    from raygang.settings import StackSettings

    with pytest.raises(ValidationError) as caught:
        StackSettings.model_validate(values)
    (problem,) = [
        Problem(p.source, f"raygang:{p.path}", p.message, p.accepted)
        for p in problems_from_validation_error(caught.value, "stack dev config")
    ]
    assert (problem.path, problem.message) == (path, message)
    assert accepted in problem.accepted
