"""The bounds themselves (``kubeyaml.limits``): checked before parsing, and validated."""

from __future__ import annotations

import pytest
from raygang.kube.kubeyaml import Limits

from tests.kube.kubeyaml.conftest import refused


def test_size_cap_before_parsing() -> None:
    refused("a: " + "x" * 2000 + "\n", Limits(max_bytes=1000))
    refused(b"\x00" * 5000, Limits(max_bytes=1000))


def test_limits_validated() -> None:
    with pytest.raises(ValueError, match="max_depth"):
        Limits(max_depth=0)
