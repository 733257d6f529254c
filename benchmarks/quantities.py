"""Quantity parsing and summing: ``raygang.kube.quantity`` versus lightkube's parser."""

from __future__ import annotations

import decimal
import gc
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from raygang.kube.quantity import Quantity, QuantityError

from benchmarks.synth import make_quantity_inputs

__all__ = ["QuantityResult", "form_of", "load_lightkube", "run_quantities"]

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
        by_form: per input form (``plain``, ``decimal SI``, ``binary SI``, ``exponent``):
            ``(count, ours seconds per parse, lightkube seconds per parse)``.
        skipped: why the comparison did not run (empty when it did).
    """

    inputs: int = 0
    rejected: int = 0
    ours_parse: float = 0.0
    theirs_parse: float = 0.0
    ours_add: float = 0.0
    theirs_add: float = 0.0
    by_form: dict[str, tuple[int, float, float]] = field(default_factory=dict)
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


def form_of(text: str) -> str:
    """``exponent`` (1e3), ``binary SI`` (2Gi), ``decimal SI`` (500m, 1G) or ``plain`` (1.5)."""
    if "e" in text or "E" in text[:-1]:
        return "exponent"
    if text.endswith("i"):
        return "binary SI"
    if text[-1] in "numkMGTPE":
        return "decimal SI"
    return "plain"


def _interleaved(
    repeat: int, ours: Callable[[], object], theirs: Callable[[], object]
) -> tuple[float, float]:
    """Best times of two functions run alternately, so both see the same machine noise."""
    best = [math.inf, math.inf]
    for _ in range(max(1, repeat)):
        for index, func in enumerate((ours, theirs)):
            gc.collect()
            start = time.perf_counter()
            func()
            best[index] = min(best[index], time.perf_counter() - start)
    return best[0], best[1]


def _parse_all(parse: Callable[[str], Any], inputs: Sequence[str]) -> Callable[[], list[Any]]:
    return lambda: [parse(s) for s in inputs]


def run_quantities(count: int, repeat: int) -> QuantityResult:
    """Parse and sum the same ``count`` generated quantities with both libraries.

    Both parsers run once over every input before timing (warm-up and filtering), then
    alternately ``repeat`` times; the best time of each counts.
    """
    theirs = load_lightkube()
    if theirs is None:
        return QuantityResult(skipped=LIGHTKUBE_MISSING)
    candidates = make_quantity_inputs(count)
    inputs = _accepted_by_both(candidates, theirs)
    n = len(inputs)
    parse = Quantity.parse
    ours_parse, theirs_parse = _interleaved(
        repeat, _parse_all(parse, inputs), _parse_all(theirs, inputs)
    )
    values = [parse(s) for s in inputs]
    decimals = [d for d in (theirs(s) for s in inputs) if d is not None]

    def ours_sum() -> Quantity:
        total = Quantity.zero()
        for q in values:
            total = total + q
        return total

    def theirs_sum() -> decimal.Decimal:
        total = decimal.Decimal(0)
        for d in decimals:
            total = total + d
        return total

    ours_add, theirs_add = _interleaved(repeat, ours_sum, theirs_sum)
    forms: dict[str, list[str]] = {}
    for text in inputs:
        forms.setdefault(form_of(text), []).append(text)
    by_form = {}
    for name, texts in sorted(forms.items()):
        ours_t, theirs_t = _interleaved(repeat, _parse_all(parse, texts), _parse_all(theirs, texts))
        by_form[name] = (len(texts), ours_t / len(texts), theirs_t / len(texts))
    return QuantityResult(
        inputs=n,
        rejected=len(candidates) - n,
        ours_parse=ours_parse / n,
        theirs_parse=theirs_parse / n,
        ours_add=ours_add / n,
        theirs_add=theirs_add / len(decimals),
        by_form=by_form,
    )
