"""PyYAML's pure parser, the fallback where libyaml is missing (``kubeyaml.events``), against
kubectl's decoder over every vector."""

from __future__ import annotations

from pathlib import Path

import pytest
from raygang.kube.kubeyaml import ManifestError, events, load_documents

from tests.kube.kubeyaml.conftest import DOCUMENTS, SCALARS, check_against

# Where PyYAML's pure parser (used only without libyaml) is not go-yaml: it refuses a tab
# after "key:", and reads `[a:, b]` as a map item where go-yaml reads the text "a:" and
# libyaml refuses it. Pinned here so a change in either shows up.
PURE_PARSER_REFUSES = {"tabs-and-comments"}
PURE_PARSER_READS = {"flow-colon-before-indicator": [{"l": [{"a": None}, "b"]}]}


def test_pure_parser_fallback_agrees(yamlref: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events, "PARSER", events.PyParser)
    for scalar in SCALARS:
        check_against(yamlref, f"k: {scalar}\n".encode())
    for name, text in DOCUMENTS.items():
        if name in PURE_PARSER_REFUSES:
            with pytest.raises(ManifestError, match="not valid YAML"):
                load_documents(text, source="t")
        elif name in PURE_PARSER_READS:
            assert load_documents(text, source="t") == PURE_PARSER_READS[name]
        else:
            check_against(yamlref, text.encode())
