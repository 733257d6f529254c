"""Shared builders for the facts' tests: the fixtures of fixtures/lifecycle, as a snapshot,
as facts and as plain objects to edit."""

from __future__ import annotations

from typing import Any

import yaml
from raygang.lifecycle.facts.gather import gather_facts

from tests.lifecycle.conftest import BASE_SID, DONE, FIXTURES, snapshot

__all__ = ["DONE", "SID", "facts", "fixture_objects", "snapshot"]

#: The submission ID the fixtures carry (``__SUBMISSION_ID__``).
SID = BASE_SID


def facts(name: str) -> Any:
    return gather_facts(snapshot(name), "ml", "rayjob-sample")


def fixture_objects(name: str) -> list[dict[str, Any]]:
    text = (FIXTURES / name).read_text().replace("__SUBMISSION_ID__", SID)
    return list(yaml.safe_load(text)["items"])
