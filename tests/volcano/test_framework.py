"""The session's extension points (``framework/session_plugins.go``): what the actions see of
the registered plugins."""

from __future__ import annotations

from collections.abc import Sequence

from raygang.volcano.api import Node, Placement, Res, Task
from raygang.volcano.cache import DEFAULT_QUEUE, QueueView
from raygang.volcano.conf import open_session
from raygang.volcano.framework import Admitted, EnqueueVoter, ProportionBallot, Session, Vote
from raygang.volcano.plugins import nodeorder, predicates

from tests.volcano.conftest import GI, cluster, node, parse_and_read

TASK = Task("w", "w", "w-*", {"cpu": 1000, "memory": GI, "pods": 1}, Placement())
NODE = Node(
    "n", {"cpu": 4000, "memory": 8 * GI}, {"cpu": 4000, "memory": 8 * GI}, {}, {}, (), False
)


class TestSession:
    def test_the_first_refusal_of_the_predicates_in_order(self) -> None:
        session = (
            Session()
            .add_predicate(lambda t, n: None)
            .add_predicate(lambda t, n: "first")
            .add_predicate(lambda t, n: "second")
        )
        assert session.predicate(TASK, NODE) == "first"
        assert Session().predicate(TASK, NODE) is None

    def test_node_scores_are_summed(self) -> None:
        session = Session().add_node_order(lambda t, n: 3).add_node_order(lambda t, n: 4)
        assert session.node_score(TASK, NODE) == 7

    def test_the_first_rejecting_voter_answers_and_the_rest_are_not_asked(self) -> None:
        asked: list[str] = []

        def ballot(name: str, rejects: bool) -> ProportionBallot:
            event = name if rejects else None
            return ProportionBallot(not rejects, event, name, True, {}, {}, {}, ())

        def voter(name: str, rejects: bool) -> EnqueueVoter:
            def vote(
                queue: QueueView | None, minimum: Res, admitted: Sequence[Admitted]
            ) -> ProportionBallot:
                asked.append(name)
                return ballot(name, rejects)

            return vote

        session = (
            Session()
            .add_job_enqueueable(voter("a", False))
            .add_job_enqueueable(voter("b", True))
            .add_job_enqueueable(voter("c", True))
        )
        answer = session.job_enqueueable(DEFAULT_QUEUE, {}, ())
        assert (answer.admitted, answer.by, answer.event) == (False, "proportion", "b")
        assert asked == ["a", "b"]
        # The vote keeps the ballots of the voters asked, in tier order.
        assert answer.ballots == (ballot("a", False), ballot("b", True))
        assert Session().job_enqueueable(DEFAULT_QUEUE, {}, ()) == Vote(True)
        # Every voter's ballot, for the decision log: the ones after a rejection too.
        asked.clear()
        assert [b.queue for b in session.ballots(DEFAULT_QUEUE, {}, ())] == ["a", "b", "c"]

    def test_orders_end_with_the_sessions_fallbacks(self) -> None:
        session = Session().add_job_order(lambda ready, held: int(ready))
        assert session.job_order_key(True, {}, "2026", "ns/pg") == (1, "2026", "ns/pg")
        queues = Session().add_queue_order(lambda q, allocated: (-q.priority, 0))
        assert queues.queue_order_key(DEFAULT_QUEUE, {}) == (0, 0, "", "default")


class TestDefaultConfiguration:
    def test_plugins_register_in_the_configurations_order(self) -> None:
        snapshot = parse_and_read(cluster(node("n1", "8")))
        session = open_session(snapshot)
        assert session.predicates == (predicates.static_failure,)
        assert session.node_orders == (nodeorder.node_score,)
        # gang's job order (not ready first), then drf's share.
        assert session.job_order_key(False, {"cpu": 4000}, "t", "u") == (0, 0.5, "t", "u")
        assert len(session.voters) == 2  # overcommit, then proportion

    def test_without_a_snapshot_only_node_choice_applies(self) -> None:
        session = open_session()
        assert session.voters == () and session.job_orders[1:] == ()
