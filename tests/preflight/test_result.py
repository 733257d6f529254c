"""The preflight result: its shape, JSON and table forms, and declared node shapes."""

from __future__ import annotations

import pytest
from raygang.kube.errors import SpecError
from raygang.kube.quantity import Quantity
from raygang.preflight.result import NodeShape, parse_node_shapes

from tests.volcano.conftest import (
    CHECK_NAMES,
    check,
    fixture,
    job,
    run,
)


class TestResultShape:
    def test_every_check_in_a_stable_order(self) -> None:
        result = run(job(), fixture("cpu-only.yaml"))
        assert [c.name for c in result.checks] == CHECK_NAMES

    def test_to_dict(self) -> None:
        result = run(job(), fixture("cpu-only.yaml"))
        doc = result.to_dict()
        assert set(doc) == {"verdict", "neverAdmitted", "phase", "phaseReason", "reasons", "checks"}
        assert doc["verdict"] == "admitted"
        assert doc["phase"] == "Running"
        assert doc["neverAdmitted"] is False
        assert doc["checks"][0] == {
            "name": "snapshot",
            "status": "pass",
            "message": check(result, "snapshot").message,
        }

    def test_table_lines(self) -> None:
        result = run(job(head={"cpu": "64"}), fixture("cpu-only.yaml"))
        lines = result.table_lines()
        assert lines[0] == "  preflight     stuck  (never admitted as declared)"
        assert lines[1].startswith("  phase         Pending: enqueue refuses it (")
        assert lines[2].startswith("                - ")
        assert any(line.startswith("    fit ") and " fail " in line for line in lines)
        assert all(line.startswith("  ") for line in lines)

    def test_checks_are_frozen(self) -> None:
        result = run(job())
        with pytest.raises(AttributeError):
            result.verdict = "admitted"  # type: ignore[misc]


class TestNodeShapes:
    def test_parse(self) -> None:
        (shape,) = parse_node_shapes(
            [{"name": "a", "allocatable": {"cpu": "2"}, "labels": {"x": "y"}}]
        )
        assert shape == NodeShape(
            "a", {"cpu": Quantity("2"), "pods": Quantity("110")}, {"x": "y"}, ()
        )

    def test_errors_name_the_field(self) -> None:
        with pytest.raises(SpecError) as err:
            parse_node_shapes([{"name": "a", "allocatable": {"cpu": "two"}}, {"name": "b"}, "c"])
        text = str(err.value)
        assert "raygang:nodeShapes: [0].allocatable['cpu']: invalid quantity" in text
        assert "[1].allocatable: is required" in text
        assert "[2]: is a str" in text

    def test_not_a_list(self) -> None:
        with pytest.raises(SpecError):
            parse_node_shapes({"cpu": "2"})
        assert parse_node_shapes(None) == ()
