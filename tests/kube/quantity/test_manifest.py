"""Tests for raygang.kube.quantity.manifest: parsing remembered across manifests."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from raygang.kube.quantity import Quantity, QuantityError, parse_manifest_quantity

from tests.kube.quantity.conftest import no_deadline


class TestParseManifestQuantity:
    """The remembering parser used while reading manifests: Quantity.parse's answers."""

    @no_deadline
    @given(st.sampled_from(["1", "500m", "4Gi", "1.5", "1e3", "0.1Mi", "12345678901234567890"]))
    def test_same_quantity_and_text_as_parse(self, text: str) -> None:
        got = parse_manifest_quantity(text)
        expected = Quantity.parse(text)
        assert (got, str(got), got.format) == (expected, str(expected), expected.format)

    def test_one_object_per_text_and_ints_apart(self) -> None:
        assert parse_manifest_quantity("7Gi") is parse_manifest_quantity("7Gi")
        assert parse_manifest_quantity(3) == parse_manifest_quantity("3")
        assert parse_manifest_quantity(3) is not parse_manifest_quantity("3")

    def test_errors_are_raised_every_time(self) -> None:
        for _ in range(2):
            with pytest.raises(QuantityError, match="2 cores"):
                parse_manifest_quantity("2 cores")
