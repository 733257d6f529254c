"""The other jobs' turns in words (``checks/others.py``)."""

from __future__ import annotations

from fractions import Fraction

from raygang.preflight.checks.others import ahead_text, notes, share_text, step_text
from raygang.volcano.cache import QueueView
from raygang.volcano.decisions import Ahead, Before, Later, Skipped, Step

OURS = "ns1/ray-rayjob-sample-pg"


def view(name: str, priority: int = 0, created: str = "2026-01-01T00:00:00Z") -> QueueView:
    return QueueView(name, "Open", {}, {}, 1, False, True, priority, created)


A, B = view("team-a"), view("team-b")


class TestShares:
    def test_two_decimals_as_proportion_logs_them(self) -> None:
        assert share_text(0) == "0"
        assert share_text(Fraction(8, 11)) == "0.73"
        assert share_text(Fraction(6, 11)) == "0.55"
        assert share_text(Fraction(1, 2)) == "0.5"
        assert share_text(1) == "1"

    def test_why_a_queue_comes_first(self) -> None:
        assert ahead_text(Ahead(view("b", priority=2), 1, A, 0)) == (
            "queue b's priority 2 is above team-a's 0"
        )
        assert ahead_text(Ahead(A, 0, B, Fraction(8, 11))) == (
            "queue team-a's share 0 is below team-b's 0.73"
        )
        old = view("old", created="2025-01-01T00:00:00Z")
        assert ahead_text(Ahead(old, Fraction(1, 2), A, Fraction(1, 2))) == (
            "queues old and team-a both have share 0.5, old is older"
        )
        assert ahead_text(Ahead(A, 0, B, 0)) == (
            "queues team-a and team-b both have share 0, team-a comes first by name"
        )


class TestSteps:
    def test_a_capped_gang_places_nothing(self) -> None:
        cap = (("cpu",), {"cpu": 110_000}, {"cpu": 60_000}, {"cpu": 60_000, "pods": 6})
        ahead = Ahead(B, Fraction(6, 11), A, Fraction(2, 3))
        assert step_text(Step("ns1/b-wait", "team-b", "capped", ahead=ahead, cap=cap)) == (
            "ns1/b-wait comes first (queue team-b's share 0.55 is below team-a's 0.67) but is "
            "capped by queue team-b's deserved share, so it places nothing (deserved cpu 110, "
            "allocated cpu 60, its gang asks cpu 60)"
        )
        assert step_text(Step("ns1/b-wait", "team-a", "capped", cap=cap)).startswith(
            "ns1/b-wait is capped by queue team-a's deserved share, so it places nothing"
        )

    def test_placed_first(self) -> None:
        assert step_text(Step("ns1/x", "team-a", "gang")) == "ns1/x places its gang first"
        assert step_text(Step("ns1/x", "team-a", "gang", pods=2)) == (
            "ns1/x places its gang and 2 more pod(s) first"
        )
        assert step_text(Step("ns1/x", "team-b", "pods", pods=3, ahead=Ahead(B, 0, A, 1))) == (
            "ns1/x places 3 pending pod(s) first (queue team-b's share 0 is below team-a's 1)"
        )
        assert step_text(Step("ns1/x", "team-a", "pipelined")) == (
            "ns1/x holds room for its gang first, some pods waiting for room terminating pods "
            "release"
        )


class TestNotes:
    def test_in_turn_order_then_who_waits_for_this_gang(self) -> None:
        before = Before(
            nodes=[],
            steps=[Step("ns1/x", "team-a", "gang")],
            skipped=[Skipped("qb", {"cpu": 20_000, "pods": 3}, {"cpu": 40_000}, ("ns1/y", OURS))],
            later=[
                Later("ns1/b-1", "team-b", "queue", Ahead(A, 0, B, Fraction(8, 11))),
                Later("ns1/b-2", "team-b", "queue", Ahead(A, 0, B, Fraction(8, 11))),
                Later("ns1/e", "team-a", "ready"),
            ],
            own_turn=True,
        )
        assert notes(before, OURS) == [
            "ns1/x places its gang first",
            "queue qb has used its deserved share (deserved cpu 20, allocated cpu 40), so "
            "allocate skips ns1/y, this gang",
            "this gang is placed before ns1/b-1, ns1/b-2 (queue team-a's share 0 is below "
            "team-b's 0.73)",
            "this gang is placed before ns1/e (queue team-a's job order puts gangs not yet "
            "ready first)",
        ]

    def test_the_jobs_of_a_queue_not_open_wait_for_no_one(self) -> None:
        # Their turns take nothing: neither a later turn nor a skipped queue of theirs is
        # told, but this gang skipped with them still is.
        before = Before(
            nodes=[],
            skipped=[
                Skipped("shut", {"cpu": 1_000}, {"cpu": 1_000}, ("ns1/s",), closed=True),
                Skipped("mine", {"cpu": 1_000}, {"cpu": 1_000}, ("ns1/m", OURS), closed=True),
            ],
            later=[Later("ns1/t", "shut", "closed")],
        )
        assert notes(before, OURS) == [
            "queue mine has used its deserved share (deserved cpu 1, allocated cpu 1), so "
            "allocate skips this gang",
        ]
