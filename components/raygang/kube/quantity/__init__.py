"""Exact Kubernetes resource quantities, string for string with apimachinery.

This package reimplements the parts of ``k8s.io/apimachinery/pkg/api/resource``
(``Quantity``, v0.36.0) that KubeRay relies on when it sums pod resources into a
Volcano PodGroup: parsing, ``Add``, ``Mul``, comparison and ``String()``.

The goal is byte-identical output, so a PodGroup planned offline matches the
one the operator writes. Three Go behaviours matter most and are easy to miss:

* Parsing rounds the magnitude *up* to nano (10^-9) precision.
* ``String()`` returns the original text when parsing kept it. Go keeps it only
  when a cheap heuristic says it is already canonical, so ``"+1"``, ``"01"``
  and ``"1.500"`` print back unchanged until they take part in arithmetic.
* A sum takes the format (DecimalSI, BinarySI, DecimalExponent) of its
  receiver, unless the receiver is zero; then it takes the addend's.

The value is held as an integer count of nano units, which is exact because
every quantity that exists after parsing is a multiple of 10^-9.

Modules, each importing only those before it: ``errors`` (``QuantityError`` and its
wording), ``suffixes`` (formats, suffix tables, the nano unit), ``parse`` (grammar,
exponents and rounding), ``canonical`` (``CanonicalizeBytes``), ``value`` (the ``Quantity``
class and its arithmetic), ``crd`` (the CRD schema's check) and ``lists`` (resource lists).

The package is pure and uses the standard library only.
"""

from __future__ import annotations

from raygang.kube.quantity.crd import CRD_QUANTITY_PATTERN, crd_quantity_error
from raygang.kube.quantity.errors import QuantityError
from raygang.kube.quantity.lists import (
    format_resource_list,
    max_resource_lists,
    parse_resource_list,
    scale_resource_list,
    sum_resource_lists,
)
from raygang.kube.quantity.suffixes import Format
from raygang.kube.quantity.value import Quantity

__all__ = [
    "CRD_QUANTITY_PATTERN",
    "Format",
    "Quantity",
    "QuantityError",
    "crd_quantity_error",
    "format_resource_list",
    "max_resource_lists",
    "parse_resource_list",
    "scale_resource_list",
    "sum_resource_lists",
]
