"""Tests for raygang.kube.quantity parsing: Go's ``ParseQuantity`` and what ``String()`` prints.

Covers the modules ``parse``, ``errors``, ``suffixes`` and ``canonical`` through the public
``Quantity.parse``; the expected strings are research section 9.2 and Go's own answers.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from raygang.kube.quantity import Format, Quantity, QuantityError

from tests.kube.quantity.conftest import BIN, DEC, EXP, fold, q

# --- research §9.2: parse -> String() --------------------------------------------------------

PARSE_STRING = [
    ("0", DEC, "0"),
    ("500m", DEC, "500m"),
    ("1000m", DEC, "1"),
    ("0.5", DEC, "500m"),
    ("1.5", DEC, "1500m"),
    ("5.5", DEC, "5500m"),
    ("0.1", DEC, "100m"),
    ("0.25", DEC, "250m"),
    ("0.001", DEC, "1m"),
    ("0.0005", DEC, "500u"),
    ("100", DEC, "100"),
    ("1000", DEC, "1k"),
    ("1024", DEC, "1024"),
    ("2000", DEC, "2k"),
    ("1001", DEC, "1001"),
    ("2147483648", DEC, "2147483648"),
    ("1e3", EXP, "1e3"),
    ("1Gi", BIN, "1Gi"),
    ("1024Mi", BIN, "1Gi"),
    ("1536Mi", BIN, "1536Mi"),
    ("1.5Gi", BIN, "1536Mi"),
    ("2.5Gi", BIN, "2560Mi"),
    ("0.5Gi", BIN, "512Mi"),
    ("0.5Mi", BIN, "512Ki"),
    ("2048Ki", BIN, "2Mi"),
    ("1000Mi", BIN, "1000Mi"),
    ("1.1Ki", BIN, "1126400m"),
    ("0Mi", BIN, "0"),
    ("1G", DEC, "1G"),
    ("1.5G", DEC, "1500M"),
    ("1000M", DEC, "1G"),
    ("512", DEC, "512"),
]

# apimachinery's TestQuantityString: alternate input => canonical form.
ALTERNATE_TO_CANONICAL = [
    ("1024Mi", "1Gi"),
    ("307200Ki", "300Mi"),
    ("1025024Mi", "1001Gi"),
    ("1024Gi", "1Ti"),
    ("0.5", "500m"),
    ("1.08", "1080m"),
    ("1080000000n", "1080m"),
    ("1000M", "1G"),
    ("1000u", "1m"),
    ("5000m", "5"),
]


class TestParseString:
    @pytest.mark.parametrize(("text", "fmt", "expected"), PARSE_STRING)
    def test_string_and_format(self, text: str, fmt: Format, expected: str) -> None:
        quantity = q(text)
        assert str(quantity) == expected
        assert quantity.format is fmt

    @pytest.mark.parametrize(("text", "fmt", "expected"), PARSE_STRING)
    def test_canonical_is_the_same_for_these(self, text: str, fmt: Format, expected: str) -> None:
        assert q(text).canonical() == expected

    @pytest.mark.parametrize(("text", "expected"), ALTERNATE_TO_CANONICAL)
    def test_alternate_input_prints_canonical(self, text: str, expected: str) -> None:
        assert str(q(text)) == expected
        assert q(text).canonical() == expected
        assert str(q(text) + Quantity.zero()) == expected

    @pytest.mark.parametrize(
        ("value", "fmt", "expected"),
        [
            (1025, BIN, "1025"),
            (5, BIN, "5"),
            (Fraction(500, 1000), BIN, "500m"),
        ],
    )
    def test_built_values(self, value: Fraction | int, fmt: Format, expected: str) -> None:
        assert str(Quantity.from_value(value, fmt)) == expected


# --- odd inputs, checked against the real Go code ---------------------------------------------

# (text, String(), canonical form, format, exact value as printed by inf.Dec)
GO_PARSE_QUIRKS = [
    ("+1", "+1", "1", DEC, "1"),
    ("01", "01", "1", DEC, "1"),
    ("-1", "-1", "-1", DEC, "-1"),
    ("+1Gi", "+1Gi", "1Gi", BIN, "1073741824"),
    ("1.500", "1.500", "1500m", DEC, "1.500"),
    ("1.", "1.", "1", DEC, "1"),
    ("1.G", "1.G", "1G", DEC, "1000000000"),
    ("1.Gi", "1.Gi", "1Gi", BIN, "1073741824"),
    ("01Gi", "01Gi", "1Gi", BIN, "1073741824"),
    ("01Pi", "1Pi", "1Pi", BIN, "1125899906842624.000000000"),
    ("100Ti", "100Ti", "100Ti", BIN, "109951162777600.000000000"),
    ("10Ti", "10Ti", "10Ti", BIN, "10995116277760"),
    (".5", "500m", "500m", DEC, "0.5"),
    ("-.5", "-500m", "-500m", DEC, "-0.5"),
    ("00", "0", "0", DEC, "0"),
    ("-0", "0", "0", DEC, "0"),
    ("+", "0", "0", DEC, "0"),
    ("-", "0", "0", DEC, "0"),
    (".", "0", "0", DEC, "0"),
    ("m", "0", "0", DEC, "0.000"),
    ("Gi", "0", "0", BIN, "0"),
    ("Ti", "0", "0", BIN, "0"),
    ("k", "0", "0", DEC, "0"),
    ("e3", "0", "0", EXP, "0"),
    ("1E", "1E", "1E", DEC, "1000000000000000000"),
    ("1e-10", "1e-9", "1e-9", EXP, "0.000000001"),
    ("0.1n", "1n", "1n", DEC, "0.000000001"),
    ("-0.1n", "-1n", "-1n", DEC, "-0.000000001"),
    ("1n", "1n", "1n", DEC, "0.000000001"),
    ("1.5n", "2n", "2n", DEC, "0.000000002"),
    ("1000E", "1", "1", DEC, "1000000000000000000000"),
    ("1500E", "1500E", "1500E", DEC, "1500000000000000000000"),
    ("8Ei", "9223372036854775807", "9223372036854775807", BIN, "9223372036854775807"),
    ("-8Ei", "-9223372036854775807", "-9223372036854775807", BIN, "-9223372036854775807"),
    ("7Ei", "7Ei", "7Ei", BIN, "8070450532247928832.000000000"),
    ("0.0001Ki", "102400u", "102400u", DEC, "0.102400000"),
    ("-0.0001Ki", "-102400u", "-102400u", DEC, "-0.102400000"),
    ("0.5Ki", "512", "512", BIN, "512.000000000"),
    ("1e4294967296", "1e4294967296", "1", EXP, "1"),
    ("1e+3", "1e+3", "1e3", EXP, "1000"),
    ("1E-3", "1E-3", "1e-3", EXP, "0.001"),
    ("1e003", "1e003", "1e3", EXP, "1000"),
    ("1.5e3", "1500", "1500", EXP, "1500"),
    ("10e3", "10e3", "10e3", EXP, "10000"),
    ("1e0", "1e0", "1", EXP, "1"),
    ("0e5", "0", "0", EXP, "0"),
    ("1e-3", "1e-3", "1e-3", EXP, "0.001"),
    ("0.000000001", "1n", "1n", DEC, "0.000000001"),
    ("0.0000000001", "1n", "1n", DEC, "0.000000001"),
    ("1.1Ki", "1126400m", "1126400m", BIN, "1126.400000000"),
    ("1025Ki", "1025Ki", "1025Ki", BIN, "1049600"),
    ("1032Ki", "1032Ki", "1032Ki", BIN, "1056768"),
    ("9007199254740993", "9007199254740993", "9007199254740993", DEC, "9007199254740993"),
    ("123456789012345678", "123456789012345678", "123456789012345678", DEC, "123456789012345678"),
    (
        "1234567890123456789",
        "1234567890123456789",
        "1234567890123456789",
        DEC,
        "1234567890123456789",
    ),
    ("0.123456789012345678", "123456790n", "123456790n", DEC, "0.123456790"),
    ("-1Gi", "-1Gi", "-1Gi", BIN, "-1073741824"),
    ("-1.5", "-1500m", "-1500m", DEC, "-1.5"),
    ("-1000m", "-1", "-1", DEC, "-1.000"),
    ("1.08", "1080m", "1080m", DEC, "1.08"),
    ("5000m", "5", "5", DEC, "5.000"),
    ("E11886", "0", "0", EXP, "0"),
    ("0Ei", "0", "0", BIN, "0"),
    ("0.0Ki", "0", "0", BIN, "0.0"),
    (
        "12345678901234567890Ki",
        "9223372036854775807",
        "9223372036854775807",
        BIN,
        "9223372036854775807",
    ),
]

# (operands, factor or None for a left-fold sum, String(), format)
GO_ARITHMETIC_QUIRKS = [
    (["0.0001Ki", "1Ki"], None, "1024102400u", DEC),
    (["0Ki", "0.0001Ki"], None, "102400u", DEC),
    (["0", "0Mi"], None, "0", BIN),
    (["0Mi", "0"], None, "0", DEC),
    (["7Ei", "7Ei"], None, "14Ei", BIN),
    (["-1", "1Gi"], None, "1073741823", DEC),
    (["1Gi", "-1Gi"], None, "0", BIN),
    (["500E", "500E"], None, "1", DEC),
    (["1e3", "1e3"], None, "2e3", EXP),
    (["1Ei"], 1024, "1", BIN),
    (["1E"], 1000, "1", DEC),
    (["+1"], 1, "1", DEC),
    (["1e3"], 0, "0", EXP),
    (["-1.5Gi"], 3, "-4608Mi", BIN),
]


class TestGoQuirks:
    """Inputs and results that surprise; each row was produced by the real Go code."""

    @pytest.mark.parametrize(("text", "string", "canonical", "fmt", "value"), GO_PARSE_QUIRKS)
    def test_parse(self, text: str, string: str, canonical: str, fmt: Format, value: str) -> None:
        quantity = q(text)
        assert str(quantity) == string
        assert quantity.canonical() == canonical
        assert quantity.format is fmt
        assert quantity.value == Fraction(value)

    @pytest.mark.parametrize(("operands", "k", "expected", "fmt"), GO_ARITHMETIC_QUIRKS)
    def test_arithmetic(
        self, operands: list[str], k: int | None, expected: str, fmt: Format
    ) -> None:
        result = fold(operands) if k is None else q(operands[0]) * k
        assert str(result) == expected
        assert result.format is fmt

    def test_decimal_si_above_exa_prints_without_suffix(self) -> None:
        # Go has no suffix for 10^21 and prints the bare mantissa, so the text
        # no longer parses back to the same value.
        assert str(q("1000E")) == "1"
        assert q(str(q("1000E"))) != q("1000E")

    def test_binary_beyond_exbi_prints_without_suffix(self) -> None:
        assert str(q("1Ei") * 1024) == "1"

    def test_binary_cap_applies_to_parsing_only(self) -> None:
        assert q("8Ei").value == 2**63 - 1
        assert (q("4Ei") * 2).value == 2**63
        assert str(q("4Ei") * 2) == "8Ei"
        assert q(str(q("4Ei") * 2)) != q("4Ei") * 2


# --- bad inputs ---------------------------------------------------------------------------------

GO_REJECTS = [
    "",
    "2 cores",
    "1.2.3",
    "--1",
    " 1",
    "1 ",
    "1ki",
    "1KI",
    "1e",
    "0x10",
    "Ei",
    "Pi",
    "-Ei",
    "e-10",
    "1e+",
    "1e-",
    "1Mi3",
    "abc",
    "1..",
    "1.5.5",
    "1mm",
    "1Kii",
    "1 Gi",
    "1g",
    "1e1.5",
    "++1",
    "1-",
    "1+1",
    "5i",
    "i",
    "1ee3",
    "1e99999999999999999999",
    "\n1",
    "1\n",
    "1_000",
    "\u0661",  # ARABIC-INDIC DIGIT ONE: Python's int() would take it, Go does not
    "1\u00b2",  # SUPERSCRIPT TWO
]


class TestBadInputs:
    @pytest.mark.parametrize("text", GO_REJECTS)
    def test_rejected_like_go(self, text: str) -> None:
        with pytest.raises(QuantityError) as info:
            Quantity.parse(text)
        message = str(info.value)
        assert message.startswith("invalid quantity ")
        assert "expected a number with an optional suffix" in message
        assert info.value.text == text

    def test_message_quotes_the_text(self) -> None:
        with pytest.raises(QuantityError) as info:
            Quantity.parse("2 cores")
        assert str(info.value) == (
            'invalid quantity "2 cores": expected a number with an optional suffix '
            "(n u m k M G T P E, Ki Mi Gi Ti Pi Ei) or exponent (e3), e.g. 500m, 1.5, 2Gi, 1e3"
        )

    @pytest.mark.parametrize(
        ("text", "reason"),
        [("1ki", 'unknown suffix "ki"'), ("e-10", "no digits"), ("", "empty")],
    )
    def test_message_names_the_reason(self, text: str, reason: str) -> None:
        with pytest.raises(QuantityError, match=reason):
            Quantity.parse(text)

    def test_is_a_value_error(self) -> None:
        with pytest.raises(ValueError):
            Quantity.parse("2 cores")

    @pytest.mark.parametrize(
        "value", [True, False, None, float("nan"), float("inf"), -float("inf"), [], {"a": 1}]
    )
    def test_non_quantity_types(self, value: object) -> None:
        with pytest.raises(QuantityError, match="expected"):
            Quantity.parse(value)  # type: ignore[arg-type]

    @pytest.mark.parametrize("text", ["1e1001", "1" * 1001 + "e-9", "1.5e2147483647"])
    def test_beyond_supported_range(self, text: str) -> None:
        # Go would accept these; nothing real needs them, and Python cannot
        # print integers this long by default.
        with pytest.raises(QuantityError, match=r"supported range|significant digits"):
            Quantity.parse(text)

    def test_zero_with_any_exponent_is_fine(self) -> None:
        assert Quantity.parse("0e99999").value == 0

    def test_tiny_exponent_rounds_to_one_nano(self) -> None:
        assert str(Quantity.parse("5e-99999")) == "1e-9"
        assert str(Quantity.parse("0." + "0" * 3000 + "1")) == "1n"


# --- YAML scalars ------------------------------------------------------------------------------


class TestYamlScalars:
    @pytest.mark.parametrize(
        ("value", "expected", "fmt"),
        [
            (1, "1", DEC),
            (0, "0", DEC),
            (1000, "1k", DEC),
            (2147483648, "2147483648", DEC),
            (-2, "-2", DEC),
            (0.5, "500m", DEC),
            (1.5, "1500m", DEC),
            (100.0, "100", DEC),
            (1e-05, "10e-6", EXP),
            (1e20, "100e18", EXP),
            (-0.0, "0", DEC),
        ],
    )
    def test_numbers_read_as_written(self, value: float, expected: str, fmt: Format) -> None:
        quantity = Quantity.parse(value)
        assert str(quantity) == expected
        assert quantity.format is fmt
        assert quantity == Quantity.parse(repr(value))

    def test_int_keeps_its_text(self) -> None:
        assert str(Quantity.parse(1)) == "1"
