"""What kubectl's stream reader refuses before any document is built
(``kubeyaml.stream``): lone surrogates, invalid UTF-8, UTF-16."""

from __future__ import annotations

import pytest
from raygang.kube.kubeyaml import ManifestError, load_documents


def test_lone_surrogate_text_refused() -> None:
    with pytest.raises(ManifestError, match="surrogate"):
        load_documents("a: \ud800\n", source="t")
    with pytest.raises(ManifestError):
        load_documents('a: "\\ud800"\n', source="t")


def test_invalid_utf8_and_utf16_refused() -> None:
    with pytest.raises(ManifestError, match="UTF-8"):
        load_documents(b"a: \xff\n", source="t")
    with pytest.raises(ManifestError, match="UTF-16"):
        load_documents("a: 1\n".encode("utf-16"), source="t")
