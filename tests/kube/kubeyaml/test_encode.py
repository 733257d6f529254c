"""The JSON text kubectl sends for the numbers read (``kubeyaml.encode``)."""

from __future__ import annotations

import pytest
from raygang.kube import kubeyaml
from raygang.kube.kubeyaml import load_documents

from tests.kube.kubeyaml.conftest import same


@pytest.mark.parametrize(
    ("scalar", "value", "text"),
    [
        ("1e3", 1000, "1000"),
        ("2.0", 2, "2"),
        ("1.0e+3", 1000, "1000"),
        ("1e-3", 0.001, "0.001"),
        ("1e21", 1e21, "1e+21"),
        ("1e-7", 1e-7, "1e-7"),
        ("-0.0", -0.0, "-0"),
        ("0x10", 16, "16"),
        ("010", 8, "8"),
        ("9223372036854775808", 9223372036854775808, "9223372036854775808"),
        ("18446744073709551616", 18446744073709552000, "18446744073709552000"),
    ],
)
def test_numbers_kubectl_sends(scalar: str, value: float, text: str) -> None:
    (doc,) = load_documents(f"cpu: {scalar}\n", source="t")
    assert isinstance(doc, dict)
    assert same(doc["cpu"], value)
    number = doc["cpu"]
    assert isinstance(number, (int, float))
    assert kubeyaml.json_number_text(number) == text
