"""Shared helpers of the raygang.kube.quantity tests: short names for formats and parsing.

Most expected strings in these tests are data, not opinions:

* the tables of research section 9 (``shared/research/kuberay.md``), which were
  produced by running k8s.io/apimachinery v0.36.0;
* the KubeRay vectors of research section 8;
* ``TestGoQuirks``: odd inputs whose results were taken from the real
  apimachinery v0.36.0 ``resource`` package, compiled and run outside the
  repository while these tests were written.
"""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import settings
from raygang.kube.quantity import Format, Quantity, format_resource_list, parse_resource_list

DEC = Format.DECIMAL_SI
BIN = Format.BINARY_SI
EXP = Format.DECIMAL_EXPONENT


def q(text: str) -> Quantity:
    return Quantity.parse(text)


def fold(texts: list[str]) -> Quantity:
    """Left fold with ``+``, the way KubeRay accumulates (first operand is the receiver)."""
    total = q(texts[0])
    for text in texts[1:]:
        total = total + q(text)
    return total


def resources(raw: Mapping[str, object]) -> dict[str, Quantity]:
    return parse_resource_list(raw)


def printed(totals: Mapping[str, Quantity]) -> dict[str, str]:
    return format_resource_list(totals)


# Timing varies on shared CI machines; a deadline would only make these flaky.
no_deadline = settings(deadline=None)
