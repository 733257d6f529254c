"""raygang.kube._indentjson agrees with its specification, ``json.dumps(indent=2)``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.kube._indentjson import dumps_indented

# Every kind of leaf a manifest holds, plus the ones the plain writer hands back to the
# library (NaN, infinities, a tuple, a str subclass): the text must be the same for all.
leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),  # any code point: escapes, quotes, non-ASCII, surrogates
)
trees = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.text(max_size=8), children, max_size=5),
        st.lists(children, max_size=3).map(tuple),
    ),
    max_leaves=40,
)


@settings(max_examples=400)
@given(trees, st.booleans(), st.booleans())
def test_it_writes_what_json_dumps_writes(value: Any, sort_keys: bool, ascii_only: bool) -> None:
    expected = json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=ascii_only)
    assert dumps_indented(value, sort_keys=sort_keys, ensure_ascii=ascii_only) == expected


@pytest.mark.parametrize(
    "value",
    [
        {1: "a", 2: "b"},  # int keys: json.dumps writes them as strings
        {"b": 1, "a": {"z": [], "y": {}}},
        {"a": 1, 2: "b"},  # keys that do not sort together
        [float("nan"), float("-inf")],
    ],
)
def test_the_values_it_hands_back_agree_too(value: Any) -> None:
    for sort_keys in (False, True):
        try:
            expected: str | type[Exception] = json.dumps(value, indent=2, sort_keys=sort_keys)
        except TypeError:
            expected = TypeError
        if expected is TypeError:
            with pytest.raises(TypeError):
                dumps_indented(value, sort_keys=sort_keys)
        else:
            assert dumps_indented(value, sort_keys=sort_keys) == expected


def test_a_manifest_writes_as_json_dumps_writes_it() -> None:
    manifest = {
        "kind": "RayJob",
        "spec": {"entrypoint": "python -c 'print(\"é\")'", "replicas": 2, "ratio": 0.5},
        "metadata": {"labels": {}, "finalizers": []},
    }
    text = dumps_indented(manifest, sort_keys=True, ensure_ascii=False)
    assert text == json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False)
    assert '"entrypoint": "python -c \'print(\\"é\\")\'"' in text
