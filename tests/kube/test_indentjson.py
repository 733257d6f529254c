"""raygang.kube._indentjson agrees with its specifications, ``json.dumps(indent=2)`` and
``json.dump(indent=2)``."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.kube._indentjson import dumps_indented, write_indented

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


class _Pieces:
    """A stream that keeps each text it is handed."""

    def __init__(self) -> None:
        self.pieces: list[str] = []

    def write(self, text: str) -> int:
        self.pieces.append(text)
        return len(text)


@settings(max_examples=400)
@given(trees, st.booleans(), st.booleans())
def test_it_streams_what_json_dump_writes(value: Any, sort_keys: bool, ascii_only: bool) -> None:
    expected = io.StringIO()
    json.dump(value, expected, indent=2, sort_keys=sort_keys, ensure_ascii=ascii_only)
    out = _Pieces()
    write_indented(value, out, sort_keys=sort_keys, ensure_ascii=ascii_only)
    assert "".join(out.pieces) == expected.getvalue()


def test_it_hands_out_the_text_one_element_at_a_time() -> None:
    # The plan document's shape: its lists of jobs go out job by job, never as one text.
    job = {"name": "j", "resources": [{"kind": "RayCluster", "spec": {"a": [1, 2.5, None]}}]}
    document = {"jobs": [job, job, job], "queues": [], "companions": [{"x": (1, 2)}]}
    out = _Pieces()
    write_indented(document, out)
    assert "".join(out.pieces) == json.dumps(document, indent=2)
    one_job = "\n".join(
        "    " + line if i else line
        for i, line in enumerate(json.dumps(job, indent=2).splitlines())
    )
    assert out.pieces.count(one_job) == 3
    assert max(len(piece) for piece in out.pieces) == len(one_job)
