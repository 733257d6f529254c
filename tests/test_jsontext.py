"""``dumps_indented`` writes what ``json.dumps(indent=2)`` writes, byte for byte."""

from __future__ import annotations

import enum
import json
import math
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.kube.jsontext import dumps_indented

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
TREES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=5)
        | st.tuples(children, children)
        | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=40,
)


def _stdlib(value: Any, sort_keys: bool, ensure_ascii: bool) -> str:
    return json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=ensure_ascii)


class TestSameTextAsTheStandardLibrary:
    @settings(max_examples=400)
    @given(TREES, st.booleans(), st.booleans())
    def test_any_json_tree(self, value: Any, sort_keys: bool, ensure_ascii: bool) -> None:
        ours = dumps_indented(value, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
        assert ours == _stdlib(value, sort_keys, ensure_ascii)

    def test_worked_example(self) -> None:
        value = {"b": [1, 2.5, None, {}], "a": {"é": True, "z": []}, "c": "\u2028\n"}
        assert dumps_indented(value, sort_keys=True, ensure_ascii=False) == (
            "{\n"
            '  "a": {\n'
            '    "z": [],\n'
            '    "é": true\n'
            "  },\n"
            '  "b": [\n'
            "    1,\n"
            "    2.5,\n"
            "    null,\n"
            "    {}\n"
            "  ],\n"
            '  "c": "\u2028\\n"\n'
            "}"
        )

    @pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf, 1e300, -0.0, 2**70])
    def test_numbers(self, number: float) -> None:
        assert dumps_indented([number]) == _stdlib([number], False, True)

    def test_insertion_order_without_sort_keys(self) -> None:
        assert dumps_indented({"z": 1, "a": 2}) == '{\n  "z": 1,\n  "a": 2\n}'


class Colour(enum.IntEnum):
    RED = 1


class TestEverythingElseIsTheStandardLibrarys:
    @pytest.mark.parametrize(
        "value",
        [
            {1: "int key", "b": 2},
            {None: 1, True: 2, 1.5: 3},
            [Colour.RED],
            OrderedDict([("b", 1), ("a", 2)]),
            {"nested": [{"x": Colour.RED}]},
        ],
    )
    def test_unusual_values_match(self, value: Any) -> None:
        assert dumps_indented(value) == _stdlib(value, False, True)

    def test_mixed_keys_with_sort_keys_raise_as_json_does(self) -> None:
        with pytest.raises(TypeError):
            json.dumps({1: "a", "b": 2}, indent=2, sort_keys=True)
        with pytest.raises(TypeError):
            dumps_indented({1: "a", "b": 2}, sort_keys=True)

    def test_a_cycle_raises_as_json_does(self) -> None:
        cycle: list[Any] = []
        cycle.append(cycle)
        with pytest.raises(ValueError, match="Circular reference"):
            dumps_indented({"a": cycle})

    def test_unknown_objects_raise_as_json_does(self) -> None:
        with pytest.raises(TypeError, match="not JSON serializable"):
            dumps_indented({"a": object()})
