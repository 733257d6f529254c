"""raygang.kube.goquote: Go's ``strconv.Quote``, byte for byte.

Expected values were produced by Go's ``strconv.Quote`` on the same bytes.
"""

from __future__ import annotations

import pytest
from raygang.kube.goquote import go_quote


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
