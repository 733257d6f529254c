"""Tests for raygang.kube.quantity.value: the ``Quantity`` object, ``Add`` and ``Mul``.

The sums and products are research sections 9.3 and 9.4.
"""

from __future__ import annotations

import copy
import pickle
from fractions import Fraction

import pytest
from raygang.kube.quantity import Format, Quantity

from tests.kube.quantity.conftest import BIN, DEC, EXP, fold, q

FORMAT_BY_GO_NAME = {"DecimalSI": DEC, "BinarySI": BIN, "DecimalExponent": EXP}


class TestAddZeroPreservesSuffix:
    @pytest.mark.parametrize(
        ("a", "b", "expected"),
        [("100m", "0", "100m"), ("0", "100m", "100m"), ("1Gi", "0", "1Gi"), ("0", "1Gi", "1Gi")],
    )
    def test_add_zero(self, a: str, b: str, expected: str) -> None:
        assert str(q(a) + q(b)) == expected


# --- research §9.3: sums and chains ----------------------------------------------------------

SUMS = [
    ("500m", "1", DEC, "1500m"),
    ("1", "500m", DEC, "1500m"),
    ("256m", "256m", DEC, "512m"),
    ("768m", "500m", DEC, "1268m"),
    ("1280m", "500m", DEC, "1780m"),
    ("2.5", "3", DEC, "5500m"),
    ("500m", "500m", DEC, "1"),
    ("1500m", "1500m", DEC, "3"),
    ("999m", "1m", DEC, "1"),
    ("100m", "900m", DEC, "1"),
    ("1", "999", DEC, "1k"),
    ("2", "2", DEC, "4"),
    ("512Mi", "2Gi", BIN, "2560Mi"),
    ("2Gi", "512Mi", BIN, "2560Mi"),
    ("256Mi", "256Mi", BIN, "512Mi"),
    ("768Mi", "200Mi", BIN, "968Mi"),
    ("1280Mi", "200Mi", BIN, "1480Mi"),
    ("512Mi", "512Mi", BIN, "1Gi"),
    ("1Gi", "1Gi", BIN, "2Gi"),
    ("1Gi", "200Mi", BIN, "1224Mi"),
    ("1.5Gi", "512Mi", BIN, "2Gi"),
    ("100Mi", "0", BIN, "100Mi"),
    ("0", "100Mi", BIN, "100Mi"),
    ("0", "500m", DEC, "500m"),
    ("0", "0", DEC, "0"),
    ("1G", "512Mi", DEC, "1536870912"),
    ("512Mi", "1G", BIN, "1536870912"),
    ("200Mi", "500M", BIN, "709715200"),
    ("500M", "500M", DEC, "1G"),
    ("1G", "1Gi", DEC, "2073741824"),
    ("1Gi", "1G", BIN, "2073741824"),
    ("100Mi", "1000", BIN, "104858600"),
    ("1000", "100Mi", DEC, "104858600"),
    ("1Ki", "1", BIN, "1025"),
    ("1", "1Ki", DEC, "1025"),
    ("1e3", "500m", EXP, "1000500e-3"),
    ("500m", "1e3", DEC, "1000500m"),
]

CHAINS = [
    (["256m", "256m", "256m", "500m"], "1268m"),
    (["1", "500m", "500m", "500m"], "2500m"),
    (["1Gi", "512Mi", "512Mi", "512Mi"], "2560Mi"),
    (["256Mi", "256Mi", "256Mi", "200Mi"], "968Mi"),
    (["0", "0", "1"], "1"),
    (["100Mi", "0", "0"], "100Mi"),
]


class TestSums:
    @pytest.mark.parametrize(("a", "b", "fmt", "expected"), SUMS)
    def test_sum(self, a: str, b: str, fmt: Format, expected: str) -> None:
        total = q(a) + q(b)
        assert str(total) == expected
        assert total.format is fmt
        assert total.value == q(a).value + q(b).value

    @pytest.mark.parametrize(("chain", "expected"), CHAINS)
    def test_chain(self, chain: list[str], expected: str) -> None:
        assert str(fold(chain)) == expected

    def test_add_clears_kept_text(self) -> None:
        # Research §9.1: odd inputs keep their text only while untouched.
        assert str(q("+1")) == "+1"
        assert str(q("01")) == "01"
        assert str(q("+1") + q("0")) == "1"
        assert str(q("01") + q("0")) == "1"

    def test_add_other_types_is_not_supported(self) -> None:
        with pytest.raises(TypeError):
            q("1") + 1  # type: ignore[operator]


# --- research §9.4: products ------------------------------------------------------------------

PRODUCTS = [
    ("256m", 3, "768m"),
    ("256m", 4, "1024m"),
    ("256m", 5, "1280m"),
    ("256Mi", 3, "768Mi"),
    ("256Mi", 4, "1Gi"),
    ("256Mi", 5, "1280Mi"),
    ("500m", 2, "1"),
    ("500m", 3, "1500m"),
    ("333m", 3, "999m"),
    ("1.5", 2, "3"),
    ("1", 0, "0"),
    ("256Mi", 0, "0"),
    ("1Gi", 1024, "1Ti"),
    ("100Mi", 10, "1000Mi"),
    ("200Mi", 4, "800Mi"),
    ("512Mi", 3, "1536Mi"),
    ("1", 2147483647, "2147483647"),
]


class TestProducts:
    @pytest.mark.parametrize(("a", "k", "expected"), PRODUCTS)
    def test_product(self, a: str, k: int, expected: str) -> None:
        assert str(q(a) * k) == expected
        assert str(k * q(a)) == expected

    @pytest.mark.parametrize(("a", "k", "expected"), PRODUCTS)
    def test_product_keeps_format(self, a: str, k: int, expected: str) -> None:
        assert (q(a) * k).format is q(a).format

    def test_times_one_clears_kept_text(self) -> None:
        assert str(q("+1") * 1) == "1"

    def test_negative_factor_is_refused(self) -> None:
        with pytest.raises(ValueError, match="negative"):
            q("1") * -1

    @pytest.mark.parametrize("k", [1.5, "2", None, True])
    def test_non_int_factor_is_refused(self, k: object) -> None:
        with pytest.raises(TypeError):
            q("1") * k  # type: ignore[operator]


# --- the Quantity object -------------------------------------------------------------------------


class TestQuantityObject:
    def test_repr(self) -> None:
        assert repr(q("500m")) == "Quantity('500m')"
        assert repr(q("1.5Gi")) == "Quantity('1536Mi')"
        assert repr(q("+1")) == "Quantity('+1')"

    def test_constructor_parses(self) -> None:
        assert Quantity("500m") == q("500m")
        assert str(Quantity("01")) == "01"
        assert Quantity(2).format is DEC

    def test_eval_repr_round_trips_value(self) -> None:
        original = q("1.5Gi")
        assert eval(repr(original)) == original

    def test_zero(self) -> None:
        zero = Quantity.zero()
        assert str(zero) == "0"
        assert zero.format is DEC
        assert zero.value == 0
        assert not zero

    def test_bool(self) -> None:
        assert q("1n")
        assert q("-1")
        assert not q("0Mi")

    def test_value_is_exact(self) -> None:
        assert q("1.5Gi").value == Fraction(3 * 2**29)
        assert q("333m").value == Fraction(333, 1000)
        assert isinstance(q("1").value, Fraction)

    def test_immutable(self) -> None:
        quantity = q("1")
        with pytest.raises(AttributeError):
            quantity.value = Fraction(2)  # type: ignore[misc]
        with pytest.raises(AttributeError):
            quantity.format = BIN  # type: ignore[misc]
        with pytest.raises(AttributeError):
            quantity.extra = 1  # type: ignore[attr-defined]

    def test_equality_and_hash_ignore_format_and_text(self) -> None:
        assert q("1Gi") == q("1073741824")
        assert q("1") == q("1000m") == q("1e0") == q("+1") == q("01")
        assert hash(q("1Gi")) == hash(q("1073741824"))
        assert len({q("1"), q("1000m"), q("1e0"), q("+1")}) == 1
        assert q("1") != q("2")

    def test_equality_with_other_types(self) -> None:
        assert q("1") != 1
        assert q("1") != "1"

    def test_ordering(self) -> None:
        assert q("500m") < q("1")
        assert q("1") <= q("1000m")
        assert q("1Ki") > q("1k")
        assert q("1G") >= q("1e9")
        assert sorted([q("1Gi"), q("1G"), q("1Mi")]) == [q("1Mi"), q("1G"), q("1Gi")]
        assert max(q("2"), q("1999m")) == q("2")

    def test_ordering_with_other_types_is_not_supported(self) -> None:
        with pytest.raises(TypeError):
            q("1") < 2  # type: ignore[operator]  # noqa: B015

    def test_copy_and_pickle(self) -> None:
        for original in (q("+1"), q("1.5Gi") + q("1"), q("1e3")):
            for clone in (
                copy.copy(original),
                copy.deepcopy(original),
                pickle.loads(pickle.dumps(original)),
            ):
                assert clone == original
                assert str(clone) == str(original)
                assert clone.format is original.format
                assert clone.canonical() == original.canonical()

    @pytest.mark.parametrize(
        ("text", "milli", "value"),
        [
            ("1", 1000, 1),
            ("1.5", 1500, 2),
            ("1n", 1, 1),
            ("0.1n", 1, 1),
            ("1001u", 2, 1),
            ("0", 0, 0),
            ("1Gi", 1073741824000, 1073741824),
            ("1.1Ki", 1126400, 1127),
            ("-1.5", -1500, -2),
            ("-1n", -1, -1),
        ],
    )
    def test_milli_value_and_int_value(self, text: str, milli: int, value: int) -> None:
        assert q(text).milli_value() == milli
        assert q(text).int_value_ceil() == value

    def test_from_value(self) -> None:
        assert str(Quantity.from_value(3)) == "3"
        assert str(Quantity.from_value(3 * 2**30, BIN)) == "3Gi"
        assert str(Quantity.from_value(Fraction(3, 2))) == "1500m"
        assert str(Quantity.from_value(Fraction(3, 2), EXP)) == "1500e-3"
        assert str(Quantity.from_value(-5 * 2**20, BIN)) == "-5Mi"
        assert Quantity.from_value(7, BIN).format is BIN

    def test_from_value_rounds_away_from_zero_to_nano(self) -> None:
        assert str(Quantity.from_value(Fraction(1, 3))) == "333333334n"
        assert str(Quantity.from_value(Fraction(-1, 3))) == "-333333334n"
        assert str(Quantity.from_value(Fraction(1, 10**12))) == "1n"

    def test_from_value_keeps_binary_below_one(self) -> None:
        # Unlike parsing, Go's constructors keep BinarySI; it prints as DecimalSI.
        tiny = Quantity.from_value(Fraction(1, 2), BIN)
        assert tiny.format is BIN
        assert str(tiny) == "500m"
        assert (Quantity.zero() + tiny).format is BIN

    @pytest.mark.parametrize(
        ("value", "fmt"), [(1.5, DEC), (True, DEC), ("1", DEC), (1, "BinarySI")]
    )
    def test_from_value_types(self, value: object, fmt: object) -> None:
        with pytest.raises(TypeError):
            Quantity.from_value(value, fmt)  # type: ignore[arg-type]

    def test_huge_products_still_print(self) -> None:
        # Past Python's default limit of 4300 digits for int -> str.
        huge = q("1e1000") * 10**4000
        assert str(huge) == "100e4998"
        assert str(q("3") * 10**5000 + q("1")) == "3" + "0" * 4999 + "1"
        # DecimalSI has no suffix for 10^4998, and Go prints none.
        assert str(q("1") * 10**5000) == "100"

    def test_format_values_are_go_names(self) -> None:
        assert {f.value for f in Format} == set(FORMAT_BY_GO_NAME)


# --- sum format rule -----------------------------------------------------------------------------


class TestSumFormatRule:
    @pytest.mark.parametrize(
        ("chain", "fmt"),
        [
            (["0", "0Mi", "500m", "1Gi"], DEC),
            (["0", "0", "1Gi", "500m"], BIN),
            (["0Mi", "1e3", "1Gi"], EXP),
            (["1Gi", "0", "500m"], BIN),
            (["0Mi", "0"], DEC),
            (["0", "0Mi"], BIN),
        ],
    )
    def test_first_non_zero_operand_decides(self, chain: list[str], fmt: Format) -> None:
        assert fold(chain).format is fmt

    def test_sum_that_reaches_zero_keeps_receiver_format(self) -> None:
        assert (q("1Gi") + q("-1Gi")).format is BIN

    def test_running_total_back_at_zero_adopts_the_next_format(self) -> None:
        # The rule is about the receiver being zero, not about operand order:
        # with negative operands a running total can return to zero.
        assert fold(["1e0", "-1e0", "0"]).format is DEC
        assert fold(["1e0", "-1e0", "1Gi"]).format is BIN
