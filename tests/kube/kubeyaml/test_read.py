"""A file read with a bound (``kubeyaml.read``)."""

from __future__ import annotations

import pytest
from raygang.kube import kubeyaml
from raygang.kube.kubeyaml import Limits, ManifestLimitError


def test_read_bounded_dev_zero() -> None:
    with pytest.raises(ManifestLimitError):
        kubeyaml.read_bounded("/dev/zero", Limits(max_bytes=1 << 20))
