"""Quantity parsing and summing: ``components.quantity`` versus lightkube's parser."""

from __future__ import annotations

import decimal
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from benchmarks.measure import best_of
from benchmarks.synth import make_quantity_inputs
from components.quantity import Quantity, QuantityError

__all__ = ["QuantityResult", "load_lightkube", "run_quantities"]

LIGHTKUBE_MISSING = "skipped: lightkube not installed (pip install -e '.[bench]')"


def load_lightkube() -> Callable[[str], decimal.Decimal | None] | None:
    """``lightkube.utils.quantity.parse_quantity``, or None when lightkube is absent."""
    try:
        from lightkube.utils.quantity import parse_quantity
    except ImportError:
        return None
    return parse_quantity


@dataclass
class QuantityResult:
    """Per-operation times of both libraries on the same inputs.

    Attributes:
        inputs: how many strings were parsed per repetition (accepted by both).
        rejected: generated strings one of the parsers refused (left out).
        ours_parse: seconds per ``Quantity.parse``.
        theirs_parse: seconds per ``parse_quantity``.
        ours_add: seconds per ``Quantity + Quantity`` (summing the parsed inputs).
        theirs_add: seconds per ``Decimal + Decimal`` (summing lightkube's results).
        skipped: why the comparison did not run (empty when it did).
    """

    inputs: int = 0
    rejected: int = 0
    ours_parse: float = 0.0
    theirs_parse: float = 0.0
    ours_add: float = 0.0
    theirs_add: float = 0.0
    skipped: str = ""

    @property
    def parse_ratio(self) -> float | None:
        """Our parse time over lightkube's: below 1.0 means we are faster."""
        return self.ours_parse / self.theirs_parse if self.theirs_parse else None

    @property
    def add_ratio(self) -> float | None:
        """Our add time over ``Decimal`` addition."""
        return self.ours_add / self.theirs_add if self.theirs_add else None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        out = asdict(self)
        out.update(parse_ratio=self.parse_ratio, add_ratio=self.add_ratio)
        out["skipped"] = self.skipped or None
        return out


def _accepted_by_both(
    candidates: Sequence[str], theirs: Callable[[str], decimal.Decimal | None]
) -> list[str]:
    kept = []
    for text in candidates:
        try:
            Quantity.parse(text)
            theirs(text)
        except (QuantityError, ValueError, ArithmeticError):
            continue
        kept.append(text)
    return kept


def run_quantities(count: int, repeat: int) -> QuantityResult:
    """Parse and sum the same ``count`` generated quantities with both libraries."""
    theirs = load_lightkube()
    if theirs is None:
        return QuantityResult(skipped=LIGHTKUBE_MISSING)
    candidates = make_quantity_inputs(count)
    inputs = _accepted_by_both(candidates, theirs)
    parse = Quantity.parse

    def ours_parse() -> list[Quantity]:
        return [parse(s) for s in inputs]

    def theirs_parse() -> list[decimal.Decimal | None]:
        return [theirs(s) for s in inputs]

    ours_seconds, ours_values = best_of(repeat, ours_parse)
    theirs_seconds, theirs_values = best_of(repeat, theirs_parse)
    decimals = [d for d in theirs_values if d is not None]

    def ours_sum() -> Quantity:
        total = Quantity.zero()
        for q in ours_values:
            total = total + q
        return total

    def theirs_sum() -> decimal.Decimal:
        total = decimal.Decimal(0)
        for d in decimals:
            total = total + d
        return total

    ours_add, _ = best_of(repeat, ours_sum)
    theirs_add, _ = best_of(repeat, theirs_sum)
    n = len(inputs)
    return QuantityResult(
        inputs=n,
        rejected=len(candidates) - n,
        ours_parse=ours_seconds / n,
        theirs_parse=theirs_seconds / n,
        ours_add=ours_add / n,
        theirs_add=theirs_add / len(decimals),
    )
