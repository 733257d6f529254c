"""raygang.kuberay.submitter._goquote: Go's ``strconv.Quote``, byte for byte, and ``shell_quote``
through bash.

Expected values were produced by Go's ``strconv.Quote`` on the same bytes; ``shell_quote``
and ``go_json_dumps`` run through the real ``/bin/bash``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.kuberay.submitter import _goquote as goquote
from raygang.kuberay.submitter._goquote import go_quote, shell_quote

from tests.builders import BASH, shell_text


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ('a"b\\c\n\t\x00é', '"a\\"b\\\\c\\n\\t\\x00é"'),
        ("\x07\x08\x0c\x0b\r\x1b\x7f", '"\\a\\b\\f\\v\\r\\x1b\\x7f"'),
        ("\u00a0\u00ad\u200b\u2028\ufeff", '"\\u00a0\\u00ad\\u200b\\u2028\\ufeff"'),
        ("😀\U000e0001\U0010ffff", '"😀\\U000e0001\\U0010ffff"'),
        ("\udcff\udc80", '"\\xff\\x80"'),  # invalid UTF-8 bytes (surrogateescape)
        ("$(touch x) `id` ${HOME} !", '"$(touch x) `id` ${HOME} !"'),
        ("\ufffd", '"\ufffd"'),
        ("日本語 ü", '"日本語 ü"'),
        ("", '""'),
    ],
)
def test_go_quote_matches_go(text: str, quoted: str) -> None:
    # Go: strconv.Quote on the same bytes.
    assert go_quote(text) == quoted


def test_kuberays_go_quoting_alone_would_execute_substitutions(tmp_path: Path) -> None:
    # Why shell_quote deviates from strconv.Quote: bash expands $(...) inside "...".
    value = "$(echo INJECTED)"
    printed = subprocess.run(
        [BASH, "-c", f"printf %s {go_quote(value)}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
        cwd=tmp_path,
    ).stdout
    assert printed == "INJECTED"
    assert shell_quote(value) == '"\\$(echo INJECTED)"'


def bash_words(words: list[str]) -> list[str]:
    """What bash makes of each shell_quote()d word."""
    script = "printf '%s\\0' " + " ".join(shell_quote(w) for w in words)
    out = subprocess.run(
        [BASH, "-ce", "--", script],
        capture_output=True,
        check=True,
        timeout=60,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent"},
    ).stdout
    return out.decode("utf-8").split("\0")[:-1]


@settings(max_examples=60, deadline=None)
@given(st.lists(shell_text, min_size=1, max_size=25))
def test_shell_quote_round_trips_through_bash(words: list[str]) -> None:
    assert bash_words(words) == words


@given(shell_text)
def test_shell_quote_equals_go_quote_when_bash_would_agree(text: str) -> None:
    safe = all(goquote._go_is_print(ord(c)) and c not in "$`" for c in text)
    if safe:
        assert shell_quote(text) == go_quote(text)
    else:
        assert shell_quote(text) != go_quote(text)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8).filter(lambda k: "\x00" not in k),
        shell_text,
        max_size=4,
    )
)
def test_metadata_json_survives_bash(metadata: dict[str, str]) -> None:
    if not metadata:
        return
    text = goquote.go_json_dumps(metadata)
    assert json.loads(text) == metadata
    (word,) = bash_words([text])
    assert json.loads(word) == metadata
