"""Shared helpers for the validation tests (raygang.rayjob.validate, as the loader runs it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from raygang.kube.errors import Problem, SpecError
from raygang.loader import load_files


def problems_of(*paths: Path) -> tuple[Problem, ...]:
    with pytest.raises(SpecError) as caught:
        load_files(list(paths))
    return caught.value.problems
