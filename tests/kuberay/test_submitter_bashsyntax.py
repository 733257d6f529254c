"""raygang.kuberay.submitter._bashsyntax: bash's syntax check of an entrypoint, and the text
it answers without a bash process.

The specification is bash itself: ``bash -n`` of ``ray job submit -- <entrypoint>``
(:func:`_bash_n`). :func:`bash_syntax_error` skips the process for text bash cannot refuse
(plain words, quoted strings with nothing to expand); these tests hold it to bash's answer.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from raygang.kuberay.submitter import _bashsyntax
from raygang.kuberay.submitter._bashsyntax import _bash_n, bash_syntax_error, go_trim_space

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

_PLAIN_WORD = st.text(alphabet="abcXYZ019 \t_./=:,+@%-", min_size=1, max_size=8)
# Everything bash reads between single quotes literally: the shell's metacharacters included.
_SINGLE = st.text(
    alphabet=st.characters(exclude_characters="'\x00", exclude_categories=["Cs"]),
    max_size=12,
).map(lambda inner: f"'{inner}'")
_DOUBLE = st.text(alphabet="abc (){}[];|&<>#*?~'\n\t", max_size=12).map(lambda s: f'"{s}"')
_ACCEPTED = st.lists(st.one_of(_PLAIN_WORD, _SINGLE, _DOUBLE), max_size=6).map("".join)
# Shell text of every kind: the pieces the quick check accepts mixed with what bash refuses
# or expands (operators, unbalanced quotes, expansions, reserved words on a new line).
_HAZARD = st.sampled_from(
    ["\nfi", "\ndone", "; fi", "| done", "& esac", ")", "(", ";", "&&", "|", "<", "$", "$(",
     "`", "\\", "'", '"', "\x00", "#", "!", "{", "}", "*", "\n", '"$(x"', '"a\\"', "'a'b'"]
)  # fmt: skip
_SHELL = st.lists(st.one_of(_PLAIN_WORD, _SINGLE, _DOUBLE, _HAZARD), max_size=6).map("".join)


@settings(max_examples=150, deadline=None)
@given(_ACCEPTED)
def test_what_the_quick_check_accepts_bash_parses(text: str) -> None:
    # The generated text is made only of what the quick check accepts; bash must agree.
    assert _bashsyntax._PLAIN.fullmatch(text)
    assert _bash_n(text) is None


@settings(max_examples=300, deadline=None)
@given(_SHELL)
def test_the_check_answers_what_bash_answers_for_any_shell_text(text: str) -> None:
    # The quick check is only ever a shortcut: the answer is bash's, message included.
    assert bash_syntax_error(text) == _bash_n(go_trim_space(text))


@pytest.mark.parametrize(
    "entrypoint",
    [
        "python -c 'print(1)'",
        'python -c "print(1)"',
        "python main.py --name 'a b; c' --tag \"x (y)\"",
        "python train.py --config='{\"lr\": 0.1}'",
        "python -c 'import sys\nprint(sys.argv)' 'it''s'",
    ],
)
def test_quoted_text_with_nothing_to_expand_needs_no_bash_process(
    entrypoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _bash_n(entrypoint) is None  # bash parses each of them

    def no_process(*args: object, **kwargs: object) -> object:
        raise AssertionError(f"bash was started for {entrypoint!r}")

    monkeypatch.setattr(subprocess, "run", no_process)
    assert bash_syntax_error(entrypoint) is None


@pytest.mark.parametrize(
    ("entrypoint", "said"),
    [
        ("python 'a.py", "unexpected EOF while looking for matching `''"),
        ('python -c "$(x"', "unexpected EOF while looking for matching `\"'"),
        ("python -c 'x' )", "syntax error near unexpected token `)'"),
        ("python a.py\nfi", "syntax error near unexpected token `fi'"),
        ('python "a" \'b"', "unexpected EOF while looking for matching `''"),
    ],
)
def test_text_the_quick_check_leaves_to_bash_gets_bashs_message(entrypoint: str, said: str) -> None:
    assert not _bashsyntax._PLAIN.fullmatch(go_trim_space(entrypoint))
    why = bash_syntax_error(entrypoint)
    assert why is not None
    assert said in why
