"""raygang.settings: the stack settings' problems keep their shape and say what is accepted."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from raygang.kube.errors import Problem, SpecError
from raygang.rayjob.problems import problems_from_validation_error


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
